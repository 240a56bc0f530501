"""`figure_style.build` takes an animation's plain frames (a name, trace indices, flat scatter traces) as plotly
would make them, without validating each value: the same figure, dict and JSON as plotly's own frames."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lcsm_explorer.app.kit import figure_style
from lcsm_explorer.app.kit.chart_element import chart_spec, plain_figure


def frames():
    return [dict(name=str(step), traces=[1], data=[dict(type="scatter", y=[float(step), 2.0], x=[0.0, 1.0])])
            for step in range(3)] + [dict(name="a", traces=[1], data=[dict(type="scatter", x=np.arange(3.0),
                                                                              y=np.array([1, 2, 3]))])]


def made(monkeypatch, validate: bool, given=None) -> go.Figure:
    monkeypatch.setattr(figure_style, "VALIDATE", validate)
    traces = [figure_style.scatter(x=[0.0, 1.0], y=[0.0, 1.0], name="still"),
              figure_style.scatter(x=[0.0, 1.0], y=[1.0, 2.0], mode="markers", name="moving")]
    return figure_style.build(traces, "t", frames=frames() if given is None else given,
                              sliders=[dict(steps=[dict(label="0", method="animate", args=[["0"]])])])


def test_plain_frames_are_plotlys_frames(monkeypatch):
    fast, checked = made(monkeypatch, False), made(monkeypatch, True)
    assert isinstance(fast, go.Figure) and len(fast.frames) == 4
    assert chart_spec(fast) == chart_spec(checked)
    assert plain_figure(fast) == plain_figure(checked)
    assert fast.to_dict()["frames"] == checked.to_dict()["frames"]
    assert list(fast.to_dict()["frames"][0]) == ["data", "name", "traces"]
    assert list(fast.to_dict()["frames"][0]["data"][0]) == ["x", "y", "type"]   # Scatter's order, the type last


def test_other_frames_go_plotlys_way(monkeypatch):
    """A nested property (a marker), another trace kind or a go.Frame: plotly makes the frames (and orders them)."""
    for given in ([dict(name="0", data=[dict(type="scatter", marker=dict(size=3, color="red"))])],
                  [dict(name="0", data=[dict(type="bar", y=[1.0])])],
                  [go.Frame(name="0", data=[go.Scatter(y=[1.0])])]):
        assert not all(figure_style._plain_frame(frame) for frame in given)
        assert chart_spec(made(monkeypatch, False, given)) == chart_spec(made(monkeypatch, True, given))

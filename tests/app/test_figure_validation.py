"""Figures built unvalidated (the server's processes: `figure_style.VALIDATE` off) are the figures built validated
(tests: on, tests/app/conftest.py), byte for byte in the JSON the browser receives: every chart of every page at
its defaults, every preset and the extreme settings the hygiene tests visit, and a preview family's members."""
from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest
from plotly.utils import PlotlyJSONEncoder

from lcsm_explorer.app.kit import figure_style
from lcsm_explorer.app.kit.chart_element import chart_spec
from lcsm_explorer.app.kit.sweep import sweep_family
from lcsm_explorer.app.lessons import lesson
from tests.app.test_figure_hygiene import FIGURE_PAGES, SHORT_COMPUTE, cases
from tests.app.test_sweep import SWEPT, held


def test_tests_build_validated_figures():
    """Under pytest a page's mistyped property fails (the server skips that check)."""
    assert figure_style.VALIDATE
    with pytest.raises(ValueError):
        figure_style.scatter(x=[0, 1], linee=dict(width=2))


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_unvalidated_figures_are_the_validated_ones(page, monkeypatch):
    spec = lesson(page)
    compute = SHORT_COMPUTE.get(page, spec.compute)
    for name, values in cases(page):
        result = compute(values)
        checked = {chart: chart_spec(fig).spec for chart, fig in spec.figures(values, result).items()}
        monkeypatch.setattr(figure_style, "VALIDATE", False)
        fast = {chart: chart_spec(fig).spec for chart, fig in spec.figures(values, result).items()}
        monkeypatch.setattr(figure_style, "VALIDATE", True)
        for chart in checked:
            assert fast[chart] == checked[chart], f"{page} [{name}] {chart}"


@pytest.mark.parametrize("page", list(SWEPT))
def test_a_family_is_the_same_built_either_way(page, monkeypatch):
    spec = lesson(page)
    checked = sweep_family(spec, held(page))
    monkeypatch.setattr(figure_style, "VALIDATE", False)
    fast = sweep_family(spec, held(page))
    assert json.dumps(fast, cls=PlotlyJSONEncoder) == json.dumps(checked, cls=PlotlyJSONEncoder)


def test_an_unvalidated_figure_is_a_whole_plotly_figure(monkeypatch):
    """What `build` returns unvalidated reads and writes as any plotly Figure (its traces are its own)."""
    monkeypatch.setattr(figure_style, "VALIDATE", False)
    trace = figure_style.scatter(x=[0.0, 1.0], y=[1.0, 2.0], line=dict(width=2, color="red"), name="a")
    fig = figure_style.build([trace], "t", yaxis2=dict(title=dict(text="b"), overlaying="y"))
    assert fig.data[0] is trace and fig.data[0].line.color == "red" and fig.layout.yaxis2.title.text == "b"
    fig.update_layout(height=200)
    fig.data[0].name = "b"
    assert fig.to_dict()["layout"]["height"] == 200 and fig.to_dict()["data"][0]["name"] == "b"
    assert isinstance(fig, go.Figure)


def test_unvalidated_figures_and_traces_share_no_state(monkeypatch):
    """Traces and figures copied from blank ones (`figure_style._clone`) are each their own."""
    monkeypatch.setattr(figure_style, "VALIDATE", False)
    first, second = (figure_style.build([figure_style.scatter(x=[0.0, 1.0], y=[0.0, 1.0], name=name)], name)
                     for name in ("a", "b"))
    first.update_layout(height=123)
    first.add_trace(go.Scatter(x=[1], y=[1]))
    first.data[0].line.color = "red"
    assert second.layout.height != 123 and len(second.data) == 1 and second.data[0].line.color is None
    assert second.to_dict()["data"][0]["name"] == "b" and first.to_dict()["data"][0]["name"] == "a"
    fresh = figure_style.build([figure_style.scatter(x=[0.0], y=[0.0])], "c")
    assert fresh.layout.height == 340 and len(fresh.data) == 1 and fresh.data[0].line.color is None


def test_a_trace_drawn_in_two_figures_is_in_both(monkeypatch):
    """`build` takes a new trace as its own; one already in a figure is copied, as plotly does."""
    monkeypatch.setattr(figure_style, "VALIDATE", False)
    trace = figure_style.scatter(x=[0.0, 1.0], y=[2.0, 3.0], name="shared")
    first, second = figure_style.build([trace], "a"), figure_style.build([trace], "b")
    assert first.to_dict()["data"] == second.to_dict()["data"]
    assert second.to_dict()["data"][0]["name"] == "shared" and list(second.to_dict()["data"][0]["y"]) == [2.0, 3.0]

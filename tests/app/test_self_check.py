"""The start-up self-check (`app/kit/internals/self_check.py`): on the pinned Streamlit and plotly every internal is
there; where one is missing, its public path is taken and one line is logged."""
from __future__ import annotations

import json
import logging

import numpy as np
from streamlit.runtime.app_session import AppSession
from streamlit.testing.v1 import AppTest

from lcsm_explorer.app.kit import figure_style
from lcsm_explorer.app.kit.chart_element import chart_spec
from lcsm_explorer.app.kit.internals import plotly_element, plotly_objects, script_events, self_check, widget_states
from lcsm_explorer.app.lessons import lesson


def test_every_internal_is_there_on_the_pinned_versions():
    assert self_check.missing_internals() == {}


def test_a_missing_internal_is_logged_once_in_one_line(monkeypatch, caplog):
    monkeypatch.setitem(self_check.AREAS, "batched script events (one wake-up per event instead)",
                        lambda: ["AppSession._on_scriptrunner_event(self, sender)"])
    monkeypatch.setattr(self_check, "_found", None)
    with caplog.at_level(logging.WARNING, logger=self_check.__name__):
        found = self_check.self_check()
        self_check.self_check()
    assert list(found) == ["batched script events (one wake-up per event instead)"]
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 1 and self_check.FALLBACK_LINE in lines[0] and "_on_scriptrunner_event" in lines[0]


def test_batching_is_not_installed_where_its_methods_differ(monkeypatch):
    original = AppSession._on_scriptrunner_event
    monkeypatch.setattr(script_events, "missing", lambda: ["AppSession._on_scriptrunner_event(self, sender)"])
    assert script_events.batch_script_events() is False
    assert AppSession._on_scriptrunner_event is original


def decoded(value):
    """A figure dict with each typed array (`{"dtype", "bdata"}`) as a list of float32 values: the public path may
    keep an array float64 that the private one sends as float32 (the same picture)."""
    if isinstance(value, dict) and "bdata" in value:
        return [float(np.float32(v)) for v in np.ravel(figure_style.plotly_array(value))]
    if isinstance(value, dict):
        return {key: decoded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decoded(item) for item in value]
    return value


def test_no_widget_state_is_read_where_streamlit_keeps_them_otherwise(monkeypatch):
    """A reconnected tab's first move is not recovered there (nothing sent is read), and nothing fails."""
    monkeypatch.setattr(widget_states, "_usable", False)
    assert widget_states.sent_widgets() == {}


def test_figures_take_plotlys_public_path_where_its_internals_moved(monkeypatch):
    """The same figures, built by plotly's own constructors (validated) instead of without its copies."""
    spec = lesson("spring")
    values = spec.settings.defaults
    result = spec.compute(values)
    monkeypatch.setattr(figure_style, "VALIDATE", False)
    private = {name: decoded(json.loads(chart_spec(fig).spec)) for name, fig in spec.figures(values, result).items()}
    monkeypatch.setattr(plotly_objects, "_usable", False)
    public = {name: decoded(json.loads(chart_spec(fig).spec)) for name, fig in spec.figures(values, result).items()}
    assert public == private


SCRIPT = '''
import plotly.graph_objects as go
from lcsm_explorer.app.kit.chart_element import chart_spec, emit_chart
from lcsm_explorer.app.kit.figure_style import build
from lcsm_explorer.app.kit.internals import plotly_element

plotly_element._usable = False
emit_chart(chart_spec(build([go.Scatter(x=[0, 1], y=[1, 2])], "a chart")), {}, key="chart")
'''


def test_a_chart_is_drawn_by_st_plotly_chart_where_the_element_internals_moved():
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    try:
        assert not at.exception
        assert len(at.get("plotly_chart")) == 1
    finally:
        plotly_element._usable = None

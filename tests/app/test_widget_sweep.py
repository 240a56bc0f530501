"""Every setting's widget on every lesson page at its min, max and middle, in AppTest: no exception, no failed
compute, and every chart finite — no ±inf anywhere, NaN only as a deliberate gap (a trace that also has finite
numbers: plotly breaks the line there), never a whole trace of NaN or a NaN/inf scalar.

One widget at a time, from the state that draws it (the defaults; or the defaults with one choice changed for a
widget shown only then, like Train live's model code), set back before the next: the states a learner reaches
by moving one control. Buttons are never pressed, so Train live and Paper lab start no training here. (Presets
and the page load are checked in test_lessons.py; the pure compute → figures pipeline at every extreme too.)

A dynamics lesson draws its settings in the lesson instrument (app/kit/instrument.py), not as widgets: there each
setting is the instrument's control (its bounds and options as the browser gets them), moved by a commit (the
values into the settings' keys, as `instrument.apply_commit` writes them), and the charts checked are the
instrument's figures.
"""
from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from lcsm_explorer.app.kit.figure_style import plotly_array
from lcsm_explorer.app.kit.instrument import settings_controlled
from lcsm_explorer.app.lessons import PAGES, lesson
from tests.app.pages import assert_clean, commit, control, open_page

WIDGET_LIST = {"slider": "slider", "select_slider": "select_slider", "selectbox": "selectbox", "radio": "radio",
               "toggle": "toggle", "number": "number_input", "text": "text_input"}


# --- what a chart's spec holds ---------------------------------------------------------------------------
def arrays(node, path="fig"):
    """(path, float array) for every numeric array and scalar of a plotly JSON spec; `{"dtype", "bdata"}`
    arrays (plotly 7's base64 encoding) decoded, JSON lists with null for a gap read as NaN."""
    if isinstance(node, dict):
        if "bdata" in node and "dtype" in node:
            values = plotly_array(node).ravel()
            yield path, values.astype(float) if values.dtype.kind in "fiuc" else np.zeros(0)
            return
        for key, value in node.items():
            yield from arrays(value, f"{path}.{key}")
    elif isinstance(node, list):
        if node and all(isinstance(v, int | float | type(None)) and not isinstance(v, bool) for v in node) \
                and any(v is not None for v in node):
            yield path, np.array([np.nan if v is None else v for v in node], float)
        else:
            for n, value in enumerate(node):
                yield from arrays(value, f"{path}[{n}]")
    elif isinstance(node, float):
        yield path, np.array([node])


def chart_problems(spec: str) -> list[str]:
    """What is not finite in one chart: ±inf anywhere, or NaN that is not a gap between finite numbers."""
    problems = []
    for path, values in arrays(json.loads(spec)):
        gap_allowed = ".data[" in path and values.size > 1           # a trace's array, not a layout range
        if np.isinf(values).any():
            problems.append(f"{path}: ±inf")
        elif np.isnan(values).any() and (not gap_allowed or np.isnan(values).all()):
            problems.append(f"{path}: NaN")
    return problems


def charts(at) -> list[str]:
    """Every chart's spec: the plotly charts', and every figure of a lesson instrument (re-encoded: NaN and
    ±inf come back as JSON's NaN and Infinity, which the check reads)."""
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    for element in at.get("bidi_component"):
        proto = element.proto
        payload = json.loads(proto.bytes if proto.WhichOneof("data") == "bytes" else proto.json)
        if payload.get("role") == "instrument":
            specs.extend(json.dumps(fig) for fig in payload["figures"].values())
    return specs


def assert_finite_charts(at, where: str) -> int:
    specs = charts(at)
    bad = {n: p for n, spec in enumerate(specs) if (p := chart_problems(spec))}
    assert not bad, f"{where}: {bad}"
    return len(specs)


def test_the_chart_check_finds_inf_and_all_nan_traces_and_passes_gaps():
    def encoded(values):
        return {"dtype": "f8", "bdata": base64.b64encode(np.array(values, float).tobytes()).decode()}
    fine = json.dumps({"data": [{"x": encoded([0, 1, 2]), "y": encoded([1, np.nan, 2])}], "layout": {}})
    assert chart_problems(fine) == []
    assert chart_problems(json.dumps({"data": [{"y": encoded([1, np.inf])}]}))
    assert chart_problems(json.dumps({"data": [{"y": encoded([np.nan, np.nan])}]}))
    assert chart_problems('{"data": [], "layout": {"yaxis": {"range": [0, NaN]}}}')


# --- the values a widget is moved to -----------------------------------------------------------------------
def middle(low, high, step, kind: str):
    """The value halfway, on the widget's step grid from `low`."""
    if kind == "int":
        step = int(step or 1)
        return low + (high - low) // 2 // step * step
    if step:
        return round(low + round((high - low) / 2 / step) * step, 10)
    return round((low + high) / 2, 10)


def sweep_values(setting, low=None, high=None) -> list:
    """min, max and middle: the widget's bounds (`low`, `high`: a dependent bound may be tighter than the declared
    one), the first, last and middle option, off and on, or empty / longest / the default text."""
    if setting.kind in ("float", "int"):
        return [low, high, middle(low, high, setting.step, setting.kind)]
    if setting.kind == "choice":
        options = setting.options
        return list(dict.fromkeys([options[0], options[-1], options[len(options) // 2]]))
    if setting.kind == "bool":
        return [not setting.default, setting.default]
    return ["", "9" * setting.max_length, setting.default]


def drawing_state(spec, setting) -> dict:
    """The defaults, or the defaults with one other choice or switch changed, such that `setting` is drawn."""
    defaults = spec.settings.defaults
    if setting.shown is None or setting.shown(defaults):
        return defaults
    for other in spec.settings.params:
        for option in other.options if other.kind == "choice" else (True, False) if other.kind == "bool" else ():
            state = {**defaults, other.name: option}
            if setting.shown(state):
                return state
    raise AssertionError(f"{spec.page}.{setting.name}: no one-setting change draws it")


def in_instrument(spec, setting) -> bool:
    """Whether `setting` is a control of its lesson's instrument (a dynamics lesson's), not a widget."""
    return settings_controlled(spec) and not setting.in_main


def drawn_setting(at, spec, setting) -> tuple:
    """The value `setting`'s control shows and its bounds (None for a control without), checking it is drawn: as
    its widget, or as the instrument's control of that widget kind, shown and editable."""
    key = spec.settings.key(setting.name)
    if in_instrument(spec, setting):
        found = control(at, spec.page, setting.name)
        assert found["widget"] == setting.widget and found["shown"] and found["editable"], found
        return at.session_state[key], (found.get("low"), found.get("high"))
    kind = WIDGET_LIST[setting.widget]
    widgets = [w for w in getattr(at, kind) if w.key == key]
    assert widgets, f"{key} is not drawn as a {kind}"
    return widgets[0].value, (getattr(widgets[0], "min", None), getattr(widgets[0], "max", None))


def move(at, spec, setting, value):
    """`setting` moved to `value`: its widget set, or the instrument's commit of it; then a run."""
    if in_instrument(spec, setting):
        return commit(at, spec.page, **{setting.name: value})
    return getattr(at, WIDGET_LIST[setting.widget])(key=spec.settings.key(setting.name)).set_value(value).run()


SWEPT = {}                                  # page → (widgets, values set, charts checked): the report's counts


@pytest.mark.parametrize("page", PAGES)
def test_every_widget_at_min_max_and_middle(page):
    spec = lesson(page)
    by_state: dict[tuple, list] = {}
    for setting in spec.settings.params:
        by_state.setdefault(tuple(sorted(drawing_state(spec, setting).items())), []).append(setting)
    widgets = moves = drawn_charts = 0
    for state, settings in by_state.items():
        at = open_page(page, spec.settings.encode(dict(state)))
        assert_clean(at, f"{page} at {state}")
        for setting in settings:
            key = spec.settings.key(setting.name)
            start, bounds = drawn_setting(at, spec, setting)
            widgets += 1
            for value in sweep_values(setting, *bounds):
                move(at, spec, setting, value)
                assert_clean(at, f"{key}={value!r}")
                assert at.session_state[key] == value, (key, value)
                if in_instrument(spec, setting):                    # the instrument shows the value it holds
                    assert control(at, page, setting.name)["value"] == setting.encode(value), (key, value)
                drawn_charts += assert_finite_charts(at, f"{key}={value!r}")
                moves += 1
            move(at, spec, setting, start)                         # back (a cached state): the next widget alone
    SWEPT[page] = (widgets, moves, drawn_charts)
    assert widgets == len(spec.settings.params)

"""Plotly figures built without plotly's copies and per-value checks: the same figure, dict and JSON, less CPU.

PRIVATE PLOTLY API, as `BaseFigure.__init__`, `BasePlotlyType` and the validators of the pinned plotly 7.1 keep a
figure's state: a figure's `_data`, `_data_objs`, `_layout`, `_layout_obj`, `_frame_objs`, a trace's `_props`,
`_orphan_props`, `_parent`, `_validate`, a class's `_path_str`, the `_validate=False` constructor argument and
`plotly.validator_cache`. `figure_style` builds every chart through these (`unvalidated_trace`, `adopting`,
`raw_property`, `assign_unvalidated`) and `chart_element` reads a figure's parts through `figure_parts`; the JSON
is the same byte for byte as plotly's own calls (tests/app/test_figure_validation.py, every chart of every page).

`missing()` builds a small figure both ways and compares them: where plotly's internals moved (another plotly),
`usable()` is False and every function here takes plotly's public path (validated constructors, `trace.update`,
`to_plotly_json`, `to_dict`).
"""
from __future__ import annotations

import copy
import inspect
import json
import re

import plotly.graph_objects as go
import plotly.io as pio
from _plotly_utils.basevalidators import is_homogeneous_array  # noqa: F401 (chart_element's array rules)
from _plotly_utils.utils import plotlyjsShortTypes, to_typed_array_spec  # noqa: F401 (chart_element's)
from plotly.basedatatypes import BasePlotlyType

SCATTER, LAYOUT, XAXIS, YAXIS, FRAME = go.Scatter, go.Layout, go.layout.XAxis, go.layout.YAxis, go.Frame
NUMBERED_AXIS = re.compile(r"^[xy]axis([2-9]|[1-9]\d+)$")       # xaxis2, yaxis13 (not xaxis1: plotly's "xaxis")
_usable: bool | None = None                                       # `missing()`'s answer, asked once


def missing() -> list[str]:
    """What this plotly lacks of the internals used here (empty: a small figure built without copies is plotly's
    own, property by property, and a figure's parts read as `to_dict` gives them)."""
    global _usable
    known, _usable = _usable, True              # the probe below goes the private way
    try:
        trace = unvalidated_trace(SCATTER, {"x": [0.0, 1.0], "y": [1.0, 2.0], "line": {"width": 2}, "name": "a"})
        assign_unvalidated(trace, {"mode": "lines"})
        frames = [{"name": "f", "data": [{"type": "scatter", "x": [0.0], "y": [1.0]}]}]
        layout = {"title": {"text": "t"}, "height": 300, "yaxis2": {"overlaying": "y"}}
        fig = adopting([trace], layout, frames)
        plain = go.Figure(data=[go.Scatter(x=[0.0, 1.0], y=[1.0, 2.0], line={"width": 2}, name="a", mode="lines")],
                          layout=layout, frames=frames)
        traces, fig_layout, fig_frames = figure_parts(fig)
        if json.dumps(fig.to_dict(), sort_keys=True) != json.dumps(plain.to_dict(), sort_keys=True) \
                or json.dumps({"data": traces, "layout": fig_layout, "frames": fig_frames}, sort_keys=True) \
                != json.dumps(fig.to_dict(), sort_keys=True) or raw_property(trace, "name") != "a" \
                or trace_type(SCATTER) != "scatter":
            return ["a figure built without plotly's copies differs from plotly's own"]
        return []
    except Exception as why:                    # noqa: BLE001 — any failure of the private path is a missing internal
        return [f"plotly's figure internals ({why!r})"]
    finally:
        _usable = known


def usable() -> bool:
    """Whether the private path works with this plotly (`missing()` empty), asked once per process."""
    global _usable
    if _usable is None:
        _usable = not missing()
    return _usable


def unvalidated_figure(kind, traces: list, layout: dict, frames) -> go.Figure:
    """`kind(data=traces, layout=layout, frames=frames)` without validating the traces again (plotly's
    `_validate=False`; validated, as a plain `go.Figure`, where plotly's internals are not usable)."""
    if not usable():
        return go.Figure(data=traces, layout=layout, frames=frames)
    return kind(data=traces, layout=layout, frames=frames, _validate=False)


def in_a_figure(trace) -> bool:
    """Whether `trace` already belongs to a figure (plotly copies such a trace into another)."""
    return trace._parent is not None


def trace_type(kind) -> str:
    """A trace class's type name ("scatter", "heatmap", ...), as plotly's JSON writes it."""
    found = getattr(kind, "_path_str", None)
    return found if isinstance(found, str) else kind().plotly_name


def figure_parts(fig: go.Figure) -> tuple[list[dict], dict, list[dict]]:
    """A figure's traces, layout and frames as `BaseFigure.to_dict` reads them, before its deep copy (shared:
    never change them); `to_dict`'s copies where plotly's internals are not usable."""
    if not usable():
        plain = fig.to_dict()
        return plain["data"], plain["layout"], plain.get("frames", [])
    return fig._data, fig._layout, [frame._props for frame in fig._frame_objs]


_TEMPLATES: dict[str, dict] = {}        # template name → its plotly JSON, shared by every figure built here


def default_template() -> dict | None:
    """The JSON of plotly's default template (what `go.Figure` copies into each figure), made once per name.
    Shared: nothing here changes a template's properties."""
    name = pio.templates.default
    if name is None:
        return None
    if not isinstance(name, str):                        # a Template object as the default: copied as plotly does
        return name.to_plotly_json()
    found = _TEMPLATES.get(name)
    if found is None:
        found = _TEMPLATES[name] = pio.templates[name].to_plotly_json()
    return found


class TemplateSharingFigure(go.Figure):
    """A go.Figure whose default template is the process's shared JSON of it instead of a deep copy per figure
    (PRIVATE PLOTLY API: `BaseFigure._initialize_layout_template`, called by `__init__` of the pinned plotly 7.1;
    it sets the same value at the same place, the layout's last key)."""

    def _initialize_layout_template(self):
        if self._layout_obj._props.get("template", None) is None:
            template = default_template()
            if template is not None:
                self._layout_obj._props["template"] = template



def raw_property(trace, name: str):
    """`getattr(trace, name)` for a trace's data property, read without plotly's property machinery (PRIVATE
    PLOTLY API: a trace's `_props`, where plotly keeps what was set; its plain JSON where that is missing)."""
    if not usable():
        return trace.to_plotly_json().get(name)
    return trace._props.get(name)


def assign_unvalidated(trace, changes: dict) -> None:
    """`trace.update(changes)` for numpy arrays made here: stored as given (plotly's own unvalidated path,
    `BasePlotlyType.__setitem__` with `_validate` off) instead of validated value by value (`trace.update` where
    that is missing)."""
    if not usable():
        trace.update(changes)
        return
    validate, trace._validate = trace._validate, False
    try:
        for name, value in changes.items():
            trace[name] = value
    finally:
        trace._validate = validate



def unvalidated_trace(kind, props: dict):
    """The trace plotly makes of `props`, unvalidated: a nested dict (line=dict(...)) is stored as given, so its
    keys are put in the order plotly's validation stores them (`_in_plotly_order`) for the same JSON."""
    path = kind._path_str
    props = {key: _unvalidated_value(path, key, value) for key, value in props.items()}
    order = class_order(kind)
    if not all(key in order and not plotly_object(value) for key, value in props.items()):
        return kind(_validate=False, **props)          # a path (marker_color), plotly objects: its constructor
    trace = _clone(_blank(kind))
    # what the unvalidated constructor stores: the given properties in its order (None: not set), then the type
    stored = {key: value for key, value in sorted(props.items(), key=lambda item: order[item[0]]) if value is not None}
    trace._orphan_props = {**stored, **trace._orphan_props}
    return trace


def plotly_object(value) -> bool:
    """A plotly object, or a list of them (the constructor stores their JSON instead)."""
    return isinstance(value, BasePlotlyType) or (isinstance(value, list | tuple) and bool(value)
                                                 and isinstance(value[0], BasePlotlyType))


_BLANKS: dict = {}                       # a plotly class → an empty unvalidated instance of it (copied, never used)


def _blank(kind):
    found = _BLANKS.get(kind)
    if found is None:
        found = _BLANKS[kind] = kind(_validate=False)
    return found


def _clone(blank):
    """A new object as `blank` was made: its attributes, each container copied (PRIVATE PLOTLY API: an instance's
    state is its attributes; its constructor's ~100 property assignments are the cost this skips)."""
    made = object.__new__(type(blank))
    made.__dict__.update({name: copy.copy(value) if isinstance(value, dict | list | set) else value
                          for name, value in blank.__dict__.items()})
    return made


COERCED = frozenset(("colorscale",))    # properties whose validation rewrites the value: a colour scale's name → its
                                        # [position, colour] list (still coerced by plotly's validator)


def _unvalidated_value(path: str, name: str, value):
    if isinstance(value, dict):
        return _in_plotly_order(path, name, value)
    if name in COERCED:
        from plotly.validator_cache import ValidatorCache
        return ValidatorCache.get_validator(path, name).validate_coerce(value)
    return value


_ORDER: dict[str, tuple[str, dict[str, int]]] = {}     # "scatter.line" → (its class's path, property → position)
_CLASS_ORDER: dict[type, dict[str, int]] = {}           # a plotly class → its properties' positions


def _in_plotly_order(parent_path: str, name: str, value: dict) -> dict:
    """`value`, the compound property `name` of a plotly object at `parent_path`, with its keys (at every depth)
    in the order the object's class sets them: its constructor's parameter order (PRIVATE PLOTLY API: validators
    from `plotly.validator_cache.ValidatorCache`, a compound one's `data_class`)."""
    key = f"{parent_path}.{name}"
    found = _ORDER.get(key)
    if found is None:
        from plotly.validator_cache import ValidatorCache
        kind = getattr(ValidatorCache.get_validator(parent_path, name), "data_class", None)
        found = _ORDER[key] = (kind._path_str, _parameter_order(kind)) if kind is not None else None
    if found is None:                                   # not a compound property: a plain value
        return value
    path, order = found
    items = sorted(value.items(), key=lambda item: order.get(item[0], len(order)))
    return {k: _in_plotly_order(path, k, v) if isinstance(v, dict) and k in order else v for k, v in items}


def class_order(kind) -> dict[str, int]:
    found = _CLASS_ORDER.get(kind)
    if found is None:
        found = _CLASS_ORDER[kind] = _parameter_order(kind)
    return found


def _parameter_order(kind) -> dict[str, int]:
    """Property → its position among `kind`'s constructor parameters (the order its `__init__` sets them)."""
    names = [p for p in inspect.signature(kind.__init__).parameters if p not in ("self", "arg", "kwargs")]
    return {p: n for n, p in enumerate(names)}



def _adopted_frame(frame: dict):
    """The `go.Frame` plotly makes of `frame` (a `_plain_frame`) inside a figure, without validating each of its
    traces' values (an animation's 30 frames were most of LRU stability's eigenvalue chart on every move of its
    steps): its properties in its class's order, each trace's in Scatter's with the type last, as plotly stores
    them (PRIVATE PLOTLY API: a Frame's `_orphan_props`, which `BaseFigure.to_dict` reads as `_props`). The values
    are the page's, made for this figure (plotly's validation would store lists as lists and arrays as arrays:
    the same JSON, tests/app/test_figure_validation.py)."""
    order = class_order(SCATTER)
    stored = dict(frame)
    if "data" in stored:
        stored["data"] = [{**dict(sorted(((key, value) for key, value in trace.items() if key != "type"
                                          and value is not None), key=lambda item: order[item[0]])),
                           "type": "scatter"} for trace in stored["data"]]
    positions = class_order(FRAME)
    made = _clone(_blank(FRAME))
    made._orphan_props = {key: value for key, value in sorted(stored.items(), key=lambda item: positions[item[0]])
                          if value is not None}
    return made


def adopting(traces: list, layout: dict, frames: list | None = None) -> go.Figure:
    """The figure `TemplateSharingFigure(data=traces, layout=layout, frames=frames, _validate=False)` makes (frames
    as `figure_style._plain_frame` accepts them), without what it does on the way
    (a copy of every trace, a deep copy of every trace's and the layout's properties, the layout's ~200 property
    assignments): a figure made with the numbered axes alone (xaxis2, ...: plotly registers them as it sets them)
    takes the traces as its own and the rest of the layout with its keys where plotly puts them
    (`_layout_in_plotly_order`). PRIVATE PLOTLY API, as `BaseFigure.__init__` of the pinned plotly 7.1 sets them:
    `_data_objs` (a list), `_data`, `_data_defaults`, a trace's `_orphan_props`, `_parent` and `_trace_ind`, and the
    figure's `_layout` (which its layout object reads). The traces must be new (the page's own, made for it): a
    trace already in a figure goes plotly's way (`figure_style.build`), copied."""
    known = _layout_order()
    numbered = {key: value for key, value in layout.items() if key not in known and isinstance(value, dict)}
    if all(NUMBERED_AXIS.match(key) for key in numbered):
        fig = _blank_figure()
        for key in numbered:
            _add_numbered_axis(fig, key)
        numbered = {key: _in_plotly_order("layout", key[:5], value) for key, value in numbered.items()}
    else:                                               # anything else: plotly registers it
        fig = TemplateSharingFigure(layout=numbered, _validate=False)
    fig._data_objs = list(traces)
    fig._data = [_props_inclass_order(trace) for trace in traces]
    fig._data_defaults = [{} for _ in traces]
    for index, trace in enumerate(traces):
        trace._orphan_props = {}
        trace._parent = fig
        trace._trace_ind = index
    made = {**fig._layout, **numbered}                  # the numbered axes as plotly stores them, the template
    fig._layout = _layout_in_plotly_order({key: made.get(key, value) for key, value in layout.items()})
    if "template" in made:
        fig._layout["template"] = made["template"]
    if frames is not None:
        fig._frame_objs = tuple(_adopted_frame(frame) for frame in frames)
    return fig


def _blank_figure() -> go.Figure:
    """`TemplateSharingFigure(_validate=False)`, an empty figure, copied from one made once (`_clone`); its data
    validator is its own, as `BaseFigure.__init__` makes it (tied to the figure that sets trace ids)."""
    blank = _blank(TemplateSharingFigure)
    fig = _clone(blank)
    fig._layout_obj = _clone(blank._layout_obj)
    fig._layout_obj._parent = fig
    fig._data_validator = copy.copy(blank._data_validator)
    fig._data_validator.set_uid = fig._set_trace_uid
    return fig


def _add_numbered_axis(fig: go.Figure, name: str) -> None:
    """Register the axis `name` (xaxis2, ...) with the figure's layout as `Layout._set_subplotid_prop` does: a
    valid and subplot property, its axis object a child of the layout (read from the layout's dict by name)."""
    layout = fig._layout_obj
    axis = _clone(_blank(XAXIS if name[0] == "x" else YAXIS))
    axis._plotly_name, axis._parent = name, layout
    layout._valid_props.add(name)
    layout._subplotid_props.add(name)
    layout._compound_props[name] = axis


def _props_inclass_order(trace) -> dict:
    """A trace's properties in its class's order (as plotly's copy of the trace sets them): what `build` added
    (a heatmap's colour bar) stands where plotly puts it, not last."""
    positions = class_order(type(trace))
    return dict(sorted(trace._orphan_props.items(), key=lambda item: positions.get(item[0], len(positions))))


def _layout_in_plotly_order(layout: dict) -> dict:
    """`layout`'s keys in the order an unvalidated `go.Layout` stores them: its own properties in its constructor's
    order, then the others (the numbered axes) as given."""
    order = _layout_order()
    return dict(sorted(layout.items(), key=lambda item: order.get(item[0], len(order))))


def _layout_order() -> dict[str, int]:
    return class_order(LAYOUT)


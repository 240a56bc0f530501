"""A plotly chart sent from its finished JSON spec: `ChartSpec` (built once, cached) and `emit_chart`.

`st.plotly_chart(fig)` rebuilds the figure's plotly objects on every call (validation of a dict, `to_dict()` deep
copies, `plotly.io.to_json`): on a lesson page that was about half of a rerun's CPU, for charts whose settings had
not changed. Here a chart is serialized once (`chart_spec`, exactly as `st.plotly_chart` does it), cached by the
renderer, and `emit_chart` enqueues the same element from the cached string.

`emit_chart` enqueues it through `internals.plotly_element` (Streamlit's private element API, mirrored there);
tests/app/test_chart_element.py compares what it enqueues with what `st.plotly_chart` enqueues for the same figure.
Where those internals are missing (another streamlit), it falls back to `st.plotly_chart` on the parsed spec.

`chart_spec` writes a Figure's JSON without `Figure.to_dict()`: that deep-copies every trace, the layout and the
whole plotly template (the same ~3.6 KB in every figure) only so that `convert_to_base64` may rewrite arrays in
place, and that walk asks every value of the copy whether it is an array (narwhals, pandas and numpy probes per
value): 60-70 % of a chart's serialization. `plain_figure` copies only the containers on the way (arrays turned
into plotly's typed-array specs by plotly's own `to_typed_array_spec`, everything else shared), and the JSON is
written by plotly.io.to_json as before, so the string is the same, byte for byte: `reference_chart_spec` (the
readable path, as st.plotly_chart does it) stands beside it and tests/app/test_chart_element.py compares the two
for every chart of every lesson.
"""
from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from .chart_text import chart_text, summary_of
from .figure_style import COMPACTED, COMPACTED_TRACES, MAX_LINE_POINTS, compact_array
from .internals.plotly_element import enqueue_plotly_chart
from .internals.plotly_objects import (
    figure_parts,
    is_homogeneous_array,
    plotlyjsShortTypes,
    to_typed_array_spec,
    trace_type,
)

DEFAULT_HEIGHT = 450                                      # plotly.js's, as streamlit resolves "content"
# plotly's conversion rules (_plotly_utils.utils: is_skipped_key, to_typed_array_spec), for the common case
SKIPPED_KEYS = frozenset(("geojson", "layer", "layers", "range"))
TYPED_ARRAYS = {name: short for name, short in plotlyjsShortTypes.items() if name not in ("int64", "uint64")}
# to_typed_array_spec's narrowing of 64-bit integers: the first type (in this order) whose range holds the values
NARROWED = {wide: [(name, (int(np.iinfo(name).min), int(np.iinfo(name).max))) for name in narrow]
            for wide, narrow in (("int64", ("int8", "int16", "int32")), ("uint64", ("uint8", "uint16", "uint32")))}
# TYPED_ARRAYS by native dtype: `dtype.name` is a Python property (~25 % of `_dict_value`), a dtype's hash is not;
# a non-native dtype (">f8") is not equal to the native one, so it is not found here and goes the ways below
_SHORT_BY_DTYPE = {np.dtype(name): short for name, short in TYPED_ARRAYS.items()}
_TEMPLATES: dict[int, tuple] = {}                        # id → (template, its plain copy)
LEAVES = frozenset((str, int, float, bool, type(None)))   # never arrays, nothing to copy


@dataclass(frozen=True)
class ChartSpec:
    """One chart as the browser receives it: `spec`, the figure's JSON (plotly.io.to_json), its height, and `text`,
    what it shows in words (`chart_text.chart_text`: its summary, the chart's accessible name, and its data tables;
    read from the figure the spec writes, so two specs are equal where their JSON and height are)."""

    spec: str
    height: int = DEFAULT_HEIGHT
    text: dict | None = field(default=None, compare=False)

    @property
    def nbytes(self) -> int:
        return len(self.spec)

    @property
    def identity(self) -> str:
        """The spec as the element id hashes it: its length and Python's hash of it (SipHash, computed once per
        string and kept by it) where st.plotly_chart has Streamlit hash the whole spec with BLAKE2b on every draw
        (a whole-page preview spec is megabytes, hashed again on each rerun that re-sends a cached chart). The id
        still changes exactly when the spec does; Python's hash differs between processes, which an element id,
        kept per session, does not mind."""
        return f"{len(self.spec)}-{hash(self.spec) & 0xFFFFFFFFFFFFFFFF:016x}"


class PlainFigure(dict):
    """A figure already in `plain_figure`'s form, made by a page from parts it shares between charts or between
    the members of a preview family (the z-plane and its zoom draw the same traces; a heat map whose star alone
    moves with the swept setting). `plain_figure` and `chart_spec` take it as it is; `to_dict()` gives a copy, as
    a Figure's does. Never changed once made: its parts are shared."""

    def to_dict(self) -> dict:
        return copy.deepcopy(dict(self))


def chart_spec(fig, note: str = "", name: str = "") -> ChartSpec:
    """The spec `st.plotly_chart(fig)` would send, for a plotly Figure or a figure dict (validated as it does):
    a Figure is written from its own properties (`plain_figure`), a `PlainFigure` as it is, a dict goes the
    reference way; with its text alternative read from the same figure (`note`: the lesson's words on what
    matters in it; `name`: the chart's, where it has no title)."""
    if not isinstance(fig, go.Figure | PlainFigure):
        spec = reference_chart_spec(fig)
        return ChartSpec(spec.spec, spec.height, chart_text(fig if isinstance(fig, dict) else fig.to_dict(), note,
                                                            name))
    plain = plain_chart(fig)
    return written(plain, chart_text(plain, note, name))


def plain_chart(fig) -> dict:
    """The figure dict `chart_spec(fig)` writes as JSON (shared parts: never change it): a Figure's `plain_figure`,
    a `PlainFigure` itself, any other figure dict validated as st.plotly_chart does."""
    if isinstance(fig, go.Figure | PlainFigure):
        return plain_figure(fig)
    import plotly.tools

    return plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)


def written(figure: dict, text: dict | None = None) -> ChartSpec:
    """A figure dict (`plain_chart`'s) as the spec the browser receives (`text`: its `chart_text`)."""
    import plotly.io

    return ChartSpec(plotly.io.to_json(dict(figure), validate=False), figure_height(figure), text)


def reference_chart_spec(fig) -> ChartSpec:
    """What st.plotly_chart does (streamlit/elements/plotly_chart.py): the figure (a dict validated as a Figure)
    to a dict with `to_dict()`, then plotly.io.to_json."""
    import plotly.io
    import plotly.tools

    figure = plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
    return ChartSpec(plotly.io.to_json(figure, validate=False), figure_height(figure))


def plain_figure(fig: go.Figure) -> dict:
    """`fig.to_dict()` without its deep copy: the same dict (keys in the same order, arrays as plotly's typed-array
    specs where `convert_to_base64` makes them), built from new containers around the figure's own values, which
    are never changed: a Figure's traces, layout and frames as `BaseFigure.to_dict` reads them
    (`internals.plotly_objects.figure_parts`). A `PlainFigure` is that already."""
    if isinstance(fig, PlainFigure):
        return fig
    traces, layout, frame_props = figure_parts(fig)
    template = layout.get("template")
    plain_layout = _typed_arrays({key: value for key, value in layout.items() if key != "template"})
    if template is not None:                                # where plotly puts it: last
        plain_layout["template"] = _plain_template(template)
    plain = {"data": [_typed_arrays(trace) for trace in traces], "layout": plain_layout}
    frames = [_typed_arrays(props) for props in frame_props]
    if frames:
        plain["frames"] = frames
    return plain


def plain_part(fig, trace_keys: frozenset, layout_key) -> dict:
    """What `plain_figure(fig)` holds under `trace_keys` of each trace and the layout keys `layout_key(key)` accepts
    (and `frames`, where it has some), made plain without the rest (line and marker styles, the margins, the
    template): a preview member keeps no more of a chart (`sweep_figure.chart_part`). A dict (a `PlainFigure`, a
    figure read back from JSON) is taken as it is."""
    if isinstance(fig, dict):
        return fig
    traces, layout, frame_props = figure_parts(fig)
    part = {"data": [_typed_arrays({key: value for key, value in trace.items() if key in trace_keys})
                     for trace in traces],
            "layout": _typed_arrays({key: value for key, value in layout.items() if layout_key(key)})}
    if frame_props:
        part["frames"] = [_typed_arrays(props) for props in frame_props]
    return part


class FrameLayouts:
    """The plain layout of a trace-less `build(**frame)` (what `refilled` takes), kept by the frame's repr: a preview
    family repeats most frames (discretize's s-plane and error chart never move with Δ). At most `kept` of them,
    never changed once made (members share them). `clear` empties it: benchmarks/family_cost.py clears a page's
    before each timing, as a held move meets new frames."""

    def __init__(self, kept: int = 256):
        self.kept, self.made = kept, {}

    def __call__(self, frame: dict) -> dict:
        key = repr(frame)
        found = self.made.get(key)
        if found is None:
            from .figure_style import build
            if len(self.made) >= self.kept:
                self.made.clear()
            found = self.made[key] = plain_figure(build([], **frame))["layout"]
        return found

    def clear(self) -> None:
        self.made.clear()


class Refiller:
    """A page's preview charts made without plotly objects (`Sweep.figures`, every member of a family): per chart and
    trace count, the first one this process draws (`draw()`, the page's own figure) is kept as its template, and
    each later one is that template `refilled` with its own trace values under the layout of a trace-less `build`
    of its own frame (`layout`, kept by frame). Where that would not be exact it is drawn the page's way: a line
    `build` thins, or an axis `build` ranges itself (no declared range, not log, its scatter and bar data equal up
    to figure_style.FLAT: a trace-less build cannot see it). The template's styles are the same at every setting
    (each page's test_preview_figures case checks the JSON at every member of held settings in every corner).
    `clear` empties the layouts (benchmarks/family_cost.py, before each timing: a held move meets new frames)."""

    def __init__(self):
        self.drawn: dict[tuple, PlainFigure] = {}
        self.layout = FrameLayouts()

    def __call__(self, chart: str, draw, values: list[dict | None], frame: dict) -> PlainFigure:
        template = self.drawn.get((chart, len(values)))
        if template is not None and not ranged_by_build(template, values, frame):
            try:
                return refilled(template, values, self.layout(frame))
            except ValueError:                             # a line build would thin: the page's way
                pass
        made = PlainFigure(plain_figure(draw()))
        self.drawn.setdefault((chart, len(values)), made)
        return made

    def clear(self) -> None:
        self.layout.clear()


def ranged_by_build(template: dict, values: list[dict | None], frame: dict) -> bool:
    """Whether `build(traces, **frame)` would give an axis a range of its own (figure_style's flat-data rule:
    `rangeable`, `flat_data_range`), or might: a trace on it whose values are the template's."""
    from .figure_style import AXIS_KEY, flat_data_range, rangeable
    for name in {"xaxis", "yaxis", *(key for key in frame if AXIS_KEY.match(key))}:
        if not rangeable(frame.get(name) or {}):
            continue
        letter, ref = name[0], name[0] + name[5:]                         # "yaxis2" → "y", "y2"
        parts = []
        for trace, given in zip(template["data"], values):
            if trace.get("type", "scatter") not in ("scatter", "bar") or (trace.get(f"{letter}axis") or letter) != ref:
                continue
            if given is None or letter not in given:
                return True
            parts.append(np.asarray(given[letter]).ravel())
        if flat_data_range(parts):
            return True
    return False


COMPACTED_KINDS = frozenset(trace_type(kind) for kind in COMPACTED_TRACES)    # "scatter", "heatmap", ...


def refilled(template: dict, data: list[dict | None], layout: dict) -> PlainFigure:
    """The figure `build` + `plain_figure` make from traces styled as `template`'s (a plain figure of the same
    chart) but holding the values in `data` (per trace, by position: the raw values a page passes its trace
    constructor; None keeps the template's) under the plain `layout` — without making plotly objects: a preview
    family draws its z-planes this way (several times cheaper than building). x, y and z of a scatter, bar, heatmap or
    contour are made float32 where `compact_array` says so, as `build` makes them; arrays become typed-array specs.
    A key the template trace lacks, or a line `build` would thin, is refused (ValueError): its place in the trace,
    or its points, would differ. The layout is the caller's: `plain_figure(build([], ...))["layout"]` is exact for
    axes with a declared range (a trace-less `build` finds no flat data to range). tests/app/test_preview_figures.py
    compares every refilled chart with the page's own."""
    traces = []
    for trace, values in zip(template["data"], data, strict=True):
        if values is None:
            traces.append(trace)
            continue
        if not values.keys() <= trace.keys():
            raise ValueError(f"the template trace has no {sorted(values.keys() - trace.keys())}")
        kind = trace.get("type", "scatter")
        points = len(values["y"] if "y" in values else values.get("x", ()))
        if kind == "scatter" and "markers" not in str(trace.get("mode", "lines")) and "customdata" not in trace \
                and "text" not in trace and points > MAX_LINE_POINTS:
            raise ValueError("a line build thins is not refilled")
        made = {key: compact_array(value) if key in COMPACTED and kind in COMPACTED_KINDS else value
                for key, value in values.items()}
        traces.append({**trace, **_typed_arrays(made)})
    return PlainFigure(data=traces, layout=layout)


def _plain_template(template):
    """The template as `_typed_arrays` writes it, made once per template object (figure_style shares one among
    every figure it builds: ~60 dicts that every chart would walk again). The result is shared: never changed."""
    found = _TEMPLATES.get(id(template))
    if found is not None and found[0] is template:
        return found[1]
    plain = _typed_arrays(template)
    if len(_TEMPLATES) < 4:                                 # the shared ones; a figure's own copy is not kept
        _TEMPLATES[id(template)] = (template, plain)
    return plain


def _typed_arrays(value):
    """A copy of the containers of `value` with every array that `convert_to_base64` would convert converted (an
    array held in a dict, under a key it does not skip); leaves are shared."""
    if isinstance(value, dict):
        return {key: item if type(item) in LEAVES or key in SKIPPED_KEYS else _dict_value(item)
                for key, item in value.items()}
    if isinstance(value, list):
        return [item if type(item) in LEAVES else _typed_arrays(item) for item in value]
    if isinstance(value, tuple):
        return tuple(item if type(item) in LEAVES else _typed_arrays(item) for item in value)
    return value


def _dict_value(value):
    if isinstance(value, dict | list | tuple):             # (a list or tuple is never an array there)
        return _typed_arrays(value)
    short = _SHORT_BY_DTYPE.get(value.dtype) if isinstance(value, np.ndarray) else None
    if short is not None and value.size:
        spec = {"dtype": short,
                "bdata": base64.b64encode(np.ascontiguousarray(value)).decode("ascii")}
        if value.ndim > 1:
            spec["shape"] = str(value.shape)[1:-1]
        return spec
    if isinstance(value, np.ndarray) and value.dtype.isnative:
        if not value.size:                                 # written as [] either way
            return value
        if value.dtype.name in NARROWED:
            return _narrowed(value)
    if isinstance(value, np.ndarray) or is_homogeneous_array(value):
        return to_typed_array_spec(value)                  # other dtypes: plotly's way
    return value


def _narrowed(value: np.ndarray):
    """An int64 or uint64 array as `to_typed_array_spec` writes it: in the smallest of plotly.js's integer types
    its values fit (unchanged where none does), without its array-library probes."""
    low, high = int(value.min()), int(value.max())
    for name, (lowest, highest) in NARROWED[value.dtype.name]:
        if lowest <= low and high <= highest:
            return _dict_value(value.astype(name))
    return value


def figure_height(figure: dict) -> int:
    height = (figure.get("layout") or {}).get("height")
    return int(height) if isinstance(height, int | float) and height > 0 else DEFAULT_HEIGHT


def emit_chart(chart: ChartSpec, config: dict[str, Any], *, key: str, container=None) -> None:
    """Draw `chart` in `container` (default: the current place on the page), as st.plotly_chart would with
    `config`, `key`, width "stretch", height "content", the streamlit theme, no selections and its summary as
    `alt` (the chart's accessible name: Streamlit gives the chart the role figure, named by it)."""
    alt = summary_of(chart.text).strip() or None
    if not enqueue_plotly_chart(chart.spec, chart.identity, chart.height, config, key=key, alt=alt,
                                container=container):
        (container if container is not None else st).plotly_chart(json.loads(chart.spec), config=config, key=key,
                                                                   alt=alt)

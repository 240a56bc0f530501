"""Shared look and the one way figures are built here.

Plotly validates a figure's layout on every update or add call (several ms each), so
each builder collects its traces, shapes and annotations and makes the figure once with
`build(...)`: the whole layout is validated a single time.

The chart hygiene rules live here, once (tests/app/test_figure_hygiene.py holds every page to them):
- numbers on axes and colour bars: powers of ten, never SI suffixes ("10⁻⁵", not "10μ"), and hover
  values rounded to 6 significant digits, never float noise; an axis whose data is flat up to
  rounding gets a range around its value (else plotly ticks the rounding: "2.78808126205894524");
- a heatmap always has a colour bar;
- colour is never the only cue (see "Colour" below): `series_style(j)` gives the j-th series of a chart a
  colour, a dash and a marker symbol, no two of the first twenty alike in all three;
- a series that diverged is cut where it did (`kept`) and marked there (`divergence_marks`); a note
  sits in the plot's corner, not at a data position (plotly stretches an axis to fit a note placed in
  data coordinates);
- values below float precision are drawn in a labelled band (`precision_band`), not at a fake floor;
- a figure with frames (▶ play, or a page's drag-to-preview chart, `app/kit/sweep_figure.py`) fixes every value
  axis's range, so the picture does not jump between frames.

Smaller payloads (`build` does both, once per figure): a float64 array is sent as float32 where the eye cannot
tell (`compact_array`: its span is more than `FLOAT32_SPAN` of its size and its values fit float32 comfortably;
hover shows 6 digits, float32 holds 7), and a line of more than `MAX_LINE_POINTS` points is thinned to its
extremes per pixel-sized bucket (`decimated`).

Less CPU per figure (a swept move builds every chart of its page again; benchmarks/results/move_profile-cpu.md):
- the plotly template (Streamlit's "streamlit" template, the process's default: ~3.6 KB of colour scales and
  styles) is the same object in every figure built here (`internals.plotly_objects.TemplateSharingFigure`), where
  plotly deep-copies it into each new figure; chart_element.plain_figure writes it without walking it;
- what `build` itself puts in a trace (compacted or thinned arrays, a heatmap's colour bar) and its own reads of
  the traces skip plotly's per-value validation (`internals.plotly_objects`: `assign_unvalidated`,
  `raw_property`): values made here, from values plotly validated when the page made the trace.
Each of these reaches into plotly's private internals, all of them in `internals.plotly_objects`; where they moved
(another plotly) `build` takes plotly's public path.
The figure, its dict and its JSON are the same as with plain plotly calls (`go.Figure`, `trace.update`, reading
`trace.x`): tests/app/test_figure_hygiene.py builds every lesson's charts both ways and compares the JSON.

Validated in tests, not in the server (`VALIDATE`): pages make their traces with `scatter`, `heatmap`, `contour`
and `histogram`, which let plotly check every value under pytest (a mistyped property fails) and skip the checks
in the server's processes (several times cheaper a trace), where `build` also takes the traces into the figure as
they are instead of copying them (`internals.plotly_objects.adopting`). A preview family builds every chart once per
member, so this is most of a held move's CPU. The JSON is the same byte for byte (tests/app/test_figure_validation.py:
every chart of every page at its defaults, presets and extreme settings, and every family).

Colour. Every series is drawn in one of the colours of Okabe and Ito's colour-blind-safe set (`PALETTE`) that hold
3:1 against a white page and against Streamlit's dark one (#171614): blue, vermillion, bluish green and reddish
purple (their orange, sky blue and yellow are too light for white, their black vanishes on dark: the theme's `INK`
stands in for it). Under simulated protanopia, deuteranopia and tritanopia no two of them come closer than ΔE2000
12, and series compared on one chart differ by dash or marker as well (tests/app/test_figure_colour.py). Text is
drawn in `INK` on `PAPER`, the theme's own text and background colours, so every chart follows the page's light or
dark theme: these are placeholders of Streamlit's plotly template, which Streamlit's chart element replaces with the
theme's colours throughout a figure (a detail of its frontend: `internals.plotly_theme`), and the lesson instrument
(instrument.js `themed`) with the colours Streamlit gives its component. `build` writes them where Streamlit's
template would otherwise colour text grey (#808495: 3.7:1 on white): the figure's font, every axis's tick labels
and title, the hover label. Roles: `COLORS` (a method or parameterization, the same on every chart), `WARNING`
(a divergence, an unstable region: a label or a pattern says so too), `STABLE`, `GREY` (references: the exact
solution, a mapped grid, an eigenvalue cloud, a path so far).
"""
from __future__ import annotations

import base64
import os
import re

import numpy as np
import plotly.graph_objects as go

from .internals import plotly_objects
from .internals.plotly_objects import (
    TemplateSharingFigure,
    adopting,
    assign_unvalidated,
    class_order,
    default_template,  # noqa: F401 (the figures' shared template: tests)
    in_a_figure,
    plotly_object,
    raw_property,
    unvalidated_figure,
    unvalidated_trace,
)
from .internals.plotly_theme import THEME_BACKGROUND, THEME_TEXT

BLUE, VERMILLION, GREEN, PURPLE = "#0072B2", "#D55E00", "#009E73", "#CC79A7"     # Okabe & Ito's (see "Colour")
PALETTE = [BLUE, VERMILLION, GREEN, PURPLE]
GREY = "#6C6C6C"       # neutral, 3:1 on both themes' backgrounds and ΔE2000 ≥ 12 from PALETTE under each deficiency
WARNING, STABLE = VERMILLION, GREEN
INK, PAPER = THEME_TEXT, THEME_BACKGROUND   # the theme's text and background, as Streamlit's frontend replaces them
COLORS = {"exact": GREY, "zoh": BLUE, "bilinear": GREEN, "euler": VERMILLION, "aa": BLUE, "ab": VERMILLION,
          "naive": VERMILLION, "exponential": BLUE}
DASHES = ("solid", "dash", "dot", "dashdot", "longdash")          # lengths prime to PALETTE's: `series_style`
SYMBOLS = ("circle", "diamond", "square", "x", "triangle-up", "cross", "pentagon")
LOG_FLOOR = 1e-16      # only keeps exact zeros drawable on a log axis; real data is never floored here
FLAT = 1e-9            # an axis whose data spans less than this fraction of its size is flat up to rounding
NUMBER_FORMAT = dict(exponentformat="power", hoverformat=".6~g")       # every value axis
COLORBAR = dict(thickness=12, exponentformat="power", tickformat="~g")  # every colour bar
AXIS_KEY = re.compile(r"^[xy]axis\d*$")
# A legend names the traces; it is not a control. Plotly's legend entries hide their trace on a click, but each is
# about 20 px high and stacked 20 px apart — a target under WCAG 2.5.8's 24 px that no lesson asks the learner to
# use. Entries that do nothing on a click are labels, not targets.
LABEL_ONLY = dict(itemclick=False, itemdoubleclick=False)
# "top": `_top_band`
LEGENDS = {"right": dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.02, **LABEL_ONLY)}
TITLE_LINE_CHARS = 44  # a title line that fits a chart as wide as a phone (≈ 360 px at 16 px); longer ones wrap
SUBTITLE_ROW_CHARS = 40  # subplot titles' characters a row of panels fits on a phone (a line: 40 // columns)
TITLE_LINE_PX = 20
NARROW_PANEL_TICKS = dict(nticks=4, tickangle=0)   # a row of 3+ panels on a phone: few upright ticks, not sideways
SHORT_BAR, SHORT_BAR_TICKS = 0.3, dict(nticks=3, tickangle=0)   # a flat colour bar under one of 3+ panels: 3 ticks
CLEAR = "rgba(0,0,0,0)"
FLOAT32_SPAN = 1e-3    # float32's 1e-7 rounding stays under 1e-4 of the drawn span: invisible
FLOAT32_LIMIT = 1e30   # magnitudes float32 holds with room (its range ends near 3.4e38; its normals near 1e-38)
MAX_LINE_POINTS = 4000  # a line drawn with more points than this is thinned (a chart is at most ~2000 px wide)
COMPACTED = ("x", "y", "z")
# The trace classes looked up once: each `go.Scatter` is a lazy-module lookup (an import_module call) in plotly 7.
SCATTER, BAR, HEATMAP, CONTOUR = go.Scatter, go.Bar, go.Heatmap, go.Contour
HISTOGRAM, LAYOUT, XAXIS, YAXIS = go.Histogram, go.Layout, go.layout.XAxis, go.layout.YAxis
FRAME = go.Frame
COMPACTED_TRACES = (SCATTER, HEATMAP, CONTOUR, BAR)
FIGURE = TemplateSharingFigure          # what `build` makes (tests swap in go.Figure, the reference)
ASSIGN = assign_unvalidated             # (tests swap in `trace.update`, the reference)
_raw = raw_property

# Whether the trace constructors below validate what a page passes them (plotly's per-value checks, the larger part of
# a trace's cost) and `build` lets plotly assemble the figure. On in tests (tests/app/conftest.py: a mistyped property
# fails there), off in the server's processes, where every figure of every preview member is built again and the
# JSON is the same byte for byte (tests/app/test_figure_validation.py, every chart of every page).
VALIDATE = os.environ.get("LCSM_VALIDATE_FIGURES", "0") == "1"


def scatter(**props) -> go.Scatter:
    """`go.Scatter(**props)`, validated only where `VALIDATE` is on (pages make their traces with these)."""
    return _trace(SCATTER, props)


def heatmap(**props) -> go.Heatmap:
    return _trace(HEATMAP, props)


def contour(**props) -> go.Contour:
    return _trace(CONTOUR, props)


def histogram(**props) -> go.Histogram:
    return _trace(HISTOGRAM, props)


def _trace(kind, props: dict):
    """The trace as plotly makes it: validated where `VALIDATE` is on (or where plotly's internals are not the ones
    `internals.plotly_objects` knows), else unvalidated, its properties in plotly's order."""
    if VALIDATE or not plotly_objects.usable():
        return kind(**props)
    return unvalidated_trace(kind, props)


def plotly_array(spec: dict) -> np.ndarray:
    """A numeric array as plotly 7 writes it in a figure dict, {"dtype", "bdata"[, "shape"]}, as numpy."""
    array = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=spec["dtype"])
    shape = spec.get("shape")
    if shape is not None:
        array = array.reshape([int(n) for n in (shape.split(",") if isinstance(shape, str) else shape)])
    return array


def build(traces, title: str, *, height: int = 340, legend: bool = True, legend_side: str = "top", shapes=(),
          annotations=(), frames=None, margin_top: int | None = None, margin_bottom: int = 45, **axes) -> go.Figure:
    """The figure from its traces and layout pieces; `axes` are layout keys (xaxis=..., yaxis2=..., sliders=...).
    `margin_bottom`: room under the x-axis titles, for an animation's ▶ button and slider."""
    title_spec, legend_spec, top = _top_band(title, height, legend_side, annotations, margin_top)
    traces = [_with_colorbar(trace) for trace in traces]
    axes = {name: (_inked({**NUMBER_FORMAT, **_flat_range(traces, name, spec), **spec}) if AXIS_KEY.match(name)
                   else spec) for name, spec in axes.items()}
    for name in ("xaxis", "yaxis"):
        axes.setdefault(name, _inked({**NUMBER_FORMAT, **_flat_range(traces, name, {})}))
    traces = [_compacted(trace) for trace in traces]            # after the flat ranges: they read full precision
    layout = dict(title=title_spec, height=height,
                  margin=dict(l=55, r=15, t=top, b=margin_bottom), showlegend=legend, legend=legend_spec,
                  font=dict(size=13, color=INK), hoverlabel=dict(bgcolor=PAPER, font=dict(color=INK)), **axes)
    if shapes:                       # only when there are some: an unvalidated figure keeps an empty list as is
        layout["shapes"] = list(shapes)
    if annotations:
        layout["annotations"] = list(annotations)
    # The traces were validated when the page made them and the layout here is ours: validating the whole figure a
    # second time was 30-45 % of a page's figure CPU (benchmarks/results/page_compute-cpu.md).
    if VALIDATE or not plotly_objects.usable() or FIGURE is not TemplateSharingFigure \
            or any(in_a_figure(t) for t in traces) \
            or (frames is not None and not all(_plain_frame(frame) for frame in frames)):
        return unvalidated_figure(FIGURE, traces, layout, frames)
    return adopting(traces, layout, frames)


def _inked(spec: dict) -> dict:
    """An axis's layout with its tick labels and title in the theme's text colour (`INK`), unless it names its own:
    Streamlit's template colours both #808495 (3.7:1 on white), and a template beats the figure's font."""
    title = spec.get("title") or {}
    return {**spec, "tickfont": {"color": INK, **(spec.get("tickfont") or {})},
            "title": {**title, "font": {"color": INK, **(title.get("font") or {})}}}


FRAME_KEYS = frozenset(("name", "traces", "data"))


def _plain_frame(frame) -> bool:
    """Whether `frame` is a frame `_adopted_frame` makes as plotly would: a dict of a name, trace indices and
    scatter traces given as flat properties (numbers, strings, lists, arrays; no nested dicts to order)."""
    if not isinstance(frame, dict) or not frame.keys() <= FRAME_KEYS or not isinstance(frame.get("data", []), list):
        return False
    order = class_order(SCATTER)
    return all(isinstance(trace, dict) and trace.get("type") == "scatter"
               and all(key == "type" or (key in order and not isinstance(value, dict) and not plotly_object(value))
                       for key, value in trace.items())
               for trace in frame.get("data", []))



def compact_array(values):
    """`values` as float32 when that cannot change the picture (see the module's docstring), else unchanged."""
    if not isinstance(values, np.ndarray) or values.dtype != np.float64 or values.size < 16:
        return values
    finite = values[np.isfinite(values)]
    if not finite.size:
        return values
    low, high = float(finite.min()), float(finite.max())
    size = max(abs(low), abs(high))                     # the largest magnitude
    if size > FLOAT32_LIMIT or high - low <= FLOAT32_SPAN * size:
        return values
    magnitudes = np.abs(finite)
    nonzero = magnitudes[magnitudes > 0]
    if nonzero.size and float(nonzero.min()) < 1 / FLOAT32_LIMIT:
        return values
    return values.astype(np.float32)


def decimated(x: np.ndarray, y: np.ndarray, points: int = MAX_LINE_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """A line of more than `points` points thinned to the first, the last, and each bucket's lowest and highest
    point (in order): the drawn envelope is the same at any chart width, spikes included."""
    n = len(y)
    if n <= points or len(x) != n:
        return x, y
    buckets = max(1, (points - 2) // 2)
    edges = np.linspace(1, n - 1, buckets + 1).astype(int)
    keep = [0, n - 1]
    for lo, hi in zip(edges[:-1], edges[1:]):
        if hi <= lo:
            continue
        part = np.nan_to_num(np.asarray(y[lo:hi], dtype=float), nan=0.0)
        keep += [lo + int(np.argmin(part)), lo + int(np.argmax(part))]
    index = np.unique(keep)
    return x[index], y[index]


def _compacted(trace):
    """A scatter line thinned (`decimated`) and the float64 arrays of a scatter, bar, heatmap or contour (a contour
    line moves by float32 rounding, 1e-7 of a cell) sent as float32 where safe (`compact_array`)."""
    if not isinstance(trace, COMPACTED_TRACES):
        return trace
    changes = {}
    x, y = _raw(trace, "x"), _raw(trace, "y")
    if isinstance(trace, SCATTER) and "markers" not in str(_raw(trace, "mode") or "lines") and y is not None \
            and x is not None and len(y) > MAX_LINE_POINTS and _raw(trace, "customdata") is None \
            and _raw(trace, "text") is None:
        x, y = np.asarray(x), np.asarray(y)
        if x.ndim == y.ndim == 1 and x.dtype.kind in "fiu" and y.dtype.kind in "fiu":
            changes["x"], changes["y"] = decimated(x, y)
    for name in COMPACTED:
        values = changes.get(name, _raw(trace, name))
        if values is None:
            continue
        smaller = compact_array(values)
        if smaller is not values:
            changes[name] = smaller
    if changes:
        ASSIGN(trace, changes)
    return trace


def _top_band(title: str, height: int, legend_side: str, annotations, margin_top: int | None):
    """(title, legend, top margin): the title pinned to the figure's top, a "top" legend in its own rows below it
    and the plot below both, so a legend that wraps on a narrow chart (a phone) pushes the plot down instead of
    running into the title. Subplot titles (notes standing on a panel's top edge) get room above the plot too."""
    lines = _title_lines(title)
    band = 12 + TITLE_LINE_PX * len(lines)               # px from the figure's top to below the title
    notes = [a if isinstance(a, dict) else a.to_plotly_json() for a in annotations]
    above_panels = [a for a in notes if a.get("yref") == "paper" and a.get("yanchor") == "bottom"
                    and (a.get("y") or 0) >= 0.99]
    gap = 6 + max((18 * (str(a.get("text")).count("<br>") + 1) for a in above_panels), default=0)  # legend ↔ plot
    title_spec = dict(text="<br>".join(lines), x=0.01, xanchor="left", yref="container", y=1, yanchor="top",
                      pad=dict(t=10 + 11 * (len(lines) - 1)), font=dict(size=16))
    top = max(margin_top if margin_top is not None else (60 if legend_side == "top" else 45), band + gap + 2)
    if legend_side != "top":
        return title_spec, LEGENDS[legend_side], top
    # In container coordinates plotly reserves the legend's rows in the top margin (the plot starts below them,
    # however many rows it wraps to); a clear border of `gap` px keeps the plot and subplot titles off them.
    legend_spec = dict(orientation="h", xref="container", x=0, xanchor="left", yref="container",
                       y=1 - max(0, band - gap) / height, yanchor="top", borderwidth=gap, bordercolor=CLEAR,
                       bgcolor=CLEAR, **LABEL_ONLY)
    return title_spec, legend_spec, top


def _title_lines(title: str, limit: int = TITLE_LINE_CHARS) -> list[str]:
    """A long plain title in lines of at most `limit` characters: before its "(...)" aside if that fits, else at
    word boundaries (plotly never wraps a title; a phone would cut it)."""
    if len(title) <= limit or "<" in title:
        return [title]
    aside = title.rfind(" (", 0, limit + 1)
    if aside > 0 and len(title) - aside - 1 <= limit:
        return [title[:aside], title[aside + 1:]]
    lines = [""]
    for word in title.split():
        if lines[-1] and len(lines[-1]) + 1 + len(word) > limit:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}".lstrip()
    return lines

def _with_colorbar(trace):
    """A heatmap draws its colour bar (in the house number format); an upright colour bar's title runs along its
    right side (on top it sat on the top tick label on a phone: "accuracy" over "1"); a flat one shorter than
    `SHORT_BAR` of the chart gets 3 upright ticks (more overlapped, or turned sideways, on a phone); other traces
    pass unchanged."""
    if isinstance(trace, HEATMAP):
        ASSIGN(trace, {"showscale": True, "colorbar": {**COLORBAR, **(_raw(trace, "colorbar") or {})}})
    bar = _raw(trace, "colorbar") or {}
    title = bar.get("title") or {}
    if title.get("text") and "side" not in title and bar.get("orientation", "v") == "v":
        ASSIGN(trace, {"colorbar": {**bar, "title": {**title, "side": "right"}}})
    elif bar.get("orientation") == "h" and bar.get("len", 1) < SHORT_BAR:
        ASSIGN(trace, {"colorbar": {**bar, **SHORT_BAR_TICKS}})
    return trace


def _flat_range(traces, axis_name: str, spec: dict) -> dict:
    """{"range": ...} around the data of a linear axis whose values agree up to rounding, else {}."""
    if not rangeable(spec):
        return {}
    letter, ref = axis_name[0], axis_name[0] + axis_name[5:]            # "yaxis2" → "y", "y2"
    return flat_data_range([np.asarray(_raw(t, letter)) for t in traces if isinstance(t, SCATTER | BAR)
                            and (_raw(t, f"{letter}axis") or letter) == ref and _raw(t, letter) is not None])


def rangeable(spec: dict) -> bool:
    """Whether `build` may give an axis declared as `spec` a range of its own (`flat_data_range`): a linear axis
    with no declared range."""
    return "range" not in spec and spec.get("type") not in ("log", "category", "date")


def flat_data_range(values: list[np.ndarray]) -> dict:
    """{"range": ...} around an axis's data (its traces' arrays; text ones ignored) where its finite values agree
    up to rounding (`FLAT`), else {}."""
    values = [v[np.isfinite(v)] for v in values if v.dtype.kind in "fiu"]
    values = np.concatenate(values) if values else np.zeros(0)
    if not values.size:
        return {}
    low, high = float(values.min()), float(values.max())
    size = max(abs(low), abs(high))
    if size == 0 or high - low > FLAT * size:
        return {}
    middle, pad = (low + high) / 2, 0.1 * size
    return {"range": [middle - pad, middle + pad]}


def axis(title: str | None = None, **kw) -> dict:
    return dict(title=dict(text=title), **kw) if title else dict(kw)


def vline(x: float, color: str = GREY, dash: str = "solid", width: float = 1, xref: str = "x",
          yref: str = "paper", y0: float = 0, y1: float = 1) -> dict:
    return dict(type="line", x0=x, x1=x, y0=y0, y1=y1, xref=xref, yref=yref,
                line=dict(color=color, dash=dash, width=width))


def hline(y: float, color: str = GREY, dash: str = "solid", width: float = 1, xref: str = "paper",
          yref: str = "y") -> dict:
    return dict(type="line", x0=0, x1=1, y0=y, y1=y, xref=xref, yref=yref, line=dict(color=color, dash=dash,
                                                                                       width=width))


def note(text: str, x, y, *, xref="x", yref="paper", color=INK, xanchor="right", yanchor="top", bgcolor=PAPER,
         **kw) -> dict:
    """Words on a chart, in the theme's text colour on its background (a warning's colour goes to its border:
    `bordercolor=WARNING`; vermillion text would be 3.9:1 on white)."""
    return dict(text=text, x=x, y=y, xref=xref, yref=yref, showarrow=False, xanchor=xanchor, yanchor=yanchor,
                font=dict(color=color), bgcolor=bgcolor, **kw)


def divergence_marks(x: float | None, label: str, xref: str = "x", yref: str = "paper", *, text: str | None = None,
                     x_end: float | None = None):
    """([shape], [annotation]) marking where a curve was cut at the divergence bound; empty if it was not.

    The line stands at x (across the panel: yref "paper" or "yN domain"); the note (`text`, or "{label}
    diverged at x") sits in a top corner of the panel: the left one, where a curve that blows up at the end
    of the axis is still small, or, when the axis runs on to `x_end` and x lies in its first half, the right
    one (the curve stopped before it).
    """
    if x is None:
        return [], []
    left = x_end is None or x >= x_end / 2
    return ([vline(x, WARNING, "dash", 1.5, xref=xref, yref=yref)],
            [note(f"⚠ {text or f'{label} diverged at {x:.3g}'}", 0.01 if left else 0.99, 1, xref=f"{xref} domain",
                  yref=yref, xanchor="left" if left else "right", bordercolor=WARNING)])


def kept(values, diverged_at: int | None):
    """The leading steps of a series up to and including its first divergent one (all of them if none)."""
    return values if diverged_at is None else values[:diverged_at + 1]


def precision_band(x0: float, x1: float, floor: float, *, xaxis: str = "x", yaxis: str = "y",
                   name: str = "below float precision") -> go.Scatter:
    """A grey band on a log axis from floor/10 up to `floor`, the rounding level of the values drawn, named in
    the legend: values inside it are rounding, not data (draw them at the floor with `at_least`)."""
    grey = "rgba(120,120,120,0.18)"
    return scatter(x=[x0, x1, x1, x0, x0], y=[floor / 10, floor / 10, floor, floor, floor / 10], mode="lines",
                      fill="toself", fillcolor=grey, line=dict(width=0, color=grey), name=name, hoverinfo="skip",
                      xaxis=xaxis, yaxis=yaxis)


def at_least(values, floor: float) -> np.ndarray:
    """|values| held at or above `floor` (the top of a `precision_band`)."""
    return np.maximum(np.abs(np.asarray(values, dtype=float)), floor)


def series_style(j: int) -> dict:
    """The j-th series of a chart (runs, layers): a colour of `PALETTE`, a dash and a marker symbol, each cycling at
    its own length (4, 5, 7), so that two series of one colour differ by dash and by marker, and no two of the
    first twenty share colour and dash (nor of the first twenty-eight colour and marker)."""
    return dict(color=PALETTE[j % len(PALETTE)], dash=DASHES[j % len(DASHES)], symbol=SYMBOLS[j % len(SYMBOLS)])


def subplot_grid(rows: int, cols: int, titles=(), hspace: float = 0.08, vspace: float = 0.12):
    """Axis layout for a rows × cols grid of subplots, as plain layout entries.

    Returns (axes, title_annotations, names) where axes is a dict of xaxisN/yaxisN layout entries
    and names(row, col) gives the ("xN", "yN") a trace in that cell uses (rows and cols from 1).
    """
    lines = ["<br>".join(_title_lines(t, SUBTITLE_ROW_CHARS // cols)) if cols > 1 else t for t in titles]
    if any("<br>" in t for t in lines[cols:]):          # a wrapped title below the first row: its line needs room
        vspace += 0.04
    width, height = (1 - hspace * (cols - 1)) / cols, (1 - vspace * (rows - 1)) / rows
    axes, annotations = {}, []

    def names(row: int, col: int) -> tuple[str, str]:
        n = (row - 1) * cols + col
        return ("x", "y") if n == 1 else (f"x{n}", f"y{n}")

    for row in range(1, rows + 1):
        for col in range(1, cols + 1):
            xname, yname = names(row, col)
            x0 = (col - 1) * (width + hspace)
            y1 = 1 - (row - 1) * (height + vspace)
            axes[xname.replace("x", "xaxis", 1)] = dict(domain=[x0, x0 + width], anchor=yname,
                                                        **(NARROW_PANEL_TICKS if cols >= 3 else {}))
            axes[yname.replace("y", "yaxis", 1)] = dict(domain=[max(0.0, y1 - height), y1], anchor=xname)
            n = (row - 1) * cols + col - 1
            if n < len(titles):
                annotations.append(dict(text=lines[n], x=x0 + width / 2, y=y1, xref="paper", yref="paper",
                                        xanchor="center", yanchor="bottom", showarrow=False,
                                        font=dict(size=14 if cols < 3 else 12, color=INK)))
    return axes, annotations, names


def circle(radius: float = 1.0, points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    phi = np.linspace(0, 2 * np.pi, points)
    return radius * np.cos(phi), radius * np.sin(phi)


def unit_circle_trace(name: str = "unit circle", radius: float = 1.0, **line) -> go.Scatter:
    x, y = circle(radius)
    return scatter(x=x, y=y, mode="lines", name=name, hoverinfo="skip",
                      line=dict(color=line.get("color", GREY), dash=line.get("dash", "solid"), width=1.5))


def log_safe(values: np.ndarray, floor: float = LOG_FLOOR) -> np.ndarray:
    """|values| floored for a log axis (exact zeros stay visible at the floor)."""
    v = np.abs(np.asarray(values, dtype=float))
    return np.maximum(np.nan_to_num(v, nan=floor, posinf=1e300), floor)

"""What a chart shows, in words and numbers, read from its own data — pure (no streamlit).

`chart_text(fig, note)` gives the chart's text alternative: a one-sentence `summary` (the chart's accessible name:
its title, the lesson's note on what matters in it, then per series the numbers a reader would look for — where it
peaks, where it ends, where it settles, where its few points lie) and `tables`, its series' points thinned to at most
`MAX_ROWS` rows each (the "Show the data" table under the chart). Both come from the figure as the browser draws it,
so they say what the picture says at every setting: the charts Streamlit draws and the lesson instrument's page as
the server draws it. A family member the browser moves a chart to is worded there, from the frame it shows, by this
module's JavaScript twin (`chart_words.js`, tests/app/test_chart_words_js.py holds the two equal).

A figure is read as a plain dict (`chart_element.plain_chart`'s, or a `plain_part` of `TEXT_TRACE_KEYS` and the
layout keys `text_layout_key` accepts): arrays as plotly 7's typed-array specs, numpy arrays or lists. A trace
that does not answer the pointer (`hoverinfo="skip"`: a unit circle, a grid, a threshold line, a contour over a
heat map) is a reference drawn for the eye, not data: it is neither summarised nor tabled.
"""
from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from typing import Any

import numpy as np

from .figure_style import AXIS_KEY, plotly_array

MAX_ROWS = 50            # a series' table: at most this many points (its first, last, highest and lowest among them)
MAX_GRID_COLUMNS = 10    # a heat map's table: at most this many of its columns …
MAX_GRID_ROWS = 25       # … and of its rows
MAX_SERIES_SAID = 4      # the summary says at most this many series in full (the table holds them all) …
MAX_SUMMARY_CHARS = 320  # … or fewer, to keep it about this long (an accessible name is read out whole); past
                         # either, it says each series briefly (where it ends), as many as fit
FEW_POINTS = 4           # a series of at most this many points is said point by point
SETTLE_BAND = 0.05       # a curve settles once it stays within this fraction of its span around its last value
SETTLE_BEFORE = 0.8      # … said only where that happens before this fraction of its x extent
TEXT_TRACE_KEYS = frozenset(("type", "name", "x", "y", "z", "xaxis", "yaxis", "hoverinfo", "mode", "visible",
                             "colorbar", "hovertemplate"))
HOVER_Z = re.compile(r"(?:^|<br>)\s*([^<>%]*?[^\s<>%:=])\s*[:=]?\s*%\{z")     # "log₁₀ dist %{z:.2f}" → log₁₀ dist
TAG = re.compile(r"<[^>]+>")
UNIT = re.compile(r"^(?P<name>.*?)\s*\((?P<unit>[^()\s:,]{1,6})\)$")      # "t (s)" → t, s
ASIDE = re.compile(r"\s*\([^()]*\)$")                                     # "step t (dotted: …)" → step t


def text_layout_key(key: str) -> bool:
    """The layout keys `chart_text` reads (a `plain_part` of a figure keeps these)."""
    return key in ("title", "annotations") or AXIS_KEY.match(key) is not None


def chart_text(fig: dict, note: str = "", name: str = "") -> dict:
    """The chart's text alternative: {"summary": one sentence, "tables": [{"caption", "name", "headers", "columns"}]}
    (a table's `name`: its caption after the chart's title, what its region is called), every
    number in them written from the figure's data (`note`: the lesson's own words on what matters, put after the
    title; `name`: the chart's name, where it has no title)."""
    summary, tables = _unrounded(fig, note, name)
    return {"summary": summary, "tables": rounded_columns(tables)}


def _unrounded(fig: dict, note: str, name: str) -> tuple[str, list[dict]]:
    """The summary and the tables (numeric columns as numpy arrays: `rounded_columns` writes them)."""
    layout = fig.get("layout") or {}
    title = plain_words(_text_of(layout.get("title"))) or name
    axes: dict = {}                                 # the chart's axes and panel titles, read once
    series = [s for n, trace in enumerate(fig.get("data") or []) if (s := read_series(trace, n, layout, axes))
              is not None]
    _distinguish(series)
    room = MAX_SUMMARY_CHARS - len(title) - len(note)
    said = [phrase(s) for s in series] if len(series) <= MAX_SERIES_SAID else []
    if sum(len(words) + 2 for words in said) > room or len(series) > MAX_SERIES_SAID:
        said = []                                   # too much to say in full: each series by where it ends
        for words in briefly(series):
            if said and sum(len(w) + 2 for w in said) + len(words) > room:
                break
            said.append(words)
    if len(series) > len(said):
        rest = len(series) - len(said)
        said.append(f"{rest} more series in the data table" if rest > 1 else "one more series in the data table")
    frames = fig.get("frames") or []
    if len(frames) > 1:
        said.append(f"{len(frames)} frames to play")
    parts = [p for p in (note.strip().rstrip("."), *said) if p]
    summary = f"{title}: " + "; ".join(parts) + "." if parts else f"{title}: no data."
    # each table's region is named by its chart's title too: two charts' "ZOH" tables are two distinct landmarks
    # (the title without its aside, e.g. "(Δ = 0.1 s)": a table keeps its name while a drag moves the chart)
    short = ASIDE.sub("", title).strip() or title
    return summary, [{**t, "name": f"{short}: {t['caption']}"} for t in (table(s) for s in series)]


def summary_of(text: dict | None) -> str:
    return (text or {}).get("summary", "")


# --- reading the figure ---------------------------------------------------------------------------------------
def plain_words(text: Any) -> str:
    """A title or axis title as words: plotly's line breaks as spaces, no markup."""
    if not isinstance(text, str):
        return ""
    return " ".join(TAG.sub(" ", text.replace("<br>", " ")).split())


def _text_of(title: Any) -> str:
    return title.get("text") if isinstance(title, dict) else title


def values(value: Any) -> np.ndarray | None:
    """A trace's data as a numpy array (numbers as floats, anything else as text); None where there is none."""
    if value is None:
        return None
    if isinstance(value, dict) and "bdata" in value:
        return plotly_array(value).astype(float)
    array = np.asarray(value)
    if array.dtype.kind in "biuf":
        return array.astype(float)
    if array.dtype.kind == "O":
        try:
            return array.astype(float)
        except (TypeError, ValueError):
            return array.astype(str)
    return array.astype(str)


class Axis:
    """One axis as the words say it: its title, the quantity's name and unit ("t (s)" → t, s)."""

    def __init__(self, title: str):
        self.title = title
        found = UNIT.match(title)
        self.name, self.unit = (found["name"], found["unit"]) if found else (ASIDE.sub("", title), "")

    def at(self, value) -> str:
        """A position on this axis: "t = 1.6 s", or the bare number where the axis has no name."""
        shown = spoken(value)
        if not self.name:
            return shown
        return f"{self.name} = {shown}" + (f" {self.unit}" if self.unit else "")


def axis_of(layout: dict, ref: str) -> Axis:
    """The axis a trace names ("x2" → layout.xaxis2); an untitled one that matches another (a time axis shared
    by stacked panels) takes that one's title."""
    spec = layout.get(ref[0] + "axis" + ref[1:]) or {}
    title = plain_words(_text_of(spec.get("title")))
    if not title and isinstance(spec.get("matches"), str):
        matched = layout.get(spec["matches"][0] + "axis" + spec["matches"][1:]) or {}
        title = plain_words(_text_of(matched.get("title")))
    return Axis(title)


def panel_title(layout: dict, xref: str, yref: str) -> str:
    """The title of the subplot (`figure_style.subplot_grid`: a note centred over its cell), where it has one."""
    xspec = layout.get("xaxis" + xref[1:]) or {}
    yspec = layout.get("yaxis" + yref[1:]) or {}
    xs, ys = xspec.get("domain"), yspec.get("domain")
    if not xs or not ys or (list(xs) == [0, 1] and list(ys) == [0, 1]):
        return ""
    for note in layout.get("annotations") or []:
        if note.get("xref") == "paper" and note.get("yref") == "paper" and note.get("yanchor") == "bottom" \
                and abs(float(note.get("x", -1)) - (xs[0] + xs[1]) / 2) < 0.01 \
                and abs(float(note.get("y", -1)) - ys[1]) < 0.01:
            return plain_words(note.get("text"))
    return ""


class Series:
    """One data trace as the text reads it: its label, kind, axes and values."""

    def __init__(self, label: str, kind: str, x_axis: Axis, y_axis: Axis, x, y, z=None, z_name: str = ""):
        self.label, self.kind, self.x_axis, self.y_axis = label, kind, x_axis, y_axis
        self.x, self.y, self.z, self.z_name = x, y, z, z_name
        self.panel = ""


def read_series(trace: dict, n: int, layout: dict, axes: dict | None = None) -> Series | None:
    """The trace as a series, or None where it is no data (a reference drawn for the eye, a hidden or empty one).
    `axes`: where the chart's axes and panel titles are kept once read (its other traces share them)."""
    if trace.get("hoverinfo") == "skip" or trace.get("visible") is False:
        return None
    kind = trace.get("type", "scatter")
    xref, yref = trace.get("xaxis") or "x", trace.get("yaxis") or "y"
    axes = {} if axes is None else axes
    if (xref, yref) not in axes:
        axes[xref, yref] = (axis_of(layout, xref), axis_of(layout, yref), panel_title(layout, xref, yref))
    x_axis, y_axis, panel = axes[xref, yref]
    label = plain_words(trace.get("name"))
    x, y = values(trace.get("x")), values(trace.get("y"))
    if kind in ("heatmap", "contour"):
        z = values(trace.get("z"))
        if z is None or z.ndim != 2 or not z.size or z.dtype.kind != "f":
            return None
        rows, cols = z.shape
        x = x if x is not None and len(x) == cols else np.arange(cols, dtype=float)
        y = y if y is not None and len(y) == rows else np.arange(rows, dtype=float)
        # what a heat map's numbers are: as its hover names them (a colour bar may label log values as powers)
        hover = HOVER_Z.search(trace.get("hovertemplate") or "")
        z_name = (plain_words(hover[1]) if hover else "") or plain_words(
            _text_of((trace.get("colorbar") or {}).get("title"))) or "value"
        series = Series(label or panel or "heat map", "grid", x_axis, y_axis, x, y, z, z_name)
    elif kind == "histogram":
        data = x if x is not None else y
        if data is None or not len(data) or data.dtype.kind != "f":
            return None
        series = Series(label or x_axis.title or f"series {n + 1}", "histogram", x_axis, y_axis, data, None)
    elif kind in ("scatter", "scattergl", "bar"):
        if y is None or not len(y) or y.dtype.kind != "f":
            return None
        x = x if x is not None and len(x) == len(y) else np.arange(len(y), dtype=float)
        points = "markers" in str(trace.get("mode") or "") and "lines" not in str(trace.get("mode") or "")
        kind = "bars" if kind == "bar" else ("points" if points or len(y) <= FEW_POINTS else "line")
        series = Series(label or y_axis.title or panel or f"series {n + 1}", kind, x_axis, y_axis, x, y)
    else:
        return None
    series.panel = panel if panel and panel != series.label else ""
    return series


def _distinguish(series: list[Series]) -> None:
    """Series that share a label (one per panel: "naive" in the loss and in the |λ| panel) are named by their panel."""
    counts: dict[str, int] = {}
    for s in series:
        counts[s.label] = counts.get(s.label, 0) + 1
    for s in series:
        if counts[s.label] > 1 and s.panel:
            s.label = f"{s.label}, {s.panel}"


# --- the sentence ---------------------------------------------------------------------------------------------
def number(value) -> str:
    """A number as the summary writes it: 3 significant digits, no signed zero, a plain exponent ("1e-5")."""
    value = float(value)
    if not np.isfinite(value):
        return "infinite" if np.isinf(value) else "undefined"
    text = f"{value:.3g}"
    if "e" in text:
        mantissa, power = text.split("e")
        text = f"{mantissa}e{int(power)}"
    return "0" if text in ("-0", "-0.0") else text


def spoken(value) -> str:
    """A position as the summary writes it: a number by `number`, a category as it is named."""
    return number(value) if isinstance(value, float | int | np.floating | np.integer) else str(value)


def cell(value) -> float | int | str | None:
    """A table's cell: a number rounded to 4 significant digits (None for a gap, text for an infinity or a
    category) — numbers, not their text (`shown` writes them)."""
    if isinstance(value, str | np.str_):
        return str(value)
    return column(np.asarray([value], dtype=float))[0]


def column(data: np.ndarray) -> list:
    """`cell` of each value of a numeric array, rounded in numpy: a value is k·10ᵉ with k an integer of 4 digits,
    made by one division or multiplication by an exact power of ten, so it is the double nearest that decimal and
    JSON writes it short ("0.8631", not "0.86310000000000001")."""
    if data.dtype.kind not in "fiu":
        return [str(v) for v in data.tolist()]
    return _rounded(data)


def _rounded(data: np.ndarray) -> list:
    data = data.astype(float)
    finite = np.isfinite(data)
    safe = np.where(finite & (data != 0), np.abs(data), 1.0)
    power = 3 - np.floor(np.log10(safe))                          # 10^power · value has 4 digits before the point
    exact = np.abs(power) <= 22                                   # 10^power is a double exactly
    scale = 10.0 ** np.where(exact, np.abs(power), 0)
    with np.errstate(invalid="ignore", over="ignore"):
        rounded = np.where(power >= 0, np.round(data * scale) / scale, np.round(data / scale) * scale)
    rounded = np.where(finite, rounded, 0.0)
    whole = (rounded == np.floor(rounded)) & (np.abs(rounded) < 1e15)
    out = rounded.astype(object)                                  # Python floats, and ints where whole:
    if whole.any():                                               # JSON writes 20, not 20.0
        out[whole] = rounded[whole].astype(np.int64).astype(object)
    out = out.tolist()
    for i in np.flatnonzero(~(finite & exact)).tolist():          # a gap, an infinity, a value past 10^±19
        v = float(data[i])
        out[i] = None if v != v else ("∞" if v == INF else "-∞" if v == -INF else float(f"{v:.4g}"))
    return out


INF = float("inf")


def shown(value) -> str:
    """A cell as the table writes it (instrument.js: `shownCell`)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return "0" if value == 0 else f"{value:.4g}"


def phrase(s: Series) -> str:
    if s.kind == "grid":
        return grid_phrase(s)
    if s.kind == "histogram":
        data = s.x[np.isfinite(s.x)]
        if not data.size:
            return f"{s.label}: no finite values"
        return (f"{s.label}: {len(data)} values from {number(data.min())} to {number(data.max())}, "
                f"median {number(np.median(data))}")
    finite = np.isfinite(s.y)
    if not finite.any():
        return f"{s.label}: no finite values"
    if s.kind in ("points", "bars") and len(s.y) <= FEW_POINTS:
        return points_phrase(s)
    if s.kind == "points":
        x, y = s.x[finite], s.y[finite]
        spread = f"{s.x_axis.name or 'x'} from {number(x.min())} to {number(x.max())}, " \
            if x.dtype.kind == "f" and x.size else ""
        return f"{s.label}: {len(y)} points, {spread}{s.y_axis.name or 'y'} from {number(y.min())} to " \
               f"{number(y.max())}"
    return curve_phrase(s)


def briefly(series: list[Series]) -> list[str]:
    """Each series in a few words: a line or bars by where it ends, under its label without its last aside
    ('"aa", low damping (c = 0.1)' → '"aa", low damping', where that names it alone); a few points, a grid or a
    histogram as in full."""
    short = [ASIDE.sub("", s.label) or s.label for s in series]
    if len(set(short)) < len(short):
        short = [s.label for s in series]
    said, where = [], None
    for s, label in zip(series, short):
        finite = np.flatnonzero(np.isfinite(s.y)) if s.y is not None else np.zeros(0, dtype=int)
        if s.kind == "bars" and len(finite) > FEW_POINTS:
            top = int(finite[np.argmax(s.y[finite])])
            said.append(f"{label} highest {number(s.y[top])} at {s.x_axis.at(_item(s.x[top]))}")
        elif s.kind == "line" and len(finite) > FEW_POINTS:
            last = int(finite[-1])
            end = s.x_axis.at(_item(s.x[last]))         # said once for the lines that end where the one before did
            low = float(np.min(s.y[finite]))
            dips = f", lowest {number(low)}" if number(low) != number(s.y[last]) else ""   # below where it ends
            said.append(f"{label} ends at {number(s.y[last])}" + (f" at {end}" if end != where else "") + dips)
            where = end
        else:
            said.append(phrase(s))
    return said


def _item(value):
    return value.item() if hasattr(value, "item") else value


def points_phrase(s: Series) -> str:
    said = [(f"({number(x)}, {number(y)})" if s.kind == "points" and isinstance(x, float) else
             f"{s.x_axis.at(x)}: {number(y)}") for x, y in zip(s.x.tolist(), s.y.tolist())]
    joined = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return f"{s.label} at {joined}" if s.kind == "points" else f"{s.label}: {joined}"


def curve_phrase(s: Series) -> str:
    """A line or bars: where it peaks and dips, where it ends, and where it settles (a decay, a step); a line that
    turns back in x (a trajectory, a circle) as a path."""
    finite = np.flatnonzero(np.isfinite(s.y))
    y = s.y[finite]
    top, bottom, last = int(np.argmax(y)), int(np.argmin(y)), len(y) - 1
    if s.x.dtype.kind == "f" and np.any(np.diff(s.x[finite]) < 0):
        x = s.x[finite]
        return (f"{s.label}: a path from ({number(x[0])}, {number(y[0])}) to ({number(x[last])}, {number(y[last])}),"
                f" {s.x_axis.name or 'x'} from {number(np.nanmin(x))} to {number(np.nanmax(x))}, "
                f"{s.y_axis.name or 'y'} from {number(y[bottom])} to {number(y[top])}")
    xs = s.x[finite]

    def at(i: int) -> str:
        return s.x_axis.at(_item(xs[i]))
    if number(y[top]) == number(y[bottom]):
        return f"{s.label}: stays at {number(y[0])} from {at(0)} to {at(last)}"
    if top == 0 and bottom == last:
        said = [f"falls from {number(y[0])} at {at(0)} to {number(y[last])} at {at(last)}"]
    elif bottom == 0 and top == last:
        said = [f"rises from {number(y[0])} at {at(0)} to {number(y[last])} at {at(last)}"]
    else:
        said = [f"highest {number(y[top])} at {at(top)}"]
        if y[bottom] < y[top]:
            said.append(f"lowest {number(y[bottom])} at {at(bottom)}")
        if number(y[last]) not in (number(y[top]), number(y[bottom])):
            said.append(f"ends at {number(y[last])} at {at(last)}")
    settled = settles_at(s.x[finite], y) if s.kind == "line" and s.x.dtype.kind == "f" else None
    if settled is not None:
        said.append(f"settles by {at(settled)}")
    return f"{s.label}: " + ", ".join(said)


def settles_at(x: np.ndarray, y: np.ndarray) -> int | None:
    """The index from which the curve stays within `SETTLE_BAND` of its span around its last value, where that
    comes before `SETTLE_BEFORE` of its x extent and after its start (else None: it never settles in view)."""
    span = float(y.max() - y.min())
    if span <= 0 or len(y) < 3:
        return None
    away = np.flatnonzero(np.abs(y - y[-1]) > SETTLE_BAND * span)
    if not away.size:
        return None
    k = int(away[-1]) + 1
    if k >= len(y) or x[k] > x[0] + SETTLE_BEFORE * (x[-1] - x[0]):
        return None
    return k


def grid_phrase(s: Series) -> str:
    z = s.z
    if not np.isfinite(z).any():
        return f"{s.label}: no finite values"
    rows, cols = z.shape
    low = np.unravel_index(np.nanargmin(np.where(np.isfinite(z), z, np.nan)), z.shape)
    high = np.unravel_index(np.nanargmax(np.where(np.isfinite(z), z, np.nan)), z.shape)

    def where(index) -> str:
        column, row = s.x[index[1]], s.y[index[0]]
        return (f"{s.x_axis.at(column) if s.x_axis.name else 'column ' + spoken(column)}, "
                f"{s.y_axis.at(row) if s.y_axis.name else 'row ' + spoken(row)}")
    mean = np.nanmean(np.where(np.isfinite(z), z, np.nan))
    return (f"{s.label}: {rows} by {cols} grid of {s.z_name}, lowest {number(z[low])} at {where(low)}, "
            f"highest {number(z[high])} at {where(high)}, mean {number(mean)}")


# --- the table ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def thinned(n: int, most: int) -> np.ndarray:
    """At most `most` indices of `n`, evenly spread, the first and the last among them: the same rows at every
    setting, so a table's rows stay put while a drag moves its chart. Never change the array: kept."""
    if n <= most:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, most)).astype(int))


def rounded_columns(tables: list[dict]) -> list[dict]:
    """The tables with their numeric columns (numpy arrays, as `table` leaves them) as `column` writes them, rounded
    in one pass for the whole chart (numpy's cost is per call)."""
    arrays = [c for t in tables for c in t["columns"] if isinstance(c, np.ndarray) and c.dtype.kind in "fiu"]
    if not arrays:
        return [{**t, "columns": [c if isinstance(c, list) else column(c) for c in t["columns"]]} for t in tables]
    cells = _rounded(np.concatenate([a.astype(float).ravel() for a in arrays]))
    at = 0
    out = []
    for t in tables:
        done = []
        for c in t["columns"]:
            if isinstance(c, np.ndarray) and c.dtype.kind in "fiu":
                done.append(cells[at:at + c.size])
                at += c.size
            else:
                done.append(c if isinstance(c, list) else column(c))
        out.append({**t, "columns": done})
    return out


def table(s: Series) -> dict:
    """A series' points as a table, by column: {"caption", "headers", "columns"}, the columns numpy arrays (text for
    categories; `rounded_columns` writes them as cells); the first column heads each row (x, or a heat map's y)."""
    x_title, y_title = s.x_axis.title or "x", s.y_axis.title or "y"
    if s.kind == "grid":
        rows = thinned(len(s.y), MAX_GRID_ROWS)
        cols = thinned(len(s.x), MAX_GRID_COLUMNS)
        return dict(caption=f"{s.label} ({s.z_name}; rows: {y_title}, columns: {x_title})",
                    headers=[f"{y_title} \\ {x_title}", *(shown(v) for v in column(s.x[cols]))],
                    columns=[s.y[rows], *s.z[np.ix_(rows, cols)].T])
    if s.kind == "histogram":
        data = np.sort(s.x[np.isfinite(s.x)])
        picked = thinned(len(data), MAX_ROWS)
        return dict(caption=f"{s.label} (the values, sorted)", headers=["n", x_title],
                    columns=[(picked + 1).tolist(), data[picked]])
    picked = thinned(len(s.y), MAX_ROWS)
    return dict(caption=s.label + (f" ({len(picked)} of {len(s.y)} points)" if len(picked) < len(s.y) else ""),
                headers=[x_title, s.y_axis.title or s.label or y_title], columns=[s.x[picked], s.y[picked]])


def rows_of(table: dict) -> list[list[str]]:
    """A table's rows as text (its columns side by side)."""
    return [[shown(value) for value in row] for row in zip(*table["columns"])]


# --- as HTML, for the charts Streamlit draws ---------------------------------------------------------------------
def data_html(text: dict) -> str:
    """The summary and the tables as one HTML block (no blank line: markdown passes it through whole), every word
    escaped: "Show the data" under a chart Streamlit draws (the lesson instrument writes its own, instrument.js)."""
    parts = [f"<p>{escape(text['summary'])}</p>"]
    for table in text["tables"]:
        parts.append(table_region(table.get("name", table["caption"]), table["headers"], rows_of(table),
                                  table["caption"]))
    return '<div class="lcsm-chart-data">' + "".join(parts) + "</div>"


def table_region(label: str, headers: list[str], rows: list[list[str]], caption: str | None = None) -> str:
    """A table of text as HTML, every word escaped, the first column heading each row; a wide table (a heat map's
    columns) scrolls sideways in its own box, which the keyboard can reach and a screen reader names (`label`)."""
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in headers)
    body = "".join("<tr>" + "".join((f'<th scope="row">{escape(v)}</th>' if n == 0 else f"<td>{escape(v)}</td>")
                                    for n, v in enumerate(row)) + "</tr>" for row in rows)
    title = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f'<div role="region" tabindex="0" aria-label="{escape(label)}" style="overflow-x: auto"><table>{title}'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")

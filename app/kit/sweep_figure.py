"""A page's family over a setting's values, as plotly frames: the lesson instrument (`app/kit/instrument.py`) moves
every chart of the page to the frame of the member its swept control is at.

Two parts, sent apart: the chart drawn at the current value (`preview_figure`: its picture only, the axes fixed
over the family), which changes with every swept move, and the family's frames (`family_frames`), which depend on
the held settings only and reach the browser once, in the instrument's family mount; the instrument adds them to
each chart there (`held_frames` is that figure, for tests).

A member is one value of the swept setting with the page drawn at it: per chart (`chart_part`), the figure
(built by the page's own `figures`) cut down to what moves — each trace's data and name, and the title, shapes
and notes (a divergence mark follows the curve) — with its axis extents and trace signature; and the page's
readouts and equations at that value as text (`app/kit/page_text.py:page_text`). Members are plain data (no plotly
objects): they are pickled from the preview worker and kept in the byte-bounded cache. The styles stay those of
the figure drawn at the current value, so presenter line widths and colours hold while dragging.

The axes are fixed over the family (figure_style's rule for figures with frames: the picture must not jump
while dragging): each axis spans the members' extents, except that a member reaching past `RUNAWAY` times
the typical one (a spring with c < 0 passing 10⁶) does not flatten every other frame against the axis. Such a
runaway member's frame carries that axis's range fitted to its own data and says so in its title ("⚠ y-axis
×10⁶": the modebar leaves no room for more), so a drag to it shows the whole explosion rather than vertical lines
leaving the picture; every other frame of its group then carries the family's range, since plotly keeps a
frame's layout once applied and a drag back must restore it (`frame_ranges`). Axes without a runaway member are
named in no frame. The drawing at the current value has the range its frame has (its own data's where it runs
away), so it is always fully in view.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .chart_element import plain_part
from .chart_text import TEXT_TRACE_KEYS
from .figure_style import AXIS_KEY, plotly_array
from .settings import Setting

MOVING_DATA = ("x", "y", "z", "customdata", "text", "name")   # per trace: what a frame replaces
MOVING_LAYOUT = ("title", "shapes", "annotations")           # per figure: what a frame replaces
RUNAWAY = 10.0         # a member whose axis extent passes this many times the median one leaves the picture
PAD = 0.05             # fraction of a data-derived value axis range added on each side (as plotly's autorange)
# px of left margin where frames change the range of a y axis at the left edge: "−0.5×10⁶" ticks and the axis
# title fit (89 px measured).
# Plotly's animation does not redo the margins (automargin), so a frame whose wider tick labels pushed them drew
# its data against the old plot area and its axes and marks against the new (energy past its divergence line).
RANGED_MARGIN = 100


def member(setting: Setting, value: Any, fig: dict) -> dict:
    """What the preview keeps of the one figure `fig` drawn at `value` (a plain dict: it is cached)."""
    return {**identity(setting, value), **chart_part(setting.encode(value), fig)}


def page_member(setting: Setting, value: Any, figs: dict[str, dict], readouts: dict) -> dict:
    """The whole page at `value`: every chart's moving part (`charts`, by name) and the readouts as text."""
    name = setting.encode(value)
    return {**identity(setting, value), "charts": {chart: chart_part(name, fig) for chart, fig in figs.items()},
            "readouts": readouts}


def identity(setting: Setting, value: Any) -> dict:
    order = setting.options.index(value) if setting.kind == "choice" else float(value)
    return dict(value=value, name=setting.encode(value), label=step_label(setting, value), order=order)


def chart_part(name: str, fig) -> dict:
    """One chart of a member: its frame (what moves), its trace signature, its axis extents and whether it has an
    animation of its own (`own_frames`: such a chart does not follow a drag)."""
    fig = plain_part(fig, PART_TRACE_KEYS, part_layout_key)        # a Figure: only this much made plain
    return dict(signature=signature(fig), frame=moving_frame(fig, name), extents=extents(fig),
                own_frames=bool(fig.get("frames")))


def moving_frame(fig: dict, name: str) -> dict:
    """The frame named `name` of a plain drawing: what moves of it (each trace's MOVING_DATA, the MOVING_LAYOUT)."""
    data = [{key: trace[key] for key in MOVING_DATA if key in trace} for trace in fig["data"]]
    layout = {key: fig["layout"].get(key, [] if key != "title" else {}) for key in MOVING_LAYOUT}
    return dict(name=name, data=data, layout=layout)


# What a chart's part reads of a trace, and what its text alternative reads (`sweep.unworded_page` makes a member's
# figures this plain once: its frame is cut from them, and `chart_text` words them as the browser's twin does)
PART_TRACE_KEYS = frozenset((*MOVING_DATA, "type", "xaxis", "yaxis", *TEXT_TRACE_KEYS))


def part_layout_key(key: str) -> bool:
    """The layout keys a chart's part (and its text alternative, `chart_text.text_layout_key`) reads."""
    return key in MOVING_LAYOUT or AXIS_KEY.match(key) is not None


def chart_family(family: list[dict], chart: str) -> list[dict]:
    """The family of one chart of the page (`member`'s shape) from page members (`page_member`'s)."""
    found = []
    for m in family:
        if chart in m.get("charts", {}):
            found.append({key: m[key] for key in ("value", "name", "label", "order")} | m["charts"][chart])
    return found


def step_label(setting: Setting, value: Any) -> str:
    if setting.option_labels:
        return str(setting.option_labels.get(value, value))
    if setting.format and setting.kind in ("float", "int"):
        return setting.format % value
    return setting.encode(value)


def signature(fig: dict) -> tuple:
    """The traces' kinds and axes: a frame applies trace by trace, so only members alike can share a figure."""
    return tuple((t.get("type", "scatter"), t.get("xaxis", "x"), t.get("yaxis", "y")) for t in fig["data"])


def numbers(value) -> np.ndarray:
    """A trace's data as floats (plotly 7 stores arrays as {"dtype", "bdata"}); empty when not numeric."""
    if isinstance(value, dict) and "bdata" in value:
        array = plotly_array(value).ravel()
    else:
        array = np.asarray(value if isinstance(value, list | tuple) else [], dtype=object)
        array = np.asarray([v for v in array.ravel() if isinstance(v, int | float) and not isinstance(v, bool)])
    return array.astype(float) if array.dtype.kind in "fiu" else np.zeros(0)


def extents(fig: dict) -> dict[str, tuple[float, float, bool]]:
    """Per value axis: (low, high, from_data) — its declared range, else its traces' finite data (log10 on a
    log axis, as plotly's ranges are)."""
    found = {}
    for key, spec in fig["layout"].items():
        if not AXIS_KEY.match(key) or spec.get("type") in ("category", "date", "multicategory"):
            continue
        if spec.get("range") is not None:
            low, high = (float(v) for v in spec["range"])
            found[key] = (low, high, False)
            continue
        ref = key[0] + key[5:]                                              # "yaxis2" → "y2"
        parts = [numbers(t.get(key[0])) for t in fig["data"] if t.get("type", "scatter") in ("scatter", "bar")
                 and (t.get(f"{key[0]}axis") or key[0]) == ref]
        values = np.concatenate(parts) if parts else np.zeros(0)
        values = values[np.isfinite(values)]
        if spec.get("type") == "log":
            values = np.log10(values[values > 0])
        if values.size:
            found[key] = (float(values.min()), float(values.max()), True)
    return found


def fixed_ranges(members: list[dict], current: dict, typical: dict[str, float] | None = None) -> dict[str, list[float]]:
    """Each axis's range for the drawing of `current` among `members` (its trace signature's members, itself
    among them where it is one): the members' extents without the runaways, and the current one; a current one
    that runs away is fitted to its own data (`axis_range`). `typical`: `typical_extents(members)`, where the
    caller has it."""
    typical = typical_extents(members) if typical is None else typical
    return {key: axis_range(members, key, extent, typical.get(key, 0.0))
            for key, extent in current["extents"].items()}


def typical_extents(members: list[dict]) -> dict[str, float]:
    """Per axis: the median of the members' extents (high − low) — what a runaway is measured against."""
    widths: dict[str, list[float]] = {}
    for m in members:
        for key, (low, high, _) in m["extents"].items():
            widths.setdefault(key, []).append(high - low)
    return {key: float(np.median(found)) for key, found in widths.items()}


def runs_away(extent: tuple, typical: float) -> bool:
    return typical > 0 and extent[1] - extent[0] > RUNAWAY * typical


def axis_range(members: list[dict], key: str, extent: tuple | None, typical: float) -> list[float]:
    """One axis's range for a drawing whose extent there is `extent` (None: no data on it): its own, padded, when
    it runs away; else the union of the members' extents that do not run away, and its own."""
    if extent is not None and runs_away(extent, typical):
        return padded(key, *extent, fitted=True)
    found = [m["extents"][key] for m in members if key in m["extents"]] + ([extent] if extent is not None else [])
    low, high, from_data = np.inf, -np.inf, False
    for lo, hi, data in found:
        if not runs_away((lo, hi), typical):
            low, high, from_data = min(low, lo), max(high, hi), from_data or data
    return padded(key, low, high, from_data)


def padded(key: str, low: float, high: float, from_data: bool, fitted: bool = False) -> list[float]:
    """A data-derived value axis's range with `PAD` on each side (as plotly's autorange); a declared one as is.
    `fitted`: a runaway drawing's own range, padded on an x axis too (a phase portrait's end marker sits at
    its x extent, and would be cut in half at the edge)."""
    pad = PAD * (high - low) if from_data and (fitted or key.startswith("y")) else 0.0
    if high - low <= 0:                                                 # one value: plotly pads it too
        pad = max(0.1 * abs(high), 1.0) if from_data else 0.0
    return [low - pad, high + pad]


def runaway_axes(members: list[dict], typical: dict[str, float]) -> list[str]:
    """The axes on which some member of the group runs away: every frame of the group names their range."""
    return sorted(key for key in typical
                  if any(key in m["extents"] and runs_away(m["extents"][key], typical[key]) for m in members))


def frame_ranges(members: list[dict], m: dict, keys: list[str], typical: dict[str, float]) -> dict[str, list]:
    """The ranges member `m`'s frame carries (`runaway_axes`): the one its drawing at that value would have."""
    return {key: axis_range(members, key, m["extents"].get(key), typical[key]) for key in keys}


def runaway_note(extents: dict, typical: dict[str, float]) -> str | None:
    """The title's note of a drawing fitted to its own runaway data ("⚠ y-axis ×10⁶": its range over the typical
    one, a power of ten), else None."""
    ratios = {key: (high - low) / typical[key] for key, (low, high, _) in extents.items()
              if key in typical and runs_away((low, high), typical[key])}
    if not ratios:
        return None
    letters = sorted({key[0] for key in ratios})
    which = "axes" if len(letters) > 1 else f"{letters[0]}-axis"
    power = str(int(np.floor(np.log10(max(ratios.values()))))).translate(SUPERSCRIPT)
    return f"⚠ {which} ×10{power}"


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def noted(title, note: str | None):
    """A figure's title (plotly's dict, or a string) with `note` after its text."""
    if not note:
        return title
    title = dict(title) if isinstance(title, dict) else {"text": title or ""}
    return {**title, "text": f"{title.get('text') or ''} · {note}"}


def family_frames(family: list[dict]) -> list[dict]:
    """One chart's family as the browser keeps it (`instrument.js` adds these frames to the drawn chart): per
    trace signature, its members' frames in order, aligned and cut to what moves among them, and what is the same
    in all of them (`constants`, to check a drawing against). Independent of the current value, so the page sends
    it once per family (Streamlit's message cache)."""
    groups: dict[tuple, list[dict]] = {}
    for m in sorted(family, key=lambda m: m["order"]):
        groups.setdefault(m["signature"], []).append(m)
    found = []
    for sig, members in groups.items():
        typical = typical_extents(members)
        ranged = runaway_axes(members, typical)
        frames = aligned([with_ranges(m, members, ranged, typical) for m in members])
        found.append(dict(signature=[list(s) for s in sig], frames=moving_only(frames), constants=constants(frames)))
    return found


def with_ranges(m: dict, members: list[dict], keys: list[str], typical: dict[str, float]) -> dict:
    """Member `m`'s frame with the ranges of the axes `keys` (`runaway_axes`: its group's frames all carry them,
    `frame_ranges`) and, where it runs away, its title's note."""
    if not keys:
        return m["frame"]
    layout = {**m["frame"]["layout"], "title": noted(m["frame"]["layout"].get("title"), runaway_note(m["extents"],
                                                                                                     typical))}
    for key, span in frame_ranges(members, m, keys, typical).items():
        layout[key] = {"range": span, "autorange": False}
    return {**m["frame"], "layout": layout}


def group_outline(group: dict) -> dict:
    """What drawing a chart at the current value needs of one of its frame groups (`family_frames`'s): the trace
    signature, the data every frame shares (`constants`) and how many shapes and notes a frame holds (`aligned`)
    — not the frames (the web process keeps this, `lcsm_explorer.app.kit.family`; the frames go to the browser)."""
    first = group["frames"][0]["layout"]
    return dict(signature=group["signature"], constants=group["constants"],
                counts={key: len(first[key]) for key in ("shapes", "annotations")})


def same_signature(group: dict, current: dict) -> bool:
    return [list(s) for s in current["signature"]] == group["signature"]


def preview_figure(current_fig: dict, current: dict, family: list[dict], label: str,
                   groups: list[dict] | None = None) -> dict:
    """`current_fig` (the chart at the current value, its picture only: no frames) with its axes fixed over the
    members like it, its shapes and notes padded as their frames are (`aligned`); tagged
    `layout.meta.lcsm = {follows, current, signature}`. Where the current value is no member, the browser makes its
    frame from the drawing itself (`own_frame`). `current_fig` alone (untagged) when no member fits: that chart
    does not follow a drag. `groups`: the family's `group_outline`s when known (the web process keeps those, and
    the members without their frames); else made from `family`'s frames."""
    if groups is None:
        groups = [group_outline(g) for g in family_frames(family)]
    group = next((g for g in groups if same_signature(g, current)), None)
    members = [m for m in family if m["signature"] == current["signature"] and m["name"] != current["name"]]
    if group is None or not members or not fits(group, current):
        return current_fig
    own = aligned_to(current["frame"], group["counts"])
    layout = {**current_fig["layout"], "shapes": own["layout"]["shapes"], "annotations": own["layout"]["annotations"]}
    alike = [m for m in family if m["signature"] == current["signature"]]   # its group: itself where a member
    typical = typical_extents(alike)
    for key, span in fixed_ranges(alike, current, typical).items():
        layout[key] = {**layout[key], "range": span, "autorange": False}
    tag = {"follows": True, "current": current["name"], "signature": group["signature"]}
    ranged = runaway_axes(alike, typical)
    if ranged:            # its frames name these ranges: a frame of the drawing (a value off the grid) must too
        layout["title"] = noted(layout.get("title"), runaway_note(current["extents"], typical))
        tag["ranges"] = {key: layout[key]["range"] for key in ranged if (layout.get(key) or {}).get("range")}
        if any(at_left_edge(layout, key) for key in ranged):
            margin = dict(layout.get("margin") or {})
            layout["margin"] = {**margin, "l": max(margin.get("l", 0), RANGED_MARGIN)}
    layout["meta"] = {**(layout.get("meta") or {}), "lcsm": tag}
    fig = {key: value for key, value in current_fig.items() if key != "frames"}
    return {**fig, "layout": layout}


def at_left_edge(layout: dict, key: str) -> bool:
    """Whether `key` is a y axis whose tick labels sit in the left margin (its x axis starts at the figure's left
    edge): only those push the margin (an inner panel's labels lie between panels, an x axis's keep their height)."""
    spec = layout.get(key) or {}
    if not key.startswith("y") or spec.get("side") == "right":
        return False
    anchor = spec.get("anchor") or "x"
    domain = (layout.get(f"xaxis{anchor[1:]}") or {}).get("domain") or [0.0, 1.0]
    return domain[0] <= 0.01


def held_frames(fig: dict, family: list[dict]) -> dict:
    """`fig` (`preview_figure`'s) with the frames the instrument gives it in the browser: its family's frames of its
    trace signature and, where the current value is no member, its own (what tests check a drag against)."""
    tag = (fig["layout"].get("meta") or {}).get("lcsm") or {}
    if not tag.get("follows"):
        return fig
    group = next(g for g in family_frames(family) if g["signature"] == tag["signature"])
    names = [f["name"] for f in group["frames"]]
    return {**fig, "frames": group["frames"] + ([own_frame(fig, tag["current"])] if tag["current"] not in names
                                                 else [])}


def member_figure(fig: dict, frame: dict, name: str) -> dict:
    """`fig` (`preview_figure`'s, as the browser holds it) moved to the member `name` as its frame (`frame`, from
    the family as the browser holds it) moves it: each trace takes the frame's data; the layout its title, marks
    and the ranges it names; the tag says the member. What `instrument.js` draws a member's page from
    (`memberFigure`): tests/app/test_member_figure.py holds it equal to the page drawn at that member."""
    layout = dict(fig["layout"])
    data = [{**trace, **(frame["data"][n] if n < len(frame["data"]) else {})} for n, trace in enumerate(fig["data"])]
    for key, value in frame["layout"].items():
        layout[key] = {**(layout.get(key) or {}), **value} if AXIS_KEY.match(key) else value
    tag = dict(layout["meta"]["lcsm"], current=name)
    if tag.get("ranges"):
        tag["ranges"] = {key: layout[key]["range"] for key in tag["ranges"]}
    layout["meta"] = {**layout["meta"], "lcsm": tag}
    return {**fig, "data": data, "layout": layout}


def own_frame(fig: dict, name: str) -> dict:
    """The frame of the value `fig` is drawn at, made from the drawing (as `instrument.js` makes it in the browser
    for a value that is no member: its moving data and marks, nothing sent twice)."""
    ranges = ((fig["layout"].get("meta") or {}).get("lcsm") or {}).get("ranges") or {}   # as its frames name
    frame = moving_frame(plain_part(fig, PART_TRACE_KEYS, part_layout_key), name)   # a Figure: this much plain
    frame["layout"].update({key: {"range": span, "autorange": False} for key, span in ranges.items()})
    return frame


def constants(frames: list[dict]) -> dict:
    """(trace index, key) → the value that every frame has there (none with fewer than two frames)."""
    if len(frames) < 2:
        return {}
    return {(n, key): value for n, trace in enumerate(frames[0]["data"]) for key, value in trace.items()
            if all(n < len(f["data"]) and f["data"][n].get(key) == value for f in frames[1:])}


def fits(group: dict, current: dict) -> bool:
    """Whether the current drawing keeps what the group's frames leave out (their common data): a frame does not
    name it, so plotly keeps the drawn one, which must then be the family's."""
    data = current["frame"]["data"]
    return all(n < len(data) and data[n].get(key) == value for (n, key), value in group["constants"].items())


def aligned_to(frame: dict, counts: dict[str, int]) -> dict:
    """`frame` with as many shapes and notes as a frame of its group holds (`counts`; hidden ones added: `aligned`)."""
    layout = dict(frame["layout"])
    for key, count in counts.items():
        marks = [{**mark, "visible": mark.get("visible", True)} for mark in layout[key]]
        layout[key] = marks + [dict(visible=False)] * (count - len(marks))
    return {**frame, "layout": layout}


def moving_only(frames: list[dict]) -> list[dict]:
    """The frames without the trace data that is the same in every one of them (a time axis, a unit circle, a
    reference grid): plotly keeps a trace's data that a frame does not name, so it stays drawn as it is — and the
    page does not send it once per member."""
    same = set(constants(frames))
    if not same:
        return frames
    return [{**f, "data": [{key: value for key, value in trace.items() if (n, key) not in same}
                           for n, trace in enumerate(f["data"])]} for f in frames]


def aligned(frames: list[dict]) -> list[dict]:
    """The frames, each with as many shapes and notes as the one with the most (padded with hidden ones): plotly
    merges a frame's shapes and notes into the drawn ones item by item, so a divergence mark would otherwise
    stay on screen after dragging back to a value without one."""
    most = {key: max(len(f["layout"][key]) for f in frames) for key in ("shapes", "annotations")}
    out = []
    for frame in frames:
        layout = dict(frame["layout"])
        for key, count in most.items():
            marks = [{**mark, "visible": mark.get("visible", True)} for mark in layout[key]]
            layout[key] = marks + [dict(visible=False)] * (count - len(marks))
        out.append({**frame, "layout": layout})
    return out

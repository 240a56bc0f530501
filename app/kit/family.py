"""A preview family as the web process keeps it, made where its members are computed (the preview worker).

The members (`lcsm_explorer.app.kit.sweep.sweep_family`: every chart's frame of every member, as dicts) serve the web
process twice: as the instrument's family data (every chart's frames and every member's readouts and equations, one
JSON text the browser gets once per family) and, to draw each chart at the current value, through their outline
only — per member its
value, name, label and per chart its trace signature and axis extents; per chart and signature what every frame
shares (`constants`) and how many shapes and notes a frame holds (`sweep_figure.group_outline`). `prepared`
makes both from the members where they are computed: the web process then unpickles a text and a small outline
instead of the members and encodes nothing, on the request path of a held move.

tests/app/test_family.py checks the link's text against the members' frames and readouts, and every chart drawn
from the outline against the same chart drawn from the whole members (`sweep_figure.preview_figure`, both ways).
"""
from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass

from plotly.utils import PlotlyJSONEncoder

from .lesson import Lesson
from .sweep_figure import chart_family, family_frames, group_outline

OUTLINE_CHART = ("signature", "extents", "own_frames")      # what a member's chart keeps in the outline
OUTLINE_MEMBER = ("value", "name", "label", "order")
SHARED_CHARS = 64             # an array repeated (or started) in the family is sent once from this length (base64) on


@dataclass(frozen=True)
class Family:
    """One family of a page (`page`, `held` settings): its members' outline (`members`: `OUTLINE_MEMBER` and, by
    chart, `OUTLINE_CHART`), per following chart its frame groups' outlines (`groups`) and the instrument's family data
    (`link`: page, lead chart, `family_id`, `family` — the JSON text; see `lcsm_explorer.app.kit.instrument`)."""

    page: str
    held: tuple
    members: tuple[dict, ...]
    groups: dict[str, list[dict]]
    link: dict


def following(lesson: Lesson, family: list[dict], chart: str) -> bool:
    """Whether `chart` follows a drag: it is in the family (`Sweep.figures`) and has no animation of its own
    (▶ play) — the lead chart always does."""
    return bool(family) and (chart == lesson.sweep.chart or not any(m.get("own_frames") for m in family))


def prepared(lesson: Lesson, held: tuple, members: list[dict]) -> Family:
    """The family of `members` (page members, `sweep_figure.page_member`'s) as the web process keeps it."""
    groups, charts = {}, {}
    for chart in lesson.chart_names():
        family = chart_family(members, chart)
        if not family:
            continue
        frames = family_frames(family)
        groups[chart] = [group_outline(group) for group in frames]
        if following(lesson, family, chart):
            charts[chart] = [{key: group[key] for key in ("signature", "frames")} for group in frames]
    charts, arrays = shared_arrays(charts)
    readouts = {m["name"]: m["readouts"] for m in members}
    text = encoded({"charts": charts, "readouts": readouts, "arrays": arrays})
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]       # SHA-256 is hardware-assisted: half blake2b's time
    outline = tuple({**{key: m[key] for key in OUTLINE_MEMBER},
                     "charts": {chart: {key: part[key] for key in OUTLINE_CHART}
                                for chart, part in m["charts"].items()}} for m in members)
    link = dict(page=lesson.page, lead=lesson.sweep.chart, family_id=digest, family=text)
    return Family(lesson.page, held, outline, groups, link)


def shared_arrays(charts: dict[str, list[dict]]) -> tuple[dict[str, list[dict]], list[dict]]:
    """`charts` (chart → frame groups) with each typed array (`{"dtype", "bdata"}`) sent once where the family holds
    it more than once: in the returned list, named where it occurs `{"ref": n}` — or `{"ref": n, "length": k}`, its
    first k values, where a one-dimensional array is the start of a longer one of its type. `instrument.js` puts a
    copy back in each place on arrival (`resolved` is that, in Python). The z-plane and its zoom draw the same traces
    and members that share a time axis repeat it (discretize's family); a training cut at each
    member's step draws the start of the longest run's curves (LRU stability's loss and paths). New containers:
    the members' frames are not changed."""
    count: dict[tuple, int] = {}
    for frame in _frames(charts):
        for trace in frame["data"]:
            for value in trace.values():
                if _typed(value):
                    key = _array_key(value)
                    count[key] = count.get(key, 0) + 1
    starts = _starts(list(count))
    rooted = {root for root, _ in starts.values()}
    roots = [key for key, times in count.items() if (times > 1 and key not in starts) or key in rooted]
    index = {key: n for n, key in enumerate(roots)}
    if not index and not starts:
        return charts, []

    def swapped(value):
        if not _typed(value):
            return value
        key = _array_key(value)
        if key in index:
            return {"ref": index[key]}
        if key in starts:
            root, length = starts[key]
            return {"ref": index[root], "length": length}
        return value
    out = {chart: [{**group, "frames": [{**frame, "data": [{key: swapped(value) for key, value in trace.items()}
                                                          for trace in frame["data"]]} for frame in group["frames"]]}
                   for group in groups] for chart, groups in charts.items()}
    arrays = [{"dtype": dtype, "bdata": bdata, **({"shape": shape} if shape is not None else {})}
              for dtype, bdata, shape in roots]
    return out, arrays


PREFIX_TYPES = {"f8": 8, "f4": 4, "i4": 4, "u4": 4, "i2": 2, "u2": 2, "i1": 1, "u1": 1}   # chart_words.js: TYPED
PREFIX_BYTES = 8        # arrays that start alike in these many bytes are compared whole


def _starts(keys: list[tuple]) -> dict[tuple, tuple[tuple, int]]:
    """Each one-dimensional array (by `_array_key`) that is the start of a longer one of its type → (the longest
    such array, its own length in values)."""
    candidates: dict[tuple, list[tuple[bytes, tuple]]] = {}
    for key in keys:
        dtype, bdata, shape = key
        if shape is None and dtype in PREFIX_TYPES:
            raw = base64.b64decode(bdata)
            if len(raw) >= PREFIX_BYTES:
                candidates.setdefault((dtype, raw[:PREFIX_BYTES]), []).append((raw, key))
    found = {}
    for (dtype, _), alike in candidates.items():
        alike.sort(key=lambda item: -len(item[0]))
        longest: list[tuple[bytes, tuple]] = []            # arrays that start no longer one
        for raw, key in alike:
            root = next((k for r, k in longest if len(r) > len(raw) and r.startswith(raw)), None)
            if root is None:
                longest.append((raw, key))
            else:
                found[key] = (root, len(raw) // PREFIX_TYPES[dtype])
    return found


def resolved(text: str) -> dict:
    """The link's family text as the browser holds it once `instrument.js` has put each shared array back."""
    family = json.loads(text)
    arrays = family.pop("arrays", [])
    for frame in _frames(family["charts"]):
        for trace in frame["data"]:
            for key, value in trace.items():
                if isinstance(value, dict) and "ref" in value and set(value) <= {"ref", "length"}:
                    whole = arrays[value["ref"]]
                    if "length" in value:
                        size = PREFIX_TYPES[whole["dtype"]] * value["length"]
                        start = base64.b64decode(whole["bdata"])[:size]
                        trace[key] = {"dtype": whole["dtype"], "bdata": base64.b64encode(start).decode("ascii")}
                    else:
                        trace[key] = dict(whole)
    return family


def _frames(charts: dict):
    return (frame for groups in charts.values() for group in groups for frame in group["frames"])


def _typed(value) -> bool:
    return isinstance(value, dict) and isinstance(value.get("bdata"), str) and len(value["bdata"]) >= SHARED_CHARS


def _array_key(value: dict) -> tuple:
    return value["dtype"], value["bdata"], value.get("shape")


def empty(lesson: Lesson, held: tuple) -> Family:
    """A family with no member (its computation failed): the page draws its plain charts and asks no more."""
    return prepared(lesson, held, [])


def encoded(value) -> str:
    """`value` as JSON text the way plotly writes a figure (NaN and ±Infinity as null, numpy values as numbers,
    compact separators). Plotly's encoder decodes and encodes its text again wherever "NaN" occurs in it, as
    base64 array data often spells it; written strictly first, the text is the same and
    that second pass is left to a family that holds a NaN."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False, default=_PLOTLY.default)
    except ValueError:                                     # a NaN or an infinity: plotly's way, null
        return json.dumps(value, cls=PlotlyJSONEncoder, separators=(",", ":"))


_PLOTLY = PlotlyJSONEncoder()


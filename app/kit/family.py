"""A preview family as the web process keeps it, made where its members are computed (the preview worker).

The members (`app.kit.sweep.sweep_family`: every chart's frame of every member, 0.4–2 MiB of dicts) serve the web
process twice: as the page link's data (every chart's frames and every member's readouts, one JSON text the browser
gets once per family) and, to draw each chart at the current value, through their outline only — per member its
value, name, label and per chart its trace signature and axis extents; per chart and signature what every frame
shares (`constants`) and how many shapes and notes a frame holds (`sweep_figure.group_outline`). `prepared`
makes both from the members where they are computed: the web process then unpickles a text and a small outline
instead of the members and encodes nothing, on the request path of a held move (issue 19 item 2).

tests/app/test_family.py checks the link's text against the members' frames and readouts, and every chart drawn
from the outline against the same chart drawn from the whole members (`sweep_figure.preview_figure`, both ways).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from plotly.utils import PlotlyJSONEncoder

from .lesson import Lesson
from .sweep_figure import chart_family, family_frames, group_outline

OUTLINE_CHART = ("signature", "extents", "own_frames")      # what a member's chart keeps in the outline
OUTLINE_MEMBER = ("value", "name", "label", "order")


@dataclass(frozen=True)
class Family:
    """One family of a page (`page`, `held` settings): its members' outline (`members`: `OUTLINE_MEMBER` and, by
    chart, `OUTLINE_CHART`), per following chart its frame groups' outlines (`groups`) and the page link's data
    (`link`: page, lead chart, `family_id`, `family` — the JSON text; see `app.kit.page_link`)."""

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
    text = encoded({"charts": charts, "readouts": {m["name"]: m["readouts"] for m in members}})
    digest = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    outline = tuple({**{key: m[key] for key in OUTLINE_MEMBER},
                     "charts": {chart: {key: part[key] for key in OUTLINE_CHART}
                                for chart, part in m["charts"].items()}} for m in members)
    link = dict(page=lesson.page, lead=lesson.sweep.chart, family_id=digest, family=text)
    return Family(lesson.page, held, outline, groups, link)


def empty(lesson: Lesson, held: tuple) -> Family:
    """A family with no member (its computation failed): the page draws its plain charts and asks no more."""
    return prepared(lesson, held, [])


def encoded(value) -> str:
    """`value` as JSON text the way plotly writes a figure (NaN and ±Infinity as null, numpy values as numbers,
    compact separators). Plotly's encoder decodes and encodes its text again wherever "NaN" occurs in it, as
    base64 array data often spells it (3 of spring's 6 ms); written strictly first, the text is the same and
    that second pass is left to a family that holds a NaN."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False, default=_PLOTLY.default)
    except ValueError:                                     # a NaN or an infinity: plotly's way, null
        return json.dumps(value, cls=PlotlyJSONEncoder, separators=(",", ":"))


_PLOTLY = PlotlyJSONEncoder()


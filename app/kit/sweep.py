"""The family a `Lesson.sweep` previews: the whole page at a few values of one setting, the others held — pure.

Every member goes through the page's own `compute` (or `Sweep.compute_many`, one core call for the family),
`figures` and `metrics`, so a frame shows exactly what the page draws once the slider is released at that
value, chart by chart, and the readouts are the page's own text (tests/app/test_sweep.py). The preview pool
computes a family off the request path and the renderer caches it on the page and the held settings
(`lcsm_explorer.app.kit.preview`): dragging the swept slider itself costs no new member.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .chart_element import PlainFigure, Refiller, plain_figure, plain_part  # noqa: F401 (pages: `Sweep.figures`)
from .chart_text import chart_text
from .lesson import Lesson, Sweep
from .page_text import chart_notes, page_text
from .settings import Setting
from .sweep_figure import PART_TRACE_KEYS, page_member, part_layout_key

MAX_FRAMES = 25        # the cost bound: moving a held setting recomputes every member (compute + the figures)


def sweep_values(setting: Setting, sweep: Sweep, values: dict) -> list:
    """The members' values: the declared ones, a choice's options, or `points` over the range on its step grid."""
    if sweep.values:
        grid = list(sweep.values)
    elif setting.kind == "choice":
        grid = list(setting.options)
    else:
        high = setting.upper(values)
        grid = np.linspace(setting.low, high, sweep.points)
        if setting.step:                                 # the slider's own positions (0.25, not 0.2497)
            grid = setting.low + np.round((grid - setting.low) / setting.step) * setting.step
        grid = [int(round(x)) if setting.kind == "int" else round(float(x), 10) for x in grid]
    found = []
    for value in grid:
        if setting.valid(value) and value not in found and (setting.kind != "float" or value <= setting.upper(values)):
            found.append(value)
    return found[:MAX_FRAMES]


def page_at(lesson: Lesson, values: dict, result: Any) -> tuple[dict[str, Any], dict]:
    """Every chart a drag moves (`Sweep.figures`, else every chart of the page; Figures or plain figure dicts:
    `sweep_figure.chart_part` makes plain only what a member keeps) and the page's readouts, drawn from `result`
    at `values`, with those charts' text alternatives (`charts`: the summary and data tables)."""
    figures, text, notes = unworded_page(lesson, values, result)
    return figures, {**text, "charts": {name: chart_text(fig, notes.get(name, ""), name)
                                        for name, fig in figures.items()}}


def unworded_page(lesson: Lesson, values: dict, result: Any) -> tuple[dict[str, Any], dict, dict[str, str]]:
    """`page_at` without the charts' text alternatives: the figures (plain), the readouts and each chart's note
    (what its words are made from)."""
    draw = lesson.sweep.figures if lesson.sweep is not None and lesson.sweep.figures is not None else lesson.figures
    figures = {name: plain_part(fig, PART_TRACE_KEYS, part_layout_key) for name, fig in draw(values, result).items()}
    text = page_text(lesson, values, result)
    return figures, text, chart_notes(lesson, values, result, text["metrics"])


def sweep_member(lesson: Lesson, held: dict, value: Any, result: Any = None, results: dict | None = None
                 ) -> dict | None:
    """The member at `value` of the swept setting, `held` fixing the others (`result`: its compute, when known);
    None where the core refuses it (the renderer says so for the current value; the preview has no frame there).
    `results`, when given, receives the compute result under `value`.

    A member carries its charts' frames and its readouts, with each chart's note (`notes`: the lesson's words on
    what matters in it at that value), not the charts' words: the browser makes those from the frame it shows
    (`chart_words.js`, tested equal to `chart_text`), so a held move's family costs the server no words."""
    setting = lesson.settings[lesson.sweep.setting]
    values = {**held, setting.name: value}
    if result is None:
        try:
            result = lesson.compute(values)
        except ValueError:
            return None
    if results is not None:
        results[value] = result
    figures, text, notes = unworded_page(lesson, values, result)
    return page_member(setting, value, figures, {**text, "notes": {k: v for k, v in notes.items() if v}})


def sweep_family(lesson: Lesson, held: dict, results: dict | None = None) -> list[dict]:
    """One member per value of the swept setting (`sweep_values`), in order. `results`, when given, receives each
    member's compute result by its value (the preview worker sends them back: a release on a member's value then
    finds the page computed)."""
    setting = lesson.settings[lesson.sweep.setting]
    values = sweep_values(setting, lesson.sweep, held)
    if lesson.sweep.compute_many is None:
        members = (sweep_member(lesson, held, value, None, results) for value in values)
    else:                                                # one core call for the whole family
        computed = lesson.sweep.compute_many(held, values)
        members = (sweep_member(lesson, held, value, result, results)
                   for value, result in zip(values, computed) if result is not None)
    return shared_values([m for m in members if m is not None])


def shared_values(members: list[dict]) -> list[dict]:
    """`members` with each frame's trace data that equals the first member's (a time axis, a heat map that does not
    move with the swept setting) made the first member's object: the family is pickled from the worker with it once
    (pickle writes a shared object once) and compared in no time in the web
    process (`sweep_figure.constants`). Members are never changed after this: sharing is safe."""
    if len(members) < 2:
        return members
    first = members[0]["charts"]
    for m in members[1:]:
        for chart, part in m["charts"].items():
            model = first.get(chart)
            if model is None or model["signature"] != part["signature"]:
                continue
            for trace, like in zip(part["frame"]["data"], model["frame"]["data"]):
                for key, value in trace.items():
                    same = like.get(key)
                    if same is not None and same is not value and type(same) is type(value) and same == value:
                        trace[key] = same
    return members

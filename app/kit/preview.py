"""A lesson's drag-to-preview chart on the page (`Lesson.sweep`), without holding the page up.

Each member of the family (one compute + one figure, `app.kit.sweep`) is cached on (page, the other
settings, its value): moving the swept slider, or any rerun at known settings, draws the preview in place
at once. A family not computed yet (first visit, or another setting moved) would hold up everything below
the chart for a second, so the plain chart is drawn in its place and the preview replaces it once the rest
of the page is out (`render_lesson` calls what `draw_swept_chart` returns last). Between two members an
empty element is redrawn: that is where Streamlit stops a run when a newer one is asked for, so a slider
released meanwhile is not kept waiting for a family it no longer needs (the members done stay cached).
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

import streamlit as st

from .cache import cached
from .lesson import Lesson
from .sweep import sweep_member, sweep_values
from .sweep_figure import member, preview_figure
from .widgets import show_chart

_FAMILIES: dict[tuple, None] = {}     # (page, held settings) of the families completed in this process, oldest first
_REMEMBERED = 256                     # a family forgotten here, or dropped by the cache, is only recomputed
_LOCK = threading.Lock()              # sessions run in threads of one process


def draw_swept_chart(lesson: Lesson, frozen: tuple, current: dict, filename: str, container) -> Callable | None:
    """The sweep's chart in `container`: the preview now when its family is known, else the plain `current`
    figure now and, returned, the function that puts the preview in its place."""
    slot = container.empty()
    known = (lesson.page, held_settings(lesson, frozen)) in _FAMILIES

    def finish(family: Callable[[], list]) -> None:
        show_chart(previewed(lesson.page, frozen, lesson, current, family), filename, container=slot)

    if known:                                  # every member cached: gathered only if the preview itself is not
        finish(partial(swept_family, lesson, frozen, lambda: None))
        return None
    show_chart(current, filename, container=slot, key=f"chart.{filename}.plain")

    def later() -> None:                       # the ticking stays outside the caches (they replay elements)
        members = swept_family(lesson, frozen, st.empty().empty)
        finish(lambda: members)
    return later


def held_settings(lesson: Lesson, frozen: tuple) -> tuple:
    return tuple(item for item in frozen if item[0] != lesson.sweep.setting)


@cached(max_entries=64)
def previewed(page: str, frozen: tuple, _lesson: Lesson, _current: dict, _family: Callable[[], list]) -> dict:
    """The chart at these settings (`_current`, the renderer's cached figure for them) with its family."""
    setting = _lesson.settings[_lesson.sweep.setting]
    return preview_figure(_current, member(setting, dict(frozen)[setting.name], _current), _family(), setting.label)


def swept_family(lesson: Lesson, frozen: tuple, between: Callable[[], None]) -> list[dict]:
    """Every member for these held settings, calling `between` before each (cached ones cost no compute)."""
    held = held_settings(lesson, frozen)
    family = []
    for value in sweep_values(lesson.settings[lesson.sweep.setting], lesson.sweep, dict(held)):
        between()
        found = swept_member(lesson.page, held, value, lesson)
        if found is not None:
            family.append(found)
    with _LOCK:
        _FAMILIES[(lesson.page, held)] = None
        while len(_FAMILIES) > _REMEMBERED:
            del _FAMILIES[next(iter(_FAMILIES))]
    return family


@cached(max_entries=1024)
def swept_member(page: str, held: tuple, value, _lesson: Lesson) -> dict | None:
    return sweep_member(_lesson, dict(held), value)

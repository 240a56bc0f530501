"""A lesson's drag-to-preview chart on the page (`Lesson.sweep`), without holding the page up.

The family (one compute + one figure per frame, `app.kit.sweep`) is cached on (page, the other settings):
moving the swept slider, or any rerun at known settings, draws the preview in place at once. A family not
computed yet (first visit, or another setting moved) would hold up everything below the chart for a
second, so the plain chart is drawn in its place and the preview replaces it once the rest of the page is
out (`render_lesson` calls what `draw_swept_chart` returns last).
"""
from __future__ import annotations

import threading
from collections.abc import Callable

from .cache import cached
from .lesson import Lesson
from .sweep import sweep_family
from .sweep_figure import member, preview_figure
from .widgets import show_chart

_FAMILIES: dict[tuple, None] = {}     # (page, held settings) of the families computed in this process, oldest first
_REMEMBERED = 256                     # more than the cache keeps: a forgotten one is only recomputed in place
_LOCK = threading.Lock()              # sessions run in threads of one process


def draw_swept_chart(lesson: Lesson, frozen: tuple, current: dict, filename: str, container) -> Callable | None:
    """The sweep's chart in `container`: the preview now when its family is known, else the plain `current`
    figure now and, returned, the function that puts the preview in its place."""
    slot = container.empty()
    held = held_settings(lesson, frozen)

    def finish() -> None:
        show_chart(previewed(lesson.page, frozen, lesson, current), filename, container=slot)

    if (lesson.page, held) in _FAMILIES:
        finish()
        return None
    show_chart(current, filename, container=slot, key=f"chart.{filename}.plain")
    return finish


def held_settings(lesson: Lesson, frozen: tuple) -> tuple:
    return tuple(item for item in frozen if item[0] != lesson.sweep.setting)


@cached(max_entries=64)
def previewed(page: str, frozen: tuple, _lesson: Lesson, _current: dict) -> dict:
    """The chart at these settings (`_current`, the renderer's cached figure for them) with its family."""
    setting = _lesson.settings[_lesson.sweep.setting]
    family = swept_family(page, held_settings(_lesson, frozen), _lesson)
    return preview_figure(_current, member(setting, dict(frozen)[setting.name], _current), family, setting.label)


@cached(max_entries=32)
def swept_family(page: str, held: tuple, _lesson: Lesson) -> list[dict]:
    family = sweep_family(_lesson, dict(held))
    with _LOCK:
        _FAMILIES[(page, held)] = None
        while len(_FAMILIES) > _REMEMBERED:
            del _FAMILIES[next(iter(_FAMILIES))]
    return family

"""`render_lesson(lesson)`: the one function that draws every lesson page from its declaration.

Order on the page: title and objectives, lesson notes, (sidebar: widgets, presets), metrics and
notices, the panel, the charts (with any in-page widgets at their place), the live equations,
the caption, the live fragment, the exercises. Settings travel in the URL both ways.

One cache convention: `compute` is cached on (page, settings), and so are the finished figures
(as plain dicts: a rerun with known settings costs a few ms per chart, not a plotly validation).
"""
from __future__ import annotations

import streamlit as st

from .cache import cached
from .lesson import Lesson
from .lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro
from .url_state import load_settings, save_settings
from .widgets import draw_setting, draw_sidebar_settings, preset_buttons, show_chart, show_readout


def render_lesson(lesson: Lesson) -> None:
    text = cached_lesson(lesson.page, fallback_title=f"{lesson.icon} {lesson.title}")
    lesson_intro(text)
    lesson_body(text)
    spec = lesson.settings
    load_settings(spec)
    values = save_settings(spec)
    with st.sidebar:
        if lesson.sidebar_title:
            st.header(lesson.sidebar_title)
        draw_sidebar_settings(spec, values)
        if lesson.presets:
            preset_buttons(spec, lesson.presets)

    quantities: dict[str, float] = {}
    if lesson.compute is not None:
        frozen = freeze(values)
        try:
            result = computed(lesson.page, frozen, lesson)
        except ValueError as err:                       # the core's message for settings it cannot run
            st.error(f"These settings cannot be computed: {err}", icon="🚫")
            result = None
        if result is not None:
            quantities = draw_result(lesson, values, frozen, result)
    if lesson.live is not None:
        quantities.update(lesson.live(values))
    lesson_exercises(text, quantities)


def draw_result(lesson: Lesson, values: dict, frozen: tuple, result) -> dict[str, float]:
    if lesson.metrics is not None:
        show_readout(lesson.metrics(values, result))
    if lesson.panel is not None:
        lesson.panel(values, result)
    figures = drawn_figures(lesson.page, frozen, lesson) if lesson.figures is not None else {}
    for row in lesson.charts:
        if isinstance(row, str):                        # an in-page widget (e.g. the step t of a snapshot)
            draw_setting(lesson.settings[row], lesson.settings.key(row), values)
            continue
        for column, name in zip(st.columns(len(row)), row):
            show_chart(figures[name], f"{lesson.page}-{name}", container=column)
    quantities = lesson.quantities(values, result) if lesson.quantities is not None else {}
    if lesson.equations is not None:
        for line in lesson.equations(quantities):
            st.latex(line)
    if lesson.caption:
        st.caption(lesson.caption)
    return quantities


def freeze(values: dict) -> tuple:
    """The settings as a hashable cache key."""
    return tuple(sorted(values.items()))


@cached
def computed(page: str, frozen: tuple, _lesson: Lesson):
    return _lesson.compute(dict(frozen))


@cached
def drawn_figures(page: str, frozen: tuple, _lesson: Lesson) -> dict[str, dict]:
    result = computed(page, frozen, _lesson)
    return {name: fig.to_dict() for name, fig in _lesson.figures(dict(frozen), result).items()}

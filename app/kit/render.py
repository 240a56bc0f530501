"""`render_lesson(lesson)`: the one function that draws every lesson page from its declaration.

Order on the page: title and objectives, lesson notes, (sidebar: widgets, presets), metrics and
notices, the panel, the charts (with any in-page widgets at their place), the live equations,
the caption, the live fragment, the exercises, the challenges (a teacher link's `?challenge=N` draws that one
at the top instead), and this tab's score (sidebar; a caption at the bottom in the presenter view).
A dynamics lesson (one with a `sweep`) is drawn as one lesson instrument instead (`app/kit/instrument_page.py`):
title, its story folded, the instrument (controls, presets, readouts, every chart, the live equations), its try-this
steps, then exercises and challenges as above; its sidebar holds the teacher link and the score only. A committed
move there reruns the instrument's fragment alone.
Settings travel in the URL both ways.

One cache convention (`lcsm_explorer.app.kit.cache`, bounded by bytes, shared by every session): `compute` is cached on
(page, settings), and so are the finished charts, as the JSON specs the browser receives (`ChartSpec`: a rerun
with known settings re-sends a string, no plotly object is made). On a page with a `sweep`, every chart is
drawn with the family as frames and the instrument moves them all, with the readouts and equations, during a
drag (drag to preview, `lcsm_explorer.app.kit.preview`); a family not cached yet is computed off the request path, the
instrument drawn without it until then.
"""
from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from .announce import announce_readouts
from .block_view import draw_blocks
from .chart_controls import draw_chart_controls, presenter_controls, recover_preset_pick
from .classroom import ClassroomView, current_view, presenter_style, share_panel
from .instrument import settings_controlled
from .instrument_page import instrument_page, snippet_panel
from .layout import presenter_columns
from .lesson import Lesson
from .lesson_view import (
    cached_lesson,
    every_lesson_progress,
    files_stamp,
    lesson_challenges,
    lesson_exercises,
    lesson_intro,
)
from .live_lesson import render_live
from .page_charts import chart_specs, computed, freeze, plain_charts  # noqa: F401  (the renderer's names)
from .page_text import stacked
from .progress import new_learner_markdown, score_keeper, score_line
from .reading_order import draw_steps, folded_notes, next_lesson, steps_by_chart, story
from .url_state import load_settings, save_settings
from .widgets import PRESENTING_KEY, draw_setting, draw_sidebar_settings, preset_buttons, show_chart, show_readout


def render_lesson(lesson: Lesson) -> None:
    stamp = files_stamp()                               # the lesson files looked at once per run (text, link, score)
    text = cached_lesson(lesson.page, fallback_title=f"{lesson.icon} {lesson.title}", stamp=stamp)
    lesson_intro(text)
    spec = lesson.settings
    view = current_view(spec, challenges=len(text.challenges))
    linked_challenge = None if view.present else st.container()   # a teacher link's challenge, filled once graded
    steps = steps_by_chart(text, lesson)                # the reading order: each try-this step under its chart
    if settings_controlled(lesson):                     # a dynamics lesson: one instrument holds its settings
        run, score = instrument_page(lesson, text, view, steps)
        quantities = run.quantities
        if view.present:                                # a projector: the linked challenge under the instrument
            linked_challenge = st.container()
    else:
        quantities, score, linked_challenge = widget_page(lesson, text, view, steps, linked_challenge)
    lesson_exercises(text, quantities)
    lesson_challenges(text, quantities, focus=view.challenge, top=linked_challenge)
    next_lesson(lesson.page, stamp)
    if view.present:
        score = st.empty()
    show_score(score, text, present=view.present, stamp=stamp)
    if settings_controlled(lesson):
        run.page_drawn = True                           # from now on the instrument's fragment reruns alone


def widget_page(lesson: Lesson, text, view: ClassroomView, steps: dict, linked_challenge):
    """A page of Streamlit widgets (no instrument) above its exercises: (quantities, the score's slot, the linked
    challenge's slot)."""
    spec = lesson.settings
    story(text, steps, view.present)
    recover_preset_pick(lesson, view)                   # a reconnected tab's first event: a pill with the chart
    load_settings(spec)
    values = save_settings(spec)
    st.session_state[PRESENTING_KEY] = view.present
    controls = stage = score = None
    if view.present:                                    # a projector: the controls beside the charts, no sidebar
        presenter_style()
        controls, stage = presenter_columns()
        with controls:
            if lesson.chart_controls:                   # the main chart's few first, the rest folded
                presenter_controls(lesson, values, view)
            else:
                draw_sidebar_settings(spec, values, view)
    else:
        with st.sidebar:                                # the controls first: above the fold at 1280×720
            if lesson.sidebar_title:
                st.header(lesson.sidebar_title)
            draw_sidebar_settings(spec, values, view)
            if lesson.presets and view.shown is None and not view.lock:
                preset_buttons(spec, lesson.presets)
            share_panel(spec, values, tuple(c.title for c in text.challenges))
            score = st.empty()

    quantities: dict[str, float] = {}
    with stage if stage is not None else nullcontext():   # the presenter view: right of the controls
        if lesson.compute is not None:
            frozen = freeze(values)
            try:
                result = computed(lesson.page, frozen, lesson)
            except ValueError as err:                   # the core's message for settings it cannot run
                st.error(f"These settings cannot be computed: {err}", icon="🚫")
                result = None
            if result is not None:
                quantities = draw_result(lesson, values, frozen, result, view, steps, readout=controls)
        if lesson.live is not None:
            quantities.update(render_live(lesson, values, view))
        if view.present:                                # a projector: the linked challenge under the charts, so
            linked_challenge = st.container()           # the main chart shares the first screen with the controls
    if view.present:
        folded_notes(text, steps)
    if lesson.snippet is not None and not view.present:
        snippet_panel(lesson, values)
    return quantities, score, linked_challenge


def show_score(slot, text, present: bool, stamp: int | None = None) -> None:
    """The learner's score across lessons (drawn last, so a Check pressed in this run counts), and on a browser with
    its identity, the way to start as a new learner on a shared computer."""
    rows = every_lesson_progress(stamp)
    here = next((r for r in rows if r.page == text.page), None)
    if present:
        slot.caption(score_line(rows))
        return
    lines = [f"**Your score in {score_keeper()}**  \n{score_line(rows)}"]
    if here is not None and here.readable:
        lines.append(f"This lesson: {here.challenges_solved} of {here.challenges} challenges · "
                     f"{here.exercises_solved} of {here.exercises} exercises")
    new_learner = new_learner_markdown(f"/{text.page}")
    slot.markdown("  \n".join(lines + ([new_learner] if new_learner else [])))


def draw_result(lesson: Lesson, values: dict, frozen: tuple, result, view: ClassroomView,
                steps: dict | None = None, readout=None) -> dict[str, float]:
    """Metrics, panel, charts, equations and caption; `steps` (chart → its try-this steps) drawn under their
    charts; the metrics in `readout` when given (the presenter view's controls column)."""
    if lesson.metrics is not None:
        items = lesson.metrics(values, result)
        with (readout or st).container():
            show_readout(items)
            announce_readouts(lesson.page, values, items)
    if not lesson.charts:                               # a page without charts: its controls under its readouts
        draw_chart_controls(lesson, values, view)
    if lesson.panel is not None:
        draw_blocks(lesson.panel(values, result))
    figures = chart_specs(lesson.page, frozen, view.present, lesson) if lesson.figures is not None else {}
    for row in lesson.charts:
        if isinstance(row, str):                        # an in-page widget (e.g. the step t of a snapshot)
            if view.drawn(row):
                draw_setting(lesson.settings[row], lesson.settings.key(row), values, disabled=not view.editable(row))
            continue
        for column, name in zip(st.columns(len(row)), row):
            show_chart(figures[name], f"{lesson.page}-{name}", container=column)
            if name == lesson.chart_names()[0]:         # on a phone, the main chart's controls sit under it
                with column:
                    draw_chart_controls(lesson, values, view)
            draw_steps((steps or {}).get(name, ()), column)
    quantities = lesson.quantities(values, result) if lesson.quantities is not None else {}
    if lesson.equations is not None:
        for line in lesson.equations(quantities):
            st.latex(stacked(line))
    if lesson.caption:
        st.caption(lesson.caption)
    return quantities

"""`render_lesson(lesson)`: the one function that draws every lesson page from its declaration.

Order on the page: title and objectives, lesson notes, (sidebar: widgets, presets), metrics and
notices, the panel, the charts (with any in-page widgets at their place), the live equations,
the caption, the live fragment, the exercises, the challenges (a teacher link's `?challenge=N` draws that one
at the top instead), and this tab's score (sidebar; a caption at the bottom in the presenter view).
A dynamics lesson (one with a `sweep`) is drawn as one lesson instrument instead (`app/kit/instrument.py`): title,
its story folded, the instrument (controls, presets, readouts, every chart, the live equations), its try-this
steps, then exercises and challenges as above; its sidebar holds the teacher link and the score only.
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
from .cache import cached
from .chart_controls import draw_chart_controls, presenter_controls, recover_preset_pick
from .classroom import ClassroomView, current_view, presenter_style, share_panel
from .instrument import mount, recover_commit, settings_controlled
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
from .page_text import page_text, stacked
from .preview import await_family, family_first, inline_family, page_preview, pool, waited_preview
from .progress import new_learner_markdown, score_keeper, score_line
from .reading_order import draw_steps, folded_notes, folded_story, next_lesson, steps_by_chart, story
from .snippet import snippet_filename, snippet_script
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
    instrument = settings_controlled(lesson)            # a dynamics lesson: one instrument holds its settings
    if instrument:
        folded_story(text, steps)
        recover_commit(lesson, view)                    # a reconnected tab's first event: a move in the instrument
    else:
        story(text, steps, view.present)
        recover_preset_pick(lesson, view)               # a reconnected tab's first event: a pill with the chart
    load_settings(spec)
    values = save_settings(spec)
    st.session_state[PRESENTING_KEY] = view.present
    controls = stage = None
    if instrument:                                      # its settings, presets and readouts are in the instrument
        if view.present:
            presenter_style()
        else:
            with st.sidebar:
                share_panel(spec, values, tuple(c.title for c in text.challenges))
                score = st.empty()
    elif view.present:                                  # a projector: the controls beside the charts, no sidebar
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
    pending: list = []                                  # previews to finish once the page is out
    with stage if stage is not None else nullcontext():   # the presenter view: right of the controls
        if lesson.compute is not None:
            frozen = freeze(values)
            if previews(lesson, view):                  # a held move's family first: it brings the page's result
                family_first(lesson, frozen)
            try:
                result = computed(lesson.page, frozen, lesson)
            except ValueError as err:                   # the core's message for settings it cannot run
                st.error(f"These settings cannot be computed: {err}", icon="🚫")
                result = None
            if result is not None:
                quantities = draw_result(lesson, values, frozen, result, view, pending, steps, readout=controls)
        if lesson.live is not None:
            quantities.update(render_live(lesson, values, view))
        if view.present:                                # a projector: the linked challenge under the charts, so
            linked_challenge = st.container()           # the main chart shares the first screen with the controls
    if view.present and not instrument:
        folded_notes(text, steps)
    if lesson.snippet is not None and not view.present:
        snippet_panel(lesson, values)
    lesson_exercises(text, quantities)
    lesson_challenges(text, quantities, focus=view.challenge, top=linked_challenge)
    next_lesson(lesson.page, stamp)
    if view.present:
        score = st.empty()
    show_score(score, text, present=view.present, stamp=stamp)
    for finish in filter(None, pending):                # LCSM_PREVIEW_WORKERS=0: the new families, page drawn
        finish()


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


def snippet_panel(lesson: Lesson, values: dict) -> None:
    """The page at these settings as a short lcsm_core script, to read, copy or download."""
    with st.expander("🐍 Reproduce these numbers in Python"):
        script = snippet_script(lesson, values)
        st.code(script, language="python", wrap_lines=True)     # a phone wraps it: the page never scrolls sideways
        st.download_button("⬇️ Download the script", script, file_name=snippet_filename(lesson),
                           mime="text/x-python", key=f"{lesson.page}.snippet.download")


def draw_result(lesson: Lesson, values: dict, frozen: tuple, result, view: ClassroomView,
                pending: list, steps: dict | None = None, readout=None) -> dict[str, float]:
    """Metrics, panel, charts, equations and caption; a preview whose family is new goes on `pending`; `steps`
    (chart → its try-this steps) drawn under their charts; the metrics in `readout` when given (the presenter
    view's controls column)."""
    if settings_controlled(lesson):
        return draw_instrument(lesson, values, frozen, result, view, pending, steps)
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


def draw_instrument(lesson: Lesson, values: dict, frozen: tuple, result, view: ClassroomView, pending: list,
                    steps: dict | None = None) -> dict[str, float]:
    """A dynamics lesson: its controls, charts, readouts and equations as one instrument (`app/kit/instrument.py`),
    the drag preview's family with it once computed (a held move waits `family_wait_s` for it, then the page polls
    for it); its try-this steps in reading order, and its caption under it."""
    swept = previews(lesson, view)
    preview = page_preview(lesson, frozen, view.present) if swept else None
    if swept and preview is None:                       # a held move: its new family, if it comes in time
        preview = waited_preview(lesson, frozen, view.present)
    figures = preview.charts if preview is not None else chart_specs(lesson.page, frozen, view.present, lesson)
    text = page_texts(lesson.page, frozen, lesson)
    if swept and preview is None and pool() is None:    # LCSM_PREVIEW_WORKERS=0: drawn once its family is in
        pending.append(inline_family(lesson, frozen, view, st.empty(), values, text))
    else:                    # at the same place in every run: Streamlit then updates the element, never re-mounts it
        mount(lesson, values, view, figures, text, preview.family if preview is not None else None)
        if swept and preview is None:
            await_family(lesson, frozen)                # asked for; a poll under the instrument reruns once it is in
    draw_steps(chart_steps(steps or {}))
    if lesson.caption:
        st.caption(lesson.caption)
    return lesson.quantities(values, result) if lesson.quantities is not None else {}


def chart_steps(steps: dict) -> list:
    """Every try-this step, in reading order (they sit under the instrument, not under each chart)."""
    return sorted((item for placed in steps.values() for item in placed), key=lambda item: item[0])


@cached
def page_texts(page: str, frozen: tuple, _lesson: Lesson) -> dict:
    """The page's readouts and equations at these settings (`page_text.page_text`)."""
    return page_text(_lesson, dict(frozen), computed(page, frozen, _lesson))


def previews(lesson: Lesson, view: ClassroomView) -> bool:
    """Whether the page's sweep chart gets its preview: not where a teacher's link hides or locks that setting."""
    return lesson.sweep is not None and view.drawn(lesson.sweep.setting) and view.editable(lesson.sweep.setting)



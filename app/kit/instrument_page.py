"""A dynamics lesson's page (one with a `sweep`): its story folded, then the lesson instrument (`instrument.py`) with
what moves with its value — its try-this steps, caption and the page as a Python script (written while it is shown)
— in one fragment, then the exercises and challenges; its sidebar holds the teacher link and the score.

A committed move reruns the fragment alone: nothing else on the page reads the values between two full runs. The
exercises and challenges read them when their Check reruns the app; the teacher link shows them, so while it is
open a move reruns the app instead (its expander reruns the app when opened, so it never shows older values). On a
Streamlit whose expander cannot say whether it is open (`st.expander(on_change=...)`, before 1.67), every move
reruns the app.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import streamlit as st

from .cache import cached
from .classroom import ClassroomView, presenter_style, share_panel
from .instrument import kept_member, mount, recover_commit
from .lesson import Lesson
from .lesson_text import step_markdown
from .page_charts import chart_specs, computed
from .page_text import page_text
from .preview import await_family, cached_family, family_first, inline_family, page_preview, pool, waited_preview
from .reading_order import folded_story
from .settings import freeze
from .snippet import snippet_filename, snippet_script
from .url_state import load_settings, save_settings
from .widgets import PRESENTING_KEY

# Streamlit 1.67 on: an expander can rerun the app (or its fragment) when opened, and say whether it is open
EXPANDER_SAYS_OPEN = "on_change" in inspect.signature(st.expander).parameters


def teacher_link_key(page: str) -> str:
    return f"{page}.share.open"


@dataclass
class PageRun:
    """What the full run and the instrument's fragment share: the values it drew, the readout quantities (the
    exercises' and challenges'), the try-this steps as written (made once, in the full run), and whether the rest of
    the page is drawn (then the fragment reruns alone)."""

    values: dict = field(default_factory=dict)
    quantities: dict = field(default_factory=dict)
    steps: list[str] = field(default_factory=list)     # the try-this steps, as written under the instrument
    page_drawn: bool = False


def instrument_page(lesson: Lesson, text, view: ClassroomView, steps: dict) -> tuple[PageRun, object]:
    """Everything of the page above its exercises, and the sidebar; returns the run and the score's slot (None in
    the presenter view, which draws it at the bottom)."""
    spec = lesson.settings
    folded_story(text, steps)
    recover_commit(lesson, view)                        # a reconnected tab's first event: a move in the instrument
    load_settings(spec)
    st.session_state[PRESENTING_KEY] = view.present
    if view.present:
        presenter_style()
    run = PageRun(steps=[step_markdown(n, step) for n, step in chart_steps(steps)])
    draw = st.fragment(instrument_part) if EXPANDER_SAYS_OPEN else instrument_part
    draw(lesson, view, run)
    score = None
    if not view.present:
        with st.sidebar:
            share_panel(spec, run.values, tuple(c.title for c in text.challenges),
                        **({"key": teacher_link_key(lesson.page)} if EXPANDER_SAYS_OPEN else {}))
            score = st.empty()
    return run, score


def instrument_part(lesson: Lesson, view: ClassroomView, run: PageRun) -> None:
    """The instrument at the current values, its steps, caption and snippet (the fragment's body)."""
    if run.page_drawn and st.session_state.get(teacher_link_key(lesson.page)):
        st.rerun(scope="app")                           # the open teacher link shows the values: the page follows
    values = run.values = save_settings(lesson.settings)
    frozen = freeze(values)
    if previews(lesson, view):                          # a held move's family first: it brings the page's result
        family_first(lesson, frozen)
    try:
        result = computed(lesson.page, frozen, lesson)
    except ValueError as err:                           # the core's message for settings it cannot run
        st.error(f"These settings cannot be computed: {err}", icon="🚫")
        result = None
    pending: list = []                                  # LCSM_PREVIEW_WORKERS=0: the family, once this is drawn
    if result is not None:
        draw_instrument(lesson, values, frozen, view, pending)
        for step in run.steps:
            st.info(step, icon="👉")
        if lesson.caption:
            st.caption(lesson.caption)
        if not run.page_drawn:                          # the exercises' numbers (a full run draws them)
            run.quantities = lesson.quantities(values, result) if lesson.quantities is not None else {}
    if lesson.snippet is not None and not view.present:
        snippet_panel(lesson, values)
    for finish in filter(None, pending):                # (in the fragment: its container is the instrument's)
        finish()


def draw_instrument(lesson: Lesson, values: dict, frozen: tuple, view: ClassroomView, pending: list) -> None:
    """The instrument, with the drag preview's family once computed (a held move waits `family_wait_s` for it, then
    the page polls for it)."""
    swept = previews(lesson, view)
    family = cached_family(lesson, frozen) if swept else None
    member = kept_member(lesson, values, view, family)
    if member is not None:                              # the browser shows that member already: nothing is drawn
        mount(lesson, values, view, {}, None, family, member)
        return
    preview = page_preview(lesson, frozen, view.present) if family is not None else None
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


def snippet_key(page: str) -> str:
    return f"{page}.snippet.open"


def snippet_panel(lesson: Lesson, values: dict) -> None:
    """The page at these settings as a short lcsm_core script, to read, copy or download; written only while its
    expander is open, where the expander can say so (the move that reruns the instrument does not write it)."""
    lazy = {"key": snippet_key(lesson.page), "on_change": "rerun"} if EXPANDER_SAYS_OPEN else {}
    with st.expander("🐍 Reproduce these numbers in Python", **lazy) as panel:
        if lazy and not panel.open:
            return
        script = snippet_script(lesson, values)
        st.code(script, language="python", wrap_lines=True)     # a phone wraps it: the page never scrolls sideways
        st.download_button("⬇️ Download the script", script, file_name=snippet_filename(lesson),
                           mime="text/x-python", key=f"{lesson.page}.snippet.download")

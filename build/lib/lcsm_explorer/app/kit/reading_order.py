"""A lesson's reading order: its story open at the top, its "try this" steps each drawn under
the chart it names, and a link to the next lesson at the end — as Distill's explorables put each control and
question beside its figure, in the order a reader meets them.

The steps are written in the lesson file (`## Try this`, parsed by `lesson_text`); a step that names no chart
sits at the top, under the story (the live pages, whose charts are drawn by their live part, place them all
there). A step naming a chart the page does not draw is a mistake told on that page only; the page runs on.
The next-lesson link carries nothing but the page: a learner's token stays in the tab's session, which puts it
back in the URL on the next page (`progress.learner_token`), so the score lasts and no setting travels.
"""
from __future__ import annotations

import streamlit as st

from .lesson import Lesson
from .lesson_text import (
    LessonFormatError,
    LessonText,
    Step,
    check_steps,
    more_notes,
    objectives_line,
    step_markdown,
)
from .lesson_text import story as story_text
from .lesson_view import files_stamp, lesson_pages, read_lesson

StepsByChart = dict[str, list[tuple[int, Step]]]
TOP = ""                                              # the chart name of a step drawn at the top of the page


def steps_by_chart(text: LessonText, lesson: Lesson) -> StepsByChart:
    """The lesson's steps, numbered in reading order, under the chart each names (TOP: none); {} with a message
    on the page when a step names a chart the page does not draw."""
    try:
        check_steps(text, lesson.chart_names())
    except LessonFormatError as why:
        st.error(f"The lesson text for this page has a mistake: {why}", icon="📄")
        return {}
    placed: StepsByChart = {}
    for n, step in enumerate(text.steps):
        placed.setdefault(step.chart, []).append((n, step))
    return placed


def draw_steps(steps, container=None) -> None:
    """Try-this steps as callouts, in `container` (a chart's column) or where the page is."""
    for n, step in steps:
        (container or st).info(step_markdown(n, step), icon="👉")


def story(text: LessonText, steps: StepsByChart, present: bool) -> None:
    """The top of the lesson, under its title: the objectives, the story open, a line saying where the steps are,
    and the steps that name no chart; the rest of the notes folded. The presenter view draws none of it here (the
    charts need the projector's screen): `folded_notes` puts it at the end."""
    if present:
        return
    if text.objectives:
        st.markdown(objectives_line(text))
    if text.body:
        st.markdown(story_text(text))
    rest = more_notes(text)
    if rest:
        with st.expander("📖 More notes", expanded=False):
            for piece in rest:
                st.markdown(piece)
    placed = sum(len(v) for chart, v in steps.items() if chart != TOP)
    if placed:
        st.markdown(f"**Try this** — {placed} step{'s' * (placed != 1)} below, each under the chart it is about "
                    "(👉 Try 1 first).")
    draw_steps(steps.get(TOP, ()))


def folded_story(text: LessonText, steps: StepsByChart) -> None:
    """A lesson whose instrument takes the first screen: its objectives, story and notes folded above it (one
    line), so the controls, the main chart and the readouts share the screen; its steps follow the instrument."""
    pieces = [objectives_line(text), story_text(text), *more_notes(text)]
    if any(pieces):
        with st.expander("📖 What this lesson is about: objectives and story", expanded=False):
            for piece in filter(None, pieces):
                st.markdown(piece)


def folded_notes(text: LessonText, steps: StepsByChart) -> None:
    """The presenter view's objectives, story and notes, folded under the charts; the steps that name no chart
    (a live page's) stay open above them: they are what the class does next."""
    draw_steps(steps.get(TOP, ()))
    pieces = [objectives_line(text), story_text(text), *more_notes(text)]
    if any(pieces):
        with st.expander("📖 Lesson notes", expanded=False):
            for piece in filter(None, pieces):
                st.markdown(piece)


def next_lesson(page: str, stamp: int | None = None) -> None:
    """"Next: lesson N+1" at the end of the page (a plain page link: no settings, no token in it); the last lesson
    points back to Home; `stamp`: the lessons' `files_stamp()` when the caller has it."""
    stamp = files_stamp() if stamp is None else stamp   # the lesson files looked at once for the list and the title
    pages = lesson_pages(stamp)
    if page not in pages:
        return
    following = pages[pages.index(page) + 1:]
    st.divider()
    if following:
        target = following[0]
        title = title_of(target, stamp)
        st.page_link(st.Page(_elsewhere, title=title, url_path=target), label=f"Next: {title}", icon="➡️")
    else:
        st.markdown("🎓 **That was the last lesson.** Home shows your score in every lesson.")
        st.page_link(st.Page(_elsewhere, title="Home", url_path="home"), label="Back to Home", icon="🏠")


def title_of(page: str, stamp: int | None = None) -> str:
    """A lesson's title from its file; its page name when the file cannot be read (its own page says why);
    `stamp`: the lessons' `files_stamp()` when the caller has it."""
    try:
        return read_lesson(page, stamp).title
    except (LessonFormatError, OSError, UnicodeDecodeError):
        return page.replace("_", " ")


def _elsewhere() -> None:
    """The body of a link's target page: never run here (the router's page of the same path is)."""

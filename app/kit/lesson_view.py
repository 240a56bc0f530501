"""Render a lesson (objectives, prose, exercises with code-checked feedback) on a page."""
from __future__ import annotations

import streamlit as st

from .cache import cached
from .lesson_text import LessonFormatError, LessonText, check_answer, check_settings, lesson_files, load_lesson


def cached_lesson(page: str, fallback_title: str = "") -> LessonText:
    """The page's lesson, re-read whenever a lesson file changes (a teacher's edit shows on the next rerun).

    A lesson file with a mistake does not break the page: it says what is wrong and the page runs on.
    """
    stamp = max((f.stat().st_mtime_ns for f in lesson_files()), default=0)
    try:
        return _load(page, stamp)
    except (LessonFormatError, FileNotFoundError) as why:
        st.error(f"The lesson text for this page could not be read: {why}", icon="📄")
        return LessonText(page=page, title=fallback_title or page, objectives=(), body="", exercises=())


@cached(max_entries=32)
def _load(page: str, stamp: int) -> LessonText:
    return load_lesson(page)


def lesson_intro(lesson: LessonText) -> None:
    """Title and objectives, at the top of the page."""
    st.title(lesson.title)
    if lesson.objectives:
        st.markdown("**You will learn to** " + " · ".join(lesson.objectives))


def lesson_body(lesson: LessonText) -> None:
    with st.expander("📖 Lesson notes", expanded=False):
        st.markdown(lesson.body)
        for heading, text in lesson.extra.items():
            st.markdown(f"#### {heading}\n\n{text}")


def lesson_exercises(lesson: LessonText, quantities: dict) -> None:
    """One block per exercise; the Check button grades the live settings or the typed number.

    Feedback stays on the page until what it graded changes (the settings' quantities, or the typed
    number), and the heading counts the exercises solved in this session.
    """
    if not lesson.exercises:
        return
    heading = st.empty()
    solved: set = st.session_state.setdefault(f"{lesson.page}.exercises.solved", set())
    graded_on = tuple(sorted(quantities.items()))
    for n, ex in enumerate(lesson.exercises):
        with st.container(border=True):
            st.markdown(f"**{n + 1}. {ex.title}** — {ex.prompt}")
            key = f"{lesson.page}.exercise.{n}"
            if ex.kind == "answer":
                typed = st.number_input("Your answer", value=None, format="%.6g", key=f"{key}.answer")
                clicked = st.button("Check", key=f"{key}.check")
                stamp = (graded_on, typed)
                feedback = check_answer(ex, typed, quantities) if clicked else None
            else:
                clicked = st.button("Check my settings", key=f"{key}.check")
                stamp = graded_on
                feedback = check_settings(ex, quantities) if clicked else None
            if feedback is not None:
                st.session_state[f"{key}.feedback"] = (stamp, feedback)
                if feedback.correct:
                    solved.add(ex.title)
            shown = st.session_state.get(f"{key}.feedback")
            if shown is not None and shown[0] == stamp:
                (st.success if shown[1].correct else st.error)(shown[1].message)
    done = sum(ex.title in solved for ex in lesson.exercises)
    heading.subheader(f"✏️ Exercises · {done} of {len(lesson.exercises)} solved")

"""Render a lesson (objectives, prose, exercises and challenges with code-checked feedback) on a page,
and this session's score across lessons."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from . import lesson_text
from .cache import cached
from .lesson_text import (
    Exercise,
    LessonFormatError,
    LessonText,
    check_answer,
    check_settings,
    item_markdown,
    markdown,
)
from .progress import LessonProgress, learner_token, lesson_progress, solved_titles


def cached_lesson(page: str, fallback_title: str = "", stamp: int | None = None) -> LessonText:
    """The page's lesson, re-read whenever a lesson file changes (a teacher's edit shows on the next rerun).

    A lesson file with a mistake does not break the page: it says what is wrong and the page runs on. Only
    this page's file is parsed, so another lesson's mistake never shows here. `stamp`: the lessons'
    `files_stamp()` when the caller has it (once per run).
    """
    try:
        return read_lesson(page, stamp)
    except (LessonFormatError, OSError, UnicodeError) as why:     # not UTF-8, a folder: this page alone says so
        st.error(f"The lesson text for this page could not be read: {why}", icon="📄")
        return LessonText(page=page, title=fallback_title or page, objectives=(), body="", exercises=())


def read_lesson(page: str, stamp: int | None = None) -> LessonText:
    """The page's lesson from the cache (LessonFormatError / FileNotFoundError when its file is wrong);
    `stamp`: the lessons' `files_stamp()` when the caller already has it."""
    directory = lesson_text.LESSONS_DIR
    return _load(page, str(directory), files_stamp() if stamp is None else stamp)


def files_stamp() -> int:
    """The newest modification time of the lesson files: a cache key that changes with any teacher's edit."""
    return max((_modified_ns(f) for f in lesson_text.lesson_files(lesson_text.LESSONS_DIR)), default=0)


def _modified_ns(path: Path) -> int:
    """A lesson file's modification time; a dangling link's own (its page says it cannot be read, no other)."""
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return path.lstat().st_mtime_ns


@cached(store="small")
def _load(page: str, directory: str, stamp: int) -> LessonText:
    return lesson_text.load_lesson(page, Path(directory))


@cached(store="small")
def _pages(directory: str, stamp: int) -> list[str]:
    return lesson_text.lesson_pages(Path(directory))


def lesson_pages(stamp: int | None = None) -> list[str]:
    """Every lesson file's page, in lesson order, from the cache (read again after an edit: `files_stamp`). Each
    page run asks (the next-lesson link, the score), and reading every file's front matter each time is not free."""
    return _pages(str(lesson_text.LESSONS_DIR), files_stamp() if stamp is None else stamp)


def every_lesson_progress(stamp: int | None = None) -> list[LessonProgress]:
    """This session's counts for every lesson file, in lesson order (a broken file counts as unreadable).
    Drawn on every rerun of every page: the files are looked at once (one stamp, the caller's when given), and
    read only after an edit."""
    stamp = files_stamp() if stamp is None else stamp
    learner_token()                                     # once for every lesson's counts (it keeps the URL's token)
    return [lesson_progress(page, text) for page, text in _lesson_texts(str(lesson_text.LESSONS_DIR), stamp)]


@cached(store="small")
def _lesson_texts(directory: str, stamp: int) -> tuple[tuple[str, LessonText | None], ...]:
    """Every lesson file's page and text (None: the file cannot be read), in lesson order: one cache look-up for
    the score of every page run instead of one per lesson."""
    texts = []
    for page in _pages(directory, stamp):
        try:
            texts.append((page, _load(page, directory, stamp)))
        except (LessonFormatError, OSError, UnicodeError):
            texts.append((page, None))
    return tuple(texts)


def lesson_intro(lesson: LessonText) -> None:
    """The title, at the top of the page (the objectives open the story under it: `reading_order.story`)."""
    st.title(lesson.title)


def lesson_exercises(lesson: LessonText, quantities: dict) -> None:
    """One block per exercise; the Check button grades the live settings or the typed number.

    Feedback stays on the page until what it graded changes (the settings' quantities, or the typed
    number), and the heading counts the exercises solved in this session.
    """
    if not lesson.exercises:
        return
    heading = st.empty()
    solved = solved_titles(lesson.page, "exercise")
    for n, ex in enumerate(lesson.exercises):
        with st.container(border=True):
            graded_item(lesson.page, "exercise", n, ex, quantities, words=lesson.words)
    done = sum(ex.title in solved for ex in lesson.exercises)
    heading.header(f"✏️ Exercises · {done} of {len(lesson.exercises)} solved")


def lesson_challenges(lesson: LessonText, quantities: dict, focus: int | None = None, top=None) -> None:
    """The "🏆 Challenges" block, graded like the exercises. `focus` (0-based, from a teacher link) draws that
    challenge highlighted in `top` (a container near the top of the page) instead of in the block."""
    if not lesson.challenges:
        return
    heading = st.empty()
    solved = solved_titles(lesson.page, "challenge")
    for n, challenge in enumerate(lesson.challenges):
        if n == focus and top is not None:
            with top, st.container(border=True):
                st.header(f"🎯 Challenge {n + 1} of {len(lesson.challenges)}: {challenge.title}")
                st.caption("Opened by your teacher's link. Reach the target, then press the button.")
                graded_item(lesson.page, "challenge", n, challenge, quantities, numbered=False, words=lesson.words)
            st.markdown(f"**{n + 1}. {challenge.title}** — ⬆️ above, opened by your teacher's link.")
            continue
        with st.container(border=True):
            graded_item(lesson.page, "challenge", n, challenge, quantities, words=lesson.words)
    done = sum(c.title in solved for c in lesson.challenges)
    heading.header(f"🏆 Challenges · {done} of {len(lesson.challenges)} solved")


def graded_item(page: str, kind: str, n: int, item: Exercise, quantities: dict, numbered: bool = True,
                words: dict | None = None) -> None:
    """One exercise or challenge: its prompt, the typed answer or the settings check, and the feedback in the
    page's words (`words`: the lesson's Quantities), kept until what it graded changes; a right answer joins
    this session's score."""
    st.markdown(item_markdown(n, item, numbered))
    key = f"{page}.{kind}.{n}"
    graded_on = tuple(sorted(quantities.items()))
    if item.kind == "answer":
        typed = st.number_input("Your answer", value=None, format="%.6g", key=f"{key}.answer")
        clicked = st.button("Check", key=f"{key}.check")
        stamp = (graded_on, typed)
        feedback = check_answer(item, typed, quantities, words) if clicked else None
    else:
        clicked = st.button("Check my settings", key=f"{key}.check")
        stamp = graded_on
        feedback = check_settings(item, quantities, words) if clicked else None
    if feedback is not None:
        st.session_state[f"{key}.feedback"] = (stamp, feedback)
        if feedback.correct:
            solved_titles(page, kind).add(item.title)
    shown = st.session_state.get(f"{key}.feedback")
    if shown is not None and shown[0] == stamp:
        (st.success if shown[1].correct else st.error)(markdown(shown[1].message))
    elif item.title in solved_titles(page, kind):      # solved before (a reload, a typed link): the tab's progress
        st.caption("✅ Solved in this tab. Check again any time.")

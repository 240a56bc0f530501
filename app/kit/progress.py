"""This session's score: which exercises and challenges the learner solved, per lesson and across lessons.

What was solved lives in session state (one set of titles per page and kind), so it survives moving between
pages in one browser tab and starts again in a new session. The counts are against the lesson files as they
are now: an exercise a teacher removed no longer counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from .lesson_text import LessonText

KINDS = ("exercise", "challenge")


def solved_titles(page: str, kind: str) -> set:
    """The titles of the `kind`s ("exercise" or "challenge") of `page` solved in this session (a live set)."""
    return st.session_state.setdefault(f"{page}.{kind}s.solved", set())


@dataclass(frozen=True)
class LessonProgress:
    page: str
    title: str
    exercises_solved: int = 0
    exercises: int = 0
    challenges_solved: int = 0
    challenges: int = 0
    readable: bool = True          # False: the lesson file has a mistake (nothing to count)


def lesson_progress(page: str, text: LessonText | None, title: str = "") -> LessonProgress:
    """The counts of one lesson (`text` None: its file could not be read)."""
    if text is None:
        return LessonProgress(page, title or page, readable=False)
    counts = {}
    for kind, items in (("exercise", text.exercises), ("challenge", text.challenges)):
        done = solved_titles(page, kind)
        counts[kind] = (sum(item.title in done for item in items), len(items))
    return LessonProgress(page, text.title, *counts["exercise"], *counts["challenge"])


def score_line(rows: list[LessonProgress]) -> str:
    """'🏆 3 of 12 challenges · 9 of 31 exercises' over `rows`."""
    return (f"🏆 {sum(r.challenges_solved for r in rows)} of {sum(r.challenges for r in rows)} challenges · "
            f"{sum(r.exercises_solved for r in rows)} of {sum(r.exercises for r in rows)} exercises")


def progress_table(rows: list[LessonProgress]) -> list[dict]:
    """One row per lesson for a table on Home."""
    return [{"lesson": r.title,
             "challenges": f"{r.challenges_solved} of {r.challenges}" if r.readable else "—",
             "exercises": f"{r.exercises_solved} of {r.exercises}" if r.readable else "—",
             "note": "" if r.readable else "lesson file could not be read"} for r in rows]

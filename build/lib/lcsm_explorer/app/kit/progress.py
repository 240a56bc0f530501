"""A learner's score: which exercises and challenges the learner solved, per lesson and across lessons.

What was solved belongs to the learner token (`?learner=` in the URL, as Train live's `?owner=`): in a browser with
its identity cookie the token is that browser's (app/kit/browser_identity.py: every tab, reload and reopened link
of the browser is one learner, counted once in a class), else the tab's, made and signed by the server on its first
page. Each right answer is written to the run store's file (`lcsm_serving.progress_store`) and read back when a session
starts, so a reload or a reconnect to another web process finds the score again. A teacher's link carries no token:
whoever opens it keeps their own score. `?class=CODE` joins the tab to a teacher's class (`app/kit/class_join.py`).
The counts are against the lesson files as they are now: an exercise a teacher removed no longer counts.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import streamlit as st

from lcsm_serving.progress_store import ProgressStore, StoreFile
from lcsm_serving.store import default_db_path
from lcsm_serving.store_faults import log_store_fault
from lcsm_serving.tokens import TOKEN_SHAPE

from . import browser_identity
from .class_join import CLASS_KEY, keep_class
from .lesson_text import LessonText
from .owner import issued_token

KINDS = ("exercise", "challenge")
LEARNER_PARAM, LEARNER_KEY, LOADED_KEY = "learner", "progress.learner", "progress.loaded"
LEARNER_TOKEN = TOKEN_SHAPE
STORE_UNREADABLE = "The server's store could not be read or written just now (its log says why)."   # never a path
_FILES: dict[str, StoreFile] = {}                       # one connection per store file per process


def store_file() -> StoreFile:
    """The run store's file of this process ($LCSM_DATA_DIR read on each call: tests point it elsewhere)."""
    path = str(default_db_path())
    if path not in _FILES:
        _FILES[path] = StoreFile(path)
    return _FILES[path]


def learner_token() -> str:
    """This tab's learner token: from the link when the server signed it, else a fresh signed one (a forged one
    must not read or write someone else's score); kept in the session and put back in the URL on every run (the
    navigation drops a page's query)."""
    token = issued_token(LEARNER_PARAM, LEARNER_KEY, "learner")     # signed by the server: a link cannot pick one
    try:
        keep_class(token, store_file)
    except (sqlite3.Error, OSError):                     # no store file: the tab keeps its score alone
        pass
    return token


def score_keeper() -> str:
    """Whose score the page shows: "this browser" (its identity cookie) or "this tab" (none)."""
    return "this browser" if browser_identity.browser_token() is not None else "this tab"


def new_learner_markdown(page_path: str) -> str | None:
    """A markdown link to start as a new learner on a shared computer (None without a browser identity)."""
    if browser_identity.browser_token() is None:
        return None
    link = browser_identity.new_learner_link(page_path, st.session_state.get(CLASS_KEY))
    return f"[🧑‍🎓 New learner on this computer]({link})"


class SolvedTitles(set):
    """The titles solved of one page and kind; `add` also writes the right answer to the store under the tab's
    learner token (a store that cannot be written leaves the session's score and says so on the page)."""

    def __init__(self, page: str, kind: str, titles=()):
        super().__init__(titles)
        self.page, self.kind = page, kind

    def add(self, title: str) -> None:
        if title in self:
            return
        super().add(title)
        try:
            ProgressStore(store_file()).record_solved(learner_token(), self.page, self.kind, title)
        except (sqlite3.Error, OSError) as why:
            st.warning("Your answer counts in this tab, but could not be saved for a reload. "
                       + (log_store_fault(why, "progress") or STORE_UNREADABLE), icon="💾")


def solved_titles(page: str, kind: str) -> set:
    """The titles of the `kind`s ("exercise" or "challenge") of `page` this tab's learner solved (a live set)."""
    learner_token()                                      # keep the token in the URL on every page run
    return _session_solved(page, kind)


def _session_solved(page: str, kind: str) -> set:
    """`solved_titles` for a caller that kept the learner token in the URL this run already (once for every
    lesson's counts, not once per lesson and kind, on every page run)."""
    key = f"{page}.{kind}s.solved"
    if key not in st.session_state:
        st.session_state[key] = SolvedTitles(page, kind, stored_solved().get((page, kind), ()))
    return st.session_state[key]


def stored_solved() -> dict[tuple[str, str], set[str]]:
    """What the store holds for this tab's learner, read once per session ({} when the store cannot be read)."""
    if LOADED_KEY not in st.session_state:
        try:
            st.session_state[LOADED_KEY] = ProgressStore(store_file()).solved(learner_token())
        except (sqlite3.Error, OSError) as why:
            said = log_store_fault(why, "progress") or STORE_UNREADABLE
            st.warning(f"Your earlier answers could not be read. {said}", icon="💾")
            st.session_state[LOADED_KEY] = {}
    return st.session_state[LOADED_KEY]


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
    """The counts of one lesson (`text` None: its file could not be read); the caller keeps the learner token in
    the URL (`learner_token()`, once for all lessons)."""
    if text is None:
        return LessonProgress(page, title or page, readable=False)
    counts = {}
    for kind, items in (("exercise", text.exercises), ("challenge", text.challenges)):
        done = _session_solved(page, kind)
        counts[kind] = (sum(item.title in done for item in items), len(items))
    return LessonProgress(page, text.title, *counts["exercise"], *counts["challenge"])


def score_line(rows: list[LessonProgress]) -> str:
    """'🏆 3 of 12 challenges · 9 of 31 exercises' over `rows` (and '· 👥 class CODE' once the tab joined one: a
    learner sees that the teacher's view counts them)."""
    code = st.session_state.get(CLASS_KEY)
    return (f"🏆 {sum(r.challenges_solved for r in rows)} of {sum(r.challenges for r in rows)} challenges · "
            f"{sum(r.exercises_solved for r in rows)} of {sum(r.exercises for r in rows)} exercises"
            + (f" · 👥 class {code}" if code else ""))


def progress_table(rows: list[LessonProgress]) -> list[dict]:
    """One row per lesson for a table on Home (a "note" column only when a lesson file could not be read: an
    empty column would push the counts off a phone's screen)."""
    table = [{"lesson": r.title,
              "challenges": f"{r.challenges_solved} of {r.challenges}" if r.readable else "—",
              "exercises": f"{r.exercises_solved} of {r.exercises}" if r.readable else "—",
              "note": "" if r.readable else "lesson file could not be read"} for r in rows]
    if all(r.readable for r in rows):
        for row in table:
            del row["note"]
    return table

"""The class view: a teacher creates a class, shares its code, walks the class path (lessons/course.md) one step
per screen, and watches, live and anonymously, how many learners solved each exercise and challenge.

The page opens with the teacher's secret (`?teacher=`, made when the class is created here; the store keeps its
hash): it is in the teacher's own address only, never in a link this page builds for learners (those carry
`?class=CODE`). `?step=N` is the step of the path shown (1-based); `?present=1` hides the chrome for a projector.
"""
from __future__ import annotations

import sqlite3
import time

import pandas as pd
import streamlit as st

from lcsm_explorer.app.kit import lesson_text
from lcsm_explorer.app.kit.class_counts import count_rows, summary_line
from lcsm_explorer.app.kit.class_course import CourseFormatError, load_course
from lcsm_explorer.app.kit.classroom import presenter_style
from lcsm_explorer.app.kit.lesson_text import LessonText
from lcsm_explorer.app.kit.lesson_view import files_stamp, read_lesson
from lcsm_explorer.app.kit.literal import literal
from lcsm_explorer.app.kit.progress import store_file
from lcsm_explorer.app.kit.visitor import visitor_key
from lcsm_explorer.app.lessons import PAGES
from lcsm_serving.class_store import DEFAULT_SEATS, MAX_SEATS, TEACHER_SECRET, ClassStore
from lcsm_serving.store_faults import log_store_fault

TEACHER_PARAM, TEACHER_KEY, STEP_PARAM, STEP_KEY = "teacher", "class_view.teacher", "step", "class_view.step"
CREATED_KEY = "class_view.created"       # the class this tab just created: said once
POLL_S = 1.0
STORE_FAULT = "The server's store could not be read or written just now; try again in a moment."


def render_class_view() -> None:
    present = st.query_params.get("present") == "1"
    if present:
        presenter_style()
    code = teacher_class()
    if code is None:
        st.title("👥 Class view")
        create_class_panel()
        return
    root = app_root()
    if not present:
        st.title("👥 Class view")
        if st.session_state.pop(CREATED_KEY, None) == code:
            st.success(f"Class {code} created: bookmark this page's address to come back to it.", icon="👥")
        st.markdown(f"Learners join with this link (Home, class **{code}**):")
        st.code(f"{root}/?class={code}", language=None, wrap_lines=True)
        st.caption("Keep this page's own address to come back: it holds your teacher secret — do not share it. "
                   "Learners' answers are counted per browser tab, anonymously.")
    if present:                                         # a projector: the step and its counts on one screen
        step, counts = st.columns([3, 2], gap="large")
        with step:
            class_path(code, root, present)
        with counts:
            live_counts(code, present)
    else:
        class_path(code, root, present)
        live_counts(code, present)


# --- the teacher's secret -------------------------------------------------------------------------------------
def teacher_class() -> str | None:
    """The class whose secret this tab holds (URL, else kept from earlier in the session), or None."""
    secret = st.session_state.get(TEACHER_KEY) or st.query_params.get(TEACHER_PARAM)
    if secret is None:
        return None
    try:
        code = ClassStore(store_file()).class_of_teacher(secret) if TEACHER_SECRET.fullmatch(secret) else None
    except (sqlite3.Error, OSError) as why:
        st.error(f"The class store could not be read. {store_words(why)}", icon="💾")
        return None
    if code is None:
        st.error("This link's teacher secret opens no class on this server. Create a class below, or use the "
                 "address you kept when you created yours.", icon="🔑")
        st.session_state.pop(TEACHER_KEY, None)
        return None
    st.session_state[TEACHER_KEY] = secret
    if st.query_params.get(TEACHER_PARAM) != secret:
        st.query_params[TEACHER_PARAM] = secret
    return code


def create_class_panel() -> None:
    st.markdown("Create a class to get a **class code** for your learners' links and a **teacher address** for "
                "this view. Each learner who joins takes one of its seats and counts here, anonymously, as they "
                "solve exercises and challenges.")
    st.number_input("Seats (learners who may join; fixed once the class is made)", min_value=1, max_value=MAX_SEATS,
                    value=DEFAULT_SEATS, step=1, key="class_view.seats")
    st.button("Create a class", key="class_view.create", on_click=create_class, type="primary")
    if "class_view.create_error" in st.session_state:
        st.error(f"The class could not be created: {st.session_state.pop('class_view.create_error')}", icon="💾")


def create_class() -> None:
    try:
        seats = int(st.session_state.get("class_view.seats", DEFAULT_SEATS))
        code, secret = ClassStore(store_file()).create_class(visitor=visitor_key(), seats=seats)
    except (sqlite3.Error, OSError) as why:
        st.session_state["class_view.create_error"] = store_words(why)
        return
    except (RuntimeError, ValueError) as why:            # the store's own refusals (a visitor's quota), in words
        st.session_state["class_view.create_error"] = str(why)
        return
    st.session_state[TEACHER_KEY] = secret
    st.query_params[TEACHER_PARAM] = secret
    st.session_state[CREATED_KEY] = code                # said once on the page (a toast is a dialog with no name)


def store_words(why: BaseException) -> str:
    """A store fault in words for the page, never SQLite's text or the server's path (the log keeps them, once)."""
    return log_store_fault(why, "class view") or STORE_FAULT


def app_root() -> str:
    """The app's address without the page (st.context.url is this page's, query stripped)."""
    url = (st.context.url or "").split("?", 1)[0].rstrip("/")
    return url.removesuffix("/class_view") or ""


# --- the class path -------------------------------------------------------------------------------------------
def class_path(code: str, root: str, present: bool) -> None:
    try:
        course = load_course()
    except FileNotFoundError:
        st.info("No class path yet: write lessons/course.md (lessons/README.md says how).", icon="🧭")
        return
    except CourseFormatError as why:
        st.error(f"lessons/course.md could not be read: {why}", icon="🧭")
        return
    steps = course.steps
    n = current_step(len(steps))
    step = steps[n]
    with st.container(border=True):
        left, middle, right = st.columns([2, 3, 2] if present else [2, 5, 2], vertical_alignment="center")
        left.button("◀ Previous", key="class_view.previous", on_click=go_to_step, args=(n - 1, len(steps)),
                    disabled=n == 0, width="stretch")
        where = f"step {n + 1} of {len(steps)}"          # the projector's narrower card: the step's own title below
        middle.markdown(where if present else f"**{course.title}** · {where}")
        right.button("Next ▶", key="class_view.next", on_click=go_to_step, args=(n + 1, len(steps)),
                     disabled=n == len(steps) - 1, width="stretch")
        if present:                                      # the projector's one h1 (it draws no page title)
            st.title(step.title)
        else:
            st.header(step.title)
        if step.prompt:
            st.markdown(step.prompt)
        st.link_button("Open this step on the projector", f"{root}/{step.page}?{step.query(present=True)}",
                       icon="📽️")
        # on the projector too: the room reads the link it joins by (it carries the class code, never the secret)
        st.caption("Learners' link for this step (their own settings, the class code, no secret):")
        st.code(f"{root}/{step.page}?{step.query(class_code=code)}", language=None, wrap_lines=True)


def current_step(count: int) -> int:
    """The 0-based step shown: kept in the session, else `?step=N` (1-based), else the first."""
    if STEP_KEY not in st.session_state:
        raw = st.query_params.get(STEP_PARAM, "1")
        st.session_state[STEP_KEY] = int(raw) - 1 if raw.isascii() and raw.isdigit() and 1 <= int(raw) <= count else 0
        if raw != "1" and st.session_state[STEP_KEY] == 0:
            st.warning(f"step {literal(raw)} is not a step of this class path (1 to {count}): showing the first.",
                       icon="⚠️")
    n = min(st.session_state[STEP_KEY], count - 1)
    st.query_params[STEP_PARAM] = str(n + 1)
    return n


def go_to_step(n: int, count: int) -> None:
    st.session_state[STEP_KEY] = max(0, min(n, count - 1))


# --- the live counts ------------------------------------------------------------------------------------------
@st.fragment(run_every=POLL_S)
def live_counts(code: str, present: bool) -> None:
    """Re-read every second: one query on the store, small tables. The step's page comes first, as its own table
    (the step is what the class is doing); every lesson follows folded (not on the projector)."""
    try:
        results = ClassStore(store_file()).results(code)
    except (sqlite3.Error, OSError) as why:
        st.warning(f"The class's answers could not be read just now. {store_words(why)}", icon="💾")
        return
    st.markdown(summary_line(results))
    if not present:
        seats_panel(code)
    lessons, unreadable = class_lessons()
    for why in unreadable:
        st.error(f"A lesson file could not be read, so its answers are not counted here: {why}", icon="📄")
    page = step_page()
    here = count_rows(results, lessons, (page,)) if page is not None else []
    if here:
        st.caption(f"This step: {here[0]['lesson']}")
        st.table(pd.DataFrame(here).drop(columns="lesson").set_index("item"))
    if present and here:
        return
    rows = count_rows(results, lessons)
    if rows:
        with st.expander("Every lesson", expanded=not here):
            st.table(pd.DataFrame(rows).set_index("lesson"))


def seats_panel(code: str) -> None:
    """The class's seats, anonymous (a learner is a number in the order they joined, with what they solved), each
    with a button that frees it for another learner."""
    if "class_view.free_error" in st.session_state:
        st.error(f"The seat could not be freed: {st.session_state.pop('class_view.free_error')}", icon="💾")
    try:
        store = ClassStore(store_file())
        seats, count = store.seats(code), store.seat_count(code)
    except (sqlite3.Error, OSError) as why:
        st.warning(f"The class's seats could not be read just now. {store_words(why)}", icon="💾")
        return
    with st.expander(f"🪑 Seats: {len(seats)} of {count} taken"):
        st.caption("A learner keeps their seat on every visit. Free one for a learner who left: their answers stay "
                   "theirs and leave this class's counts.")
        for n, seat in enumerate(seats, 1):
            left, right = st.columns([4, 1], vertical_alignment="center")
            joined = time.strftime("%d %b %H:%M", time.localtime(seat.joined_at))
            left.markdown(f"Learner {n} · joined {joined} · {seat.solved} solved")
            right.button("Free", key=f"class_view.free.{seat.learner[:16]}", on_click=free_seat,
                         args=(code, seat.learner), help=f"Free learner {n}'s seat")


def free_seat(code: str, learner: str) -> None:
    try:
        ClassStore(store_file()).free_seat(code, learner)
    except (sqlite3.Error, OSError) as why:
        st.session_state["class_view.free_error"] = store_words(why)


def class_lessons() -> tuple[list[LessonText], list[str]]:
    """Every lesson's text, and in words each lesson file that cannot be read (not UTF-8, a folder, a mistake):
    its answers are left out of the counts and the rest of the view goes on (its own page says the same)."""
    lessons, unreadable, stamp = [], [], files_stamp()
    for page in PAGES:
        try:
            lessons.append(read_lesson(page, stamp))
        except FileNotFoundError:                        # its message holds the server's folder: not for a page
            unreadable.append(f"no file in lessons/ says 'page: {page}'")
        except (lesson_text.LessonFormatError, OSError, UnicodeError) as why:
            unreadable.append(str(why))
    return lessons, unreadable


def step_page() -> str | None:
    """The page of the class path's step shown, or None (no class path, or one with a mistake)."""
    try:
        steps = load_course().steps
    except (FileNotFoundError, CourseFormatError):
        return None
    return steps[min(st.session_state.get(STEP_KEY, 0), len(steps) - 1)].page if steps else None

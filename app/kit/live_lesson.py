"""`render_live(lesson, values)`: draws a page's live part (`app/kit/live.py:Live`) and returns its quantities.

Order: the intro, (on a phone) the main chart's controls (`app/kit/chart_controls.py`), one row of command buttons,
the error slot, the lead blocks, then the polled part — an `st.fragment` that reruns alone every `poll_s` seconds
while the work moves, and reruns the whole page when it stops moving, another run is shown or the page's
`page_state` changes (so the buttons, the lead and the polling switch with it). The presenter view draws the lead
blocks after the polled part: the projector's first screen holds the buttons and the chart.

A page with an owned run (`Live.owned_run`) shows one run of the run store: chosen in this tab, else named by the
link (`?run=ID`; anything but an id is refused with a note), and driven only by the tab whose owner token
(`app/kit/owner.py`) started it. Every hook runs with store faults caught: a `sqlite3.Error` or `OSError` that
`store_fault_message` can tell is shown in words instead of a traceback.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable

import streamlit as st

from lcsm_serving.store_faults import store_fault_message

from .block_view import draw_blocks
from .chart_controls import draw_chart_controls
from .classroom import ClassroomView
from .lesson import Lesson
from .literal import literal
from .live import Control, Live, run_id_of, runs_commands_with
from .owner import owner_token
from .url_state import current_settings
from .visitor import visitor_key
from .widgets import PRESENTING_KEY


def run_key(page: str) -> str:
    return f"{page}_run"                       # e.g. train_live_run: the shown run's id (tests read it)


def error_key(page: str) -> str:
    return f"{page}.live.error"


def polling_key(page: str) -> str:
    return f"{page}.live.polling"


def page_state_key(page: str) -> str:
    return f"{page}.live.page_state"


def page_state_now(lesson: Lesson, values: dict, control: Control):
    """The page's `page_state` now (None without one, or when the store cannot say)."""
    live: Live = lesson.live
    if live.page_state is None:
        return None
    return guarded(lesson.page, lambda: live.page_state(values, control))


# --- the shown run (`?run=ID`) -----------------------------------------------------------------------------
def current_run(page: str) -> int | None:
    """The run this tab shows: chosen here, else from the link (?run=ID; anything but an id is ignored)."""
    key = run_key(page)
    if key not in st.session_state:
        value = st.query_params.get("run", "")
        st.session_state[key] = run_id_of(value)
        if value and run_id_of(value) is None:
            st.warning(f"This link's run {literal(value)} is not a run id (up to 18 digits 0–9): no run is shown.",
                       icon="⚠️")
    return st.session_state[key]


def show_run(page: str, run_id: int | None) -> None:
    st.session_state[run_key(page)] = run_id
    if run_id is None:
        st.query_params.pop("run", None)
    else:
        st.query_params["run"] = str(run_id)


def control_now(lesson: Lesson) -> Control:
    """This tab's `Control`, read from the session, the URL and the request."""
    live: Live = lesson.live
    url = (st.context.url or "").split("?", 1)[0] or f"/{lesson.page}"
    return Control(settings=current_settings(lesson.settings), owner=owner_token() if live.owned_run else "",
                   visitor=visitor_key(), run=current_run(lesson.page) if live.owned_run else None,
                   picked={key: st.session_state.get(key, default) for key, default in live.picks.items()},
                   present=bool(st.session_state.get(PRESENTING_KEY)), page_url=url)


# --- hooks, with the error slot ----------------------------------------------------------------------------
def store_fault(exc: BaseException) -> str:
    """The words for a run-store fault; anything else is not ours to hide."""
    message = store_fault_message(exc)
    if message is None:
        raise exc
    return message


def faults_key(page: str) -> str:
    return f"{page}.store_faults_said"


def say_fault(page: str, exc: BaseException) -> None:
    """Show a run-store fault in words, once per page run: every part of the page reads the same broken store."""
    message = store_fault(exc)
    said = st.session_state.setdefault(faults_key(page), set())
    if message not in said:
        said.add(message)
        st.error(message, icon="🗄️")


def guarded(page: str, read: Callable[[], object], default=None):
    """`read()`, or `default` after showing a run-store fault in words."""
    try:
        return read()
    except (sqlite3.Error, OSError) as exc:
        say_fault(page, exc)
        return default


def hook(lesson: Lesson, act: Callable[[Control], None], refusal: str = "error") -> Callable[[], None]:
    """A widget callback running `act(control)`: a refusal (ValueError) or a store fault goes to the error slot,
    a run `act` chose to show goes into the URL."""
    def callback() -> None:
        control = control_now(lesson)
        shown = control.run
        try:
            act(control)
        except ValueError as err:
            st.session_state[error_key(lesson.page)] = (refusal, str(err))
        except (sqlite3.Error, OSError) as exc:
            st.session_state[error_key(lesson.page)] = ("error", store_fault(exc))
        if control.run != shown:
            show_run(lesson.page, control.run)
    return callback


runs_commands_with(hook)


# --- the page ----------------------------------------------------------------------------------------------
def render_live(lesson: Lesson, values: dict, view: ClassroomView | None = None) -> dict[str, float]:
    live: Live = lesson.live
    control = control_now(lesson)
    st.session_state[faults_key(lesson.page)] = set()      # a fault said outside the fragment stays on screen
    if live.intro is not None:
        draw_blocks(live.intro(values, control))
    draw_chart_controls(lesson, values, view or ClassroomView(present=control.present))   # on a phone: above
    moving = guarded(lesson.page, lambda: live.moving(values, control), default=False)
    st.session_state[page_state_key(lesson.page)] = page_state_now(lesson, values, control)
    enabled = guarded(lesson.page, lambda: [c.enabled is None or c.enabled(control) for c in live.commands],
                      default=[c.enabled is None for c in live.commands])
    for column, command, usable in zip(st.columns(len(live.commands)) if live.commands else (), live.commands,
                                       enabled):
        with column:
            if command.choose is not None:
                draw_blocks([command.choose(values)], on_change=lambda act: hook(lesson, act))
            st.button(command.label, key=command.key, width="stretch", disabled=not usable, help=command.help,
                      type="primary" if command.primary else "secondary",
                      on_click=hook(lesson, command.act, command.refusal))
    if error_key(lesson.page) in st.session_state:
        level, text = st.session_state.pop(error_key(lesson.page))
        getattr(st, level)(text)
    if live.lead is not None and not control.present:
        guarded(lesson.page, lambda: draw_blocks(live.lead(values, control)))
    st.session_state[polling_key(lesson.page)] = moving
    found = st.fragment(polled, run_every=live.poll_s if moving else None)(lesson, values, control.run)
    if live.lead is not None and control.present:       # a projector's first screen: the buttons, then the chart
        guarded(lesson.page, lambda: draw_blocks(live.lead(values, control)))
    return found if found is not None else {}


def polled(lesson: Lesson, values: dict, drawn_for: int | None) -> dict[str, float]:
    """The part that moves; reruns alone while polling, and the whole page when the work stopped or another run
    is shown (the buttons and the polling switch with it)."""
    live: Live = lesson.live
    control = control_now(lesson)
    moving = guarded(lesson.page, lambda: live.moving(values, control), default=False)
    if control.run != drawn_for or (st.session_state.get(polling_key(lesson.page)) and not moving):
        st.rerun()
    if live.page_state is not None and (page_state_now(lesson, values, control)
                                        != st.session_state.get(page_state_key(lesson.page))):
        st.rerun()
    try:
        found = live.fetch(values, control)
        draw_blocks(live.draw(values, found, control), on_change=lambda act: hook(lesson, act))
    except (sqlite3.Error, OSError) as exc:
        say_fault(lesson.page, exc)
        found = None                   # the quantities of nothing shown: exercises say "not yet"
    return live.quantities(values, found) if live.quantities is not None else {}

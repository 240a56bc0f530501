"""A script run's messages handed to the event loop in batches, not one wake-up each (a move's CPU).

Streamlit hands every event of a script run to the server's event loop on its own: each element the page
draws is one `loop.call_soon_threadsafe`, which writes a byte to the loop's
self-pipe and wakes the loop for that one message. `batch_script_events()` replaces
`AppSession._on_scriptrunner_event` so that a session's events wait in one queue and a single callback hands them
all over, in order, once the loop gets to it: one wake-up per batch, and less CPU per rerun.

The runtime's send loop is woken once per batch too (`Runtime._enqueued_some_message`: not again while it is
woken already). Same events, same order, same handler (`_handle_scriptrunner_event_on_event_loop`, on the loop's
thread): only the number of wake-ups changes. A handler that raises is logged and the rest of its batch still
runs (one callback each did the same). Installed by `web_process.prepare()` before any session exists: a
session whose script runner connected the original method keeps it (mixing the two within one session would
reorder its events). A Streamlit whose methods differ (`missing()`) keeps its own: one wake-up per event.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque

from .signatures import missing_methods

try:
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.runtime import Runtime
except ImportError:                                       # another streamlit: `missing()` says so
    AppSession = Runtime = None

_LOGGER = logging.getLogger(__name__)
_ORIGINAL = getattr(AppSession, "_on_scriptrunner_event", None)
_ORIGINAL_WAKE = getattr(Runtime, "_enqueued_some_message", None)
BATCH_ATTR = "_lcsm_script_events"
EVENT_PARAMETERS = ("self", "sender", "event", "forward_msg", "exception", "client_state", "page_script_hash",
                    "fragment_ids_this_run", "pages", "run_descriptor")
# what the batched handler and wake-up call or replace: method → the parameters it must have (in this order)
NEEDED = {("AppSession", "_on_scriptrunner_event"): EVENT_PARAMETERS,
          ("AppSession", "_handle_scriptrunner_event_on_event_loop"): EVENT_PARAMETERS,
          ("AppSession", "_call_soon_on_event_loop"): ("self", "callback"),
          ("Runtime", "_enqueued_some_message"): ("self",),
          ("Runtime", "_get_async_objs"): ("self",)}


def missing() -> list[str]:
    """What this Streamlit lacks of the methods the batching replaces or calls, with the parameters it passes
    (empty: batching can be installed)."""
    if AppSession is None or Runtime is None:
        return ["streamlit.runtime's AppSession and Runtime"]
    return missing_methods({"AppSession": AppSession, "Runtime": Runtime}, NEEDED)


class _Pending:
    """One session's events waiting for the loop, and whether a callback to hand them over is scheduled."""

    def __init__(self):
        self.lock = threading.Lock()
        self.events: deque[tuple] = deque()
        self.scheduled = False


def _on_scriptrunner_event(self, sender, event, forward_msg=None, exception=None, client_state=None,
                           page_script_hash=None, fragment_ids_this_run=None, pages=None, run_descriptor=None) -> None:
    """AppSession's handler of a script runner's event (called on the script's thread): queued for the loop."""
    pending = self.__dict__.get(BATCH_ATTR)
    if pending is None:
        pending = self.__dict__.setdefault(BATCH_ATTR, _Pending())   # setdefault: one per session, even in a race
    with pending.lock:
        pending.events.append((sender, event, forward_msg, exception, client_state, page_script_hash,
                               fragment_ids_this_run, pages, run_descriptor))
        if pending.scheduled:
            return
        pending.scheduled = True
    self._call_soon_on_event_loop(lambda: _hand_over(self, pending))


def _hand_over(session, pending: _Pending) -> None:
    """On the loop's thread: every queued event to the session's handler, in order, until none is left."""
    while True:
        with pending.lock:
            if not pending.events:
                pending.scheduled = False
                return
            batch = list(pending.events)
            pending.events.clear()
        for args in batch:
            try:
                session._handle_scriptrunner_event_on_event_loop(*args)
            except Exception:                             # noqa: BLE001 — as asyncio logs a failed callback
                _LOGGER.exception("A script runner event failed")


def _enqueued_some_message(self) -> None:
    """Runtime's wake-up of its send loop after a message was queued (Streamlit's: one `call_soon_threadsafe` per
    message, from the loop's own thread too, as `_hand_over` queues them). A loop already woken is not woken
    again: it clears the flag before it flushes the queues, so a message queued while the flag is set goes out in
    that flush. On the loop's thread the flag is set directly (the self-pipe is for other threads)."""
    objs = self._get_async_objs()
    if objs.need_send_data.is_set():
        return
    try:
        on_loop = asyncio.get_running_loop() is objs.eventloop
    except RuntimeError:                                  # no loop running in this thread (a script thread)
        on_loop = False
    if on_loop:
        objs.need_send_data.set()
    else:
        objs.eventloop.call_soon_threadsafe(objs.need_send_data.set)


def batch_script_events() -> bool:
    """Install the batched handler and the send loop's single wake-up (idempotent), where this Streamlit has the
    methods they stand in for (`missing()`); whether they were installed. Call before the first session is
    created."""
    if missing():
        return False
    AppSession._on_scriptrunner_event = _on_scriptrunner_event
    Runtime._enqueued_some_message = _enqueued_some_message
    return True


def unbatch_script_events() -> None:
    """Put Streamlit's own handlers back (tests)."""
    if missing():
        return
    AppSession._on_scriptrunner_event = _ORIGINAL
    Runtime._enqueued_some_message = _ORIGINAL_WAKE

"""app/kit/internals/script_events.py: a session's script-runner events reach its handler all, once, in order, on the
loop, with one loop callback per batch instead of one per event."""
from __future__ import annotations

import asyncio
import threading

from streamlit.runtime.app_session import AppSession

from lcsm_explorer.app.kit.internals import script_events
from lcsm_explorer.app.kit.internals.script_events import _on_scriptrunner_event


class FakeSession:
    """What the batched handler uses of an AppSession: the loop hand-off and the handler."""

    def __init__(self, call_soon=None):
        self.scheduled: list = []
        self.handled: list = []
        self.fail_on = None
        if call_soon is not None:
            self._call_soon_on_event_loop = call_soon

    def _call_soon_on_event_loop(self, callback) -> None:
        self.scheduled.append(callback)

    def _handle_scriptrunner_event_on_event_loop(self, sender, event, forward_msg, *rest) -> None:
        if event == self.fail_on:
            raise RuntimeError("handler failed")
        self.handled.append((event, forward_msg, threading.get_ident()))


def test_one_callback_hands_over_every_event_in_order():
    session = FakeSession()
    for n in range(5):
        _on_scriptrunner_event(session, "runner", f"event{n}", forward_msg=n)
    assert len(session.scheduled) == 1                  # one wake-up of the loop for the five
    assert session.handled == []                        # nothing runs on the script's thread
    session.scheduled.pop()()
    assert [(e, m) for e, m, _ in session.handled] == [(f"event{n}", n) for n in range(5)]
    _on_scriptrunner_event(session, "runner", "later", forward_msg=9)
    assert len(session.scheduled) == 1                  # the batch was handed over: the next event schedules again
    session.scheduled.pop()()
    assert session.handled[-1][:2] == ("later", 9)


def test_a_failing_handler_does_not_stall_the_rest(caplog):
    session = FakeSession()
    session.fail_on = "event1"
    for n in range(3):
        _on_scriptrunner_event(session, "runner", f"event{n}", forward_msg=n)
    session.scheduled.pop()()
    assert [e for e, _, _ in session.handled] == ["event0", "event2"]
    assert "A script runner event failed" in caplog.text
    _on_scriptrunner_event(session, "runner", "event3", forward_msg=3)
    assert len(session.scheduled) == 1                  # not left marked as scheduled


def test_events_from_a_script_thread_reach_the_loop_thread_all_in_order():
    loop = asyncio.new_event_loop()
    session = FakeSession(call_soon=loop.call_soon_threadsafe)
    count = 3000

    def script() -> None:
        for n in range(count):
            _on_scriptrunner_event(session, "runner", "delta", forward_msg=n)
        _on_scriptrunner_event(session, "runner", "finished", forward_msg=count)

    async def main() -> None:
        thread = threading.Thread(target=script)
        thread.start()
        while not session.handled or session.handled[-1][0] != "finished":
            await asyncio.sleep(0.001)
        thread.join()

    try:
        loop.run_until_complete(asyncio.wait_for(main(), 30))
    finally:
        loop.close()
    assert [m for _, m, _ in session.handled] == list(range(count + 1))
    assert {ident for _, _, ident in session.handled} == {threading.get_ident()}   # the loop's thread only


def test_install_and_restore():
    original = AppSession._on_scriptrunner_event
    try:
        script_events.batch_script_events()
        script_events.batch_script_events()             # idempotent
        assert AppSession._on_scriptrunner_event is _on_scriptrunner_event
    finally:
        script_events.unbatch_script_events()
    assert AppSession._on_scriptrunner_event is original


class FakeRuntime:
    """What the send loop's wake-up uses of a Runtime: its loop and its need_send_data flag."""

    def __init__(self, loop):
        self.objs = type("AsyncObjects", (), {})()
        self.objs.eventloop = loop
        self.objs.need_send_data = asyncio.Event()

    def _get_async_objs(self):
        return self.objs


def test_the_send_loop_is_woken_once_and_from_any_thread():
    loop = asyncio.new_event_loop()
    runtime = FakeRuntime(loop)
    wake = script_events._enqueued_some_message

    async def on_the_loop() -> None:
        wake(runtime)                                   # on the loop's thread: set at once, no self-pipe
        assert runtime.objs.need_send_data.is_set()
        wake(runtime)                                   # woken already: nothing more
        runtime.objs.need_send_data.clear()             # the send loop clears it before it flushes
        thread = threading.Thread(target=wake, args=(runtime,))
        thread.start()
        thread.join()
        await asyncio.wait_for(runtime.objs.need_send_data.wait(), 5)   # from a script thread: through the loop

    try:
        loop.run_until_complete(on_the_loop())
    finally:
        loop.close()

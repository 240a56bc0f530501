"""Thread-safe remote control of a running training loop: pause, step, resume,
stop, and a learning rate that can change while it runs. RemoteControl drives a loop in
another process (a training worker) through a message channel with the same calls.

The side that schedules runs (manager.py) also tells a run whether others wait for a slot
(`set_others_waiting`); a run given a time slice (`slice_s`) then gives its slot back at
a step boundary once it has trained that long in its turn (`turn_over`)."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .config import check_learning_rate

COMMANDS = ("pause", "resume", "step", "stop", "set_lr")    # what a run's owner may send it
WORKER_COMMANDS = COMMANDS + ("set_others_waiting", "suspend")   # what may cross to a worker (the server's too)


class RunControl:
    """Shared between the thread that trains and whoever drives it (a page, a test)."""

    def __init__(self, lr: float, start_paused: bool = False, max_pause_s: float | None = None,
                 slice_s: float | None = None):
        """`lr`: the learning rate in effect, from the run's config (its starting value) until set_lr changes
        it; the loop reads it before every step, so it is the one source while the run lives.
        `max_pause_s`: a run left paused longer than this stops itself (frees a shared server's slot).
        `slice_s`: training seconds per turn on a slot while others wait (None: the run keeps its slot)."""
        self._cond = threading.Condition()
        self._paused = start_paused
        self._paused_at = time.monotonic()
        self._max_pause_s = max_pause_s
        self._pending_steps = 0
        self._stop_reason: str | None = None
        self._lr = check_learning_rate(lr)
        # Paused time while holding a training slot, summed over pauses: Step does not reset it, so a run kept
        # paused and stepped now and then cannot hold a shared server's slot forever (see paused_holding_s).
        self._has_slot = False
        self._held_s = 0.0
        self._held_since: float | None = None
        self._slice_s = slice_s
        self._others_waiting = False
        self._suspended = False

    def state(self) -> dict:
        """What a RunControl in another process starts from (RunControl.from_state)."""
        with self._cond:
            return dict(lr=self._lr, paused=self._paused, pending_steps=self._pending_steps,
                        stop_reason=self._stop_reason, max_pause_s=self._max_pause_s, slice_s=self._slice_s,
                        others_waiting=self._others_waiting, suspended=self._suspended)

    @classmethod
    def from_state(cls, state: dict) -> RunControl:
        control = cls(lr=state["lr"], start_paused=state["paused"], max_pause_s=state["max_pause_s"],
                      slice_s=state.get("slice_s"))
        control._pending_steps, control._stop_reason = state["pending_steps"], state["stop_reason"]
        control._others_waiting = bool(state.get("others_waiting", False))
        control._suspended = bool(state.get("suspended", False))
        return control

    # --- slot accounting (the side that schedules runs) --------------------
    def take_slot(self) -> None:
        """The run got a training slot: its paused-holding clock starts at zero."""
        with self._cond:
            self._has_slot, self._held_s = True, 0.0
            self._held_since = time.monotonic() if self._paused else None

    def leave_slot(self) -> None:
        """The run gave its slot back and waits again (its turn was over): no slot clock runs while it waits."""
        with self._cond:
            self._has_slot, self._held_s, self._held_since = False, 0.0, None

    def suspend(self) -> None:
        """The server is stopping: at its next step boundary (or at once, paused) the run saves its place and
        waits for the next server, paused or running as it was (the loop's `suspended` check)."""
        with self._cond:
            self._suspended = True
            self._cond.notify_all()

    def set_others_waiting(self, waiting: bool) -> None:
        """Whether other runs wait for a slot now (the scheduler says so whenever its queue changes)."""
        with self._cond:
            self._others_waiting = bool(waiting)

    def paused_holding_s(self) -> float:
        """Seconds this run has been paused while holding its slot, in total (Step does not reset it)."""
        with self._cond:
            running = time.monotonic() - self._held_since if self._held_since is not None else 0.0
            return self._held_s + running

    def _mark_paused(self) -> None:
        if not self._paused and self._has_slot:
            self._held_since = time.monotonic()

    # --- driver side -------------------------------------------------------
    def pause(self) -> None:
        with self._cond:
            self._mark_paused()
            if not self._paused:
                self._paused_at = time.monotonic()
            self._paused, self._pending_steps = True, 0
            self._cond.notify_all()

    def resume(self) -> None:
        with self._cond:
            if self._held_since is not None:
                self._held_s += time.monotonic() - self._held_since
                self._held_since = None
            self._paused, self._pending_steps = False, 0
            self._cond.notify_all()

    def step(self, n: int = 1) -> None:
        """Pause after `n` more optimiser steps (pauses now if running)."""
        with self._cond:
            self._mark_paused()
            if not self._paused:
                self._paused_at = time.monotonic()
            self._paused = True
            self._pending_steps += max(int(n), 0)
            self._cond.notify_all()

    def stop(self, reason: str = "stopped by the user") -> None:
        with self._cond:
            self._stop_reason = reason
            self._cond.notify_all()

    def set_lr(self, lr: float) -> None:
        lr = check_learning_rate(lr)
        with self._cond:
            self._lr = lr

    # --- training side -----------------------------------------------------
    @property
    def lr(self) -> float:
        return self._lr

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def stop_reason(self) -> str | None:
        return self._stop_reason

    @property
    def slice_s(self) -> float | None:
        return self._slice_s

    @property
    def suspended(self) -> bool:
        return self._suspended

    def turn_over(self, trained_s: float) -> bool:
        """Whether the loop should give its slot back at this step boundary: others wait, and it has trained
        `trained_s` ≥ slice_s seconds in this turn, running, and at least one step (every turn makes progress,
        whatever the slice). A paused run is left alone (the pause-hold rule frees its slot), so its pending
        Steps are never cut between two turns."""
        with self._cond:
            return (self._slice_s is not None and self._others_waiting and not self._paused
                    and self._stop_reason is None and trained_s > 0 and trained_s >= self._slice_s)

    def may_step(self, wait_s: float) -> bool:
        """True when the loop may take one step now (consuming a pending single step);
        otherwise waits up to `wait_s` for a change and returns False."""
        with self._cond:
            if self._stop_reason is None and self._paused and self._pending_steps == 0:
                self._cond.wait(wait_s)
            if self._stop_reason is not None:
                return False
            if not self._paused:
                return True
            if self._pending_steps > 0:
                self._pending_steps -= 1
                self._paused_at = time.monotonic()
                return True
            if self._max_pause_s is not None and time.monotonic() - self._paused_at > self._max_pause_s:
                self._stop_reason = f"stopped after {self._max_pause_s:g} s paused"
            return False


class StopAskedControl(RunControl):
    """A run that anyone may ask to stop through the run store (a grid's cell: GridRunner.stop, from any web
    process). `asked()` returns the stop's reason or None (store.stop_requested of the run); the loop reads
    stop_reason before every step, and the store is asked at most every `check_s`. A store that cannot be read
    for a moment stops nothing."""

    def __init__(self, lr: float, asked: Callable[[], str | None], check_s: float = 1.0):
        super().__init__(lr)
        self._asked, self._check_s, self._checked = asked, check_s, float("-inf")

    @property
    def stop_reason(self) -> str | None:
        reason = self._stop_reason
        if reason is None and time.monotonic() - self._checked >= self._check_s:
            self._checked = time.monotonic()
            try:
                reason = self._asked()
            except Exception:  # noqa: BLE001 — a store fault (store_faults.py) must not end a cell by itself
                reason = None
            if reason:
                self.stop(reason)
        return reason


def stop_asked_control(store, run_id: int, lr: float) -> StopAskedControl:
    """The control a grid cell trains under (pass it to record_run): it stops when `store` (a RunStore) says a
    stop was asked of run `run_id`."""
    return StopAskedControl(lr, lambda: store.stop_requested(run_id))


class RemoteControl(RunControl):
    """The server's side of a run that trains in a worker process: every call updates this mirror (what the
    server reads: paused, lr, the slot clock) and, once `attach`ed, is sent to the worker's RunControl."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._send: Callable[[str, tuple], None] | None = None

    def attach(self, send: Callable[[str, tuple], None]) -> dict:
        """From now on send every command through `send(name, args)`; returns the state to start from. Under
        the lock, so no command falls between the state and the channel."""
        with self._cond:
            self._send = send
            return self.state()

    def _forward(self, name: str, *args) -> None:
        if self._send is not None:
            self._send(name, args)

    def leave_slot(self) -> None:
        """As RunControl's, and the worker it trained in hears no more of it (another worker may take it up)."""
        with self._cond:
            super().leave_slot()
            self._send = None

    def set_others_waiting(self, waiting: bool) -> None:
        with self._cond:
            changed = bool(waiting) != self._others_waiting
            super().set_others_waiting(waiting)
            if changed:                      # the scheduler says it at every dispatch: send only the news
                self._forward("set_others_waiting", bool(waiting))

    def pause(self) -> None:
        with self._cond:
            super().pause()
            self._forward("pause")

    def resume(self) -> None:
        with self._cond:
            super().resume()
            self._forward("resume")

    def step(self, n: int = 1) -> None:
        with self._cond:
            super().step(n)
            self._forward("step", max(int(n), 0))

    def stop(self, reason: str = "stopped by the user") -> None:
        with self._cond:
            super().stop(reason)
            self._forward("stop", reason)

    def set_lr(self, lr: float) -> None:
        with self._cond:
            super().set_lr(lr)
            self._forward("set_lr", float(lr))

    def suspend(self) -> None:
        with self._cond:
            super().suspend()
            self._forward("suspend")

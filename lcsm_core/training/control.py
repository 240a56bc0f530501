"""Thread-safe remote control of a running training loop: pause, step, resume,
stop, and a learning rate that can change while it runs."""
from __future__ import annotations

import threading
import time


class RunControl:
    """Shared between the thread that trains and whoever drives it (a page, a test)."""

    def __init__(self, lr: float | None = None, start_paused: bool = False, max_pause_s: float | None = None):
        """`max_pause_s`: a run left paused longer than this stops itself (frees a shared server's slot)."""
        self._cond = threading.Condition()
        self._paused = start_paused
        self._paused_at = time.monotonic()
        self._max_pause_s = max_pause_s
        self._pending_steps = 0
        self._stop_reason: str | None = None
        self._lr = lr

    # --- driver side -------------------------------------------------------
    def pause(self) -> None:
        with self._cond:
            if not self._paused:
                self._paused_at = time.monotonic()
            self._paused, self._pending_steps = True, 0
            self._cond.notify_all()

    def resume(self) -> None:
        with self._cond:
            self._paused, self._pending_steps = False, 0
            self._cond.notify_all()

    def step(self, n: int = 1) -> None:
        """Pause after `n` more optimiser steps (pauses now if running)."""
        with self._cond:
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
        if not (0 < lr < 10):
            raise ValueError(f"learning rate must be in (0, 10), got {lr}")
        with self._cond:
            self._lr = float(lr)

    # --- training side -----------------------------------------------------
    @property
    def lr(self) -> float | None:
        return self._lr

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def stop_reason(self) -> str | None:
        return self._stop_reason

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

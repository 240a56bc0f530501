"""Background training for a shared server (the page): runs train in worker threads,
never in the caller's thread; at most `max_concurrent` train at once (server-wide),
the rest wait in a FIFO queue with a visible position; one active run per session;
a run is driven (paused, stepped, stopped, its learning rate changed) only by the session
that submitted it, while anyone may read it from the store; sizes capped by SizeLimits.
Everything a page shows comes from the run store, so a refresh or a second tab sees the
same runs; the manager only holds the live controls.
"""
from __future__ import annotations

import os
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import torch

from .config import RunConfig, SizeLimits
from .control import RunControl
from .recorder import record_run
from .store import RunStore, default_db_path

MAX_CONCURRENT_ENV = "LCSM_MAX_CONCURRENT_RUNS"
TORCH_THREADS_ENV = "LCSM_TORCH_THREADS"


def default_max_concurrent() -> int:
    value = os.environ.get(MAX_CONCURRENT_ENV)
    return max(1, int(value)) if value else max(1, (os.cpu_count() or 2) // 2)


def default_torch_threads(max_concurrent: int) -> int:
    """CPU threads for torch in a server process: the cores left after one for the server itself, shared
    by the concurrent runs. Tiny models gain little from more, and an oversubscribed core makes torch's
    thread pool spin: on a busy 2-core machine 2 threads ran ~15× slower than 1."""
    value = os.environ.get(TORCH_THREADS_ENV)
    if value:
        return max(1, int(value))
    return max(1, ((os.cpu_count() or 2) - 1) // max_concurrent)


@dataclass
class _ManagedRun:
    run_id: int
    session: str
    config: RunConfig
    control: RunControl
    thread: threading.Thread | None = None


class RunManager:
    """Owns the worker threads of one store file. Thread-safe."""

    def __init__(self, db_path: str | os.PathLike | None = None, max_concurrent: int | None = None,
                 limits: SizeLimits | None = None, max_queue: int = 20, max_pause_s: float = 600.0,
                 torch_threads: int | None = None):
        """`torch_threads` sets torch's (process-wide) CPU thread count; default: default_torch_threads()."""
        self.db_path = Path(db_path) if db_path else default_db_path()
        self.store = RunStore(self.db_path)
        self.max_concurrent = max_concurrent or default_max_concurrent()
        self.limits = limits or SizeLimits()
        self.max_queue, self.max_pause_s = max_queue, max_pause_s
        self._lock = threading.RLock()
        self._runs: dict[int, _ManagedRun] = {}
        self._queue: deque[int] = deque()
        self._running: set[int] = set()
        self.torch_threads = torch_threads or default_torch_threads(self.max_concurrent)
        torch.set_num_threads(self.torch_threads)
        threading.Thread(target=_warm_up_optimizer, daemon=True, name="lcsm-warm-up").start()

    # --- submitting --------------------------------------------------------
    def submit(self, config: RunConfig, session: str, start_paused: bool = False) -> int:
        """Validate, cap and queue a run; returns its id. ValueError with a message for the learner."""
        config.validate()
        self.limits.check(config)
        with self._lock:
            active = self.active_run(session)
            if active is not None:
                raise ValueError(f"run {active} of this session is still active; pause-and-reset it first")
            if len(self._queue) >= self.max_queue:
                raise ValueError(f"the server queue is full ({self.max_queue} runs waiting); try again shortly")
            run_id = self.store.create_run(config.to_dict(), label=describe(config), session=session)
            control = RunControl(lr=config.optim.lr, start_paused=start_paused, max_pause_s=self.max_pause_s)
            self._runs[run_id] = _ManagedRun(run_id, session, config, control)
            self._queue.append(run_id)
            self._dispatch()
            return run_id

    def _dispatch(self) -> None:
        with self._lock:
            while self._queue and len(self._running) < self.max_concurrent:
                run = self._runs[self._queue.popleft()]
                self._running.add(run.run_id)
                run.thread = threading.Thread(target=self._work, args=(run,), daemon=True,
                                              name=f"lcsm-train-{run.run_id}")
                run.thread.start()

    def _work(self, run: _ManagedRun) -> None:
        store = RunStore(self.db_path)
        try:
            if run.control.stop_reason:
                store.set_status(run.run_id, "stopped", run.control.stop_reason)
            else:
                record_run(store, run.run_id, run.config, run.control)
        finally:
            store.close()
            with self._lock:
                self._running.discard(run.run_id)
                self._runs.pop(run.run_id, None)
                self._dispatch()

    # --- asking ------------------------------------------------------------
    def active_run(self, session: str) -> int | None:
        with self._lock:
            return next((r.run_id for r in self._runs.values() if r.session == session), None)

    def queue_position(self, run_id: int) -> int | None:
        """0 while training (or paused), 1.. while waiting, None when not managed here."""
        with self._lock:
            if run_id in self._running:
                return 0
            if run_id in self._queue:
                return list(self._queue).index(run_id) + 1
            return None

    def control(self, run_id: int, session: str) -> RunControl | None:
        """The live controls of a run this session submitted; None when it is not live here or is another
        session's (another session only reads it, from the store)."""
        with self._lock:
            run = self._runs.get(run_id)
            return run.control if run is not None and run.session == session else None

    # --- driving (pause / step / resume / learning rate: through `control(run_id, session)`) -------
    def stop(self, run_id: int, session: str, reason: str = "stopped by the user") -> bool:
        """Stop a live run of this session; False (and nothing done) for another session's run."""
        with self._lock:
            run = self._runs.get(run_id)
            if run is None or run.session != session:
                return False
            self._stop(run, reason)
            return True

    def _stop(self, run: _ManagedRun, reason: str) -> None:
        with self._lock:
            run_id = run.run_id
            run.control.stop(reason)
            if run_id in self._queue:  # never started: end it here
                self._queue.remove(run_id)
                self._runs.pop(run_id)
                self.store.set_status(run_id, "stopped", reason)

    def wait(self, run_id: int, timeout: float | None = None) -> bool:
        """Block until run `run_id` has ended (tests, scripts); True if it has."""
        with self._lock:
            run = self._runs.get(run_id)
        if run is None:
            return True
        while run.thread is None:
            with self._lock:
                if run_id not in self._runs:
                    return True
            threading.Event().wait(0.05)
        run.thread.join(timeout)
        return not run.thread.is_alive()

    def shutdown(self) -> None:
        with self._lock:
            runs = list(self._runs.values())
        for run in runs:
            self._stop(run, "server shutting down")
        for run_id in [run.run_id for run in runs]:
            self.wait(run_id, 10)


_SHARED: dict[Path, RunManager] = {}
_SHARED_LOCK = threading.Lock()


def shared_manager(db_path: str | os.PathLike | None = None) -> RunManager:
    """The one manager of a store file in this process (default: `default_db_path()` now): every session
    and tab of a server drives its runs through it, so the cap, the queue and the live controls are shared."""
    path = Path(db_path or default_db_path()).resolve()
    with _SHARED_LOCK:
        if path not in _SHARED:
            _SHARED[path] = RunManager(path)
        return _SHARED[path]


def _warm_up_optimizer() -> None:
    """The first AdamW of a process pays a one-off lazy import (seconds): pay it before a learner waits."""
    torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))])


def describe(config: RunConfig) -> str:
    """A short label of a run for tables and legends."""
    t, m, o = config.task, config.model, config.optim
    size = f"T{t.seq_len}" + (f"·{t.num_kv_pairs}kv" if t.name == "mqar" else f"·{t.num_tokens}tok")
    return f"{m.layer_label} · {t.name} {size} · d{m.d_model}×{m.n_layers} · lr {o.lr:g} · seed {o.seed}"

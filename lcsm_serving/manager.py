"""Background training for a shared server (the page), and its sharing policy.

- Runs train in worker processes (worker.py: one torch thread each, spawned, reused between runs), never in
  the server's threads, so a page rerun does not wait on a training's Python (`workers="thread"` keeps the
  old in-process threads, for comparison: benchmarks/train_contention.py).
- At most `max_concurrent` train at once, server-wide (default: a core each, one core left for the server,
  and no more than half the memory at the per-run budget; LCSM_MAX_CONCURRENT_RUNS overrides); the rest wait
  in one FIFO queue (at most `max_queue`) with a visible position.
- One queued-or-running run per session: a session holds at most one place, whatever it clicks.
- The queue is FIFO per visitor and fair between visitors (the address a run's job was submitted from,
  admission.py; the learners of one class are one visitor here, `RunStore.queued_jobs`, so a class's many fresh
  learners do not each rank as never served): a visitor's n-th waiting run goes after every other visitor's
  earlier ones, counting the runs it already holds slots with, and between equals the visitor served longest ago
  goes first. Fresh tokens from
  one address therefore cannot chain their paused runs through the slot ahead of another visitor: that visitor
  waits at most one pause-hold period.
- A paused run holding a slot gives it up to a waiting run after `pause_hold_s` seconds paused in total
  (Step does not reset that clock), and any run left paused without a Step for `max_pause_s` stops.
- Turns: while other runs wait for a slot, a live run that has trained `slice_s` seconds in its turn (training
  time: pauses, its worker's start and its evaluations before the first step do not count; LCSM_SLICE_S, default
  SLICE_S; 0: no turns) gives its slot back at its next step boundary: it saves a checkpoint beside the store
  (checkpoints.py), waits at the back of the queue ("waiting: others' turn, resumes from step N") and re-enters
  through the same fair order as any waiting run; its next turn goes on from the checkpoint, exactly as if it had
  never stopped (loop.py). Nobody waits: nobody is interrupted. A paused run is never cut off this way (the
  pause-hold rule frees its slot), grid cells never are, and a waiting run keeps its controls: pause, Step and the
  learning rate apply when its turn comes, a stop ends it and removes its checkpoint. The checkpoint is a file,
  so a run whose worker dies (or trains another run) while it waits loses nothing.
- A restart keeps the learners' runs, the service's jobs (shutdown: `_keep_for_next_server`): a waiting one stays
  queued, and a training or paused one saves its checkpoint at its next step boundary and waits, queued, for the
  next server's service, which takes it up paused or running as it was. Grid cells end "interrupted" (the page
  reruns them); a run submitted here directly (not a job) ends "stopped".
- A run is driven (paused, stepped, stopped, its learning rate changed) only by the session that submitted it;
  anyone may read it from the store. Sizes and the estimated memory are capped by SizeLimits.
- A worker that dies (crash, out of memory, kill) fails its run with the reason, and a new one is started for
  the next run; a run whose worker grows far past the memory budget is ended the same way.
- **Paper-lab grid cells share the service in a lane of their own** (a page's grid is a job of the
  trainer service, adopt_cell). Live runs come first, three ways: (1) a cell never takes a live run's slot: at
  most `grid_workers` cells train at once (LCSM_GRID_WORKERS, default 1) beside the `max_concurrent` live slots;
  (2) no new cell starts while a live run waits for a slot; (3) grid workers run at a low CPU priority
  (nice GRID_NICE), so a training learner's worker and the web process get the cores first while a cell
  finishes. A cell is stopped through the store (the page's ⏹ Stop the grid: stop_cell), never paused; the
  pause-hold rule and the one-place-per-owner rule are the live lane's only.

Everything a page shows comes from the run store, so a refresh or a second tab sees the same runs; the manager
only holds the live controls.
"""
from __future__ import annotations

import atexit
import dataclasses
import os
import queue
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path

import torch

from lcsm_core.training.config import RunConfig, SizeLimits
from lcsm_core.training.control import RemoteControl, RunControl
from lcsm_core.training.loop import PREEMPTED
from lcsm_core.training.numerics import CELL_THREADS
from lcsm_serving.checkpoints import remove_checkpoint, remove_checkpoints_except
from lcsm_serving.recorder import record_run, turn_end
from lcsm_serving.store import RunStore, default_db_path
from lcsm_serving.store_faults import log_store_fault
from lcsm_serving.worker import RayWorker, WorkerProcess

MAX_CONCURRENT_ENV = "LCSM_MAX_CONCURRENT_RUNS"
GRID_WORKERS_ENV = "LCSM_GRID_WORKERS"
GRID_NICE = 10               # a grid worker's CPU priority: low (a ~10 % share beside a busy nice-0 process), so
                             # live runs and pages go first, yet a worker whose server died still ends in seconds
TORCH_THREADS_ENV = "LCSM_TORCH_THREADS"
PAUSE_HOLD_S = 120.0         # paused time (in total, Steps included) a run may hold a slot while others wait
SLICE_S = 60.0               # training seconds a live run may keep its slot per turn while others wait
SLICE_ENV = "LCSM_SLICE_S"
IDLE_PAUSE_S = 600.0         # a run paused this long with no Step stops, waiting runs or not
MEMORY_GUARD = 2.0           # a worker past this × the budget (+ its own ~1 GiB) is ended: the estimate was wrong
WORKER_OWN_BYTES = 1024 ** 3
TICK_S = 0.25


def default_max_concurrent(run_memory_bytes: float | None = None) -> int:
    """LCSM_MAX_CONCURRENT_RUNS, else one training per core with one core left for the server, and at most half
    the machine's memory at `run_memory_bytes` per run: 1 on the project's 2-core machine, 7 on 8 cores."""
    value = os.environ.get(MAX_CONCURRENT_ENV)
    if value:
        return max(1, int(value))
    by_cores = (os.cpu_count() or 2) - 1
    if run_memory_bytes:
        by_memory = int(0.5 * _machine_memory_bytes() // run_memory_bytes)
        by_cores = min(by_cores, by_memory)
    return max(1, by_cores)


def ray_slots(address: str) -> int:
    """Trainings at once on a Ray cluster: one per CPU (or GPU) it has."""
    from lcsm_serving.remote import connect
    resources = connect(address, log_to_driver=False).cluster_resources()
    return max(1, int(max(resources.get("CPU", 1), resources.get("GPU", 0))))


def default_torch_threads(max_concurrent: int, workers: str = "process") -> int:
    """CPU threads for torch per training: 1 in a worker process (tiny models gain little from more, and an
    oversubscribed core makes torch's pool spin: on a busy 2-core machine 2 threads ran ~15× slower than 1);
    with in-process threads, the cores left after one for the server, shared by the concurrent runs."""
    value = os.environ.get(TORCH_THREADS_ENV)
    if value:
        return max(1, int(value))
    if workers == "process":
        return 1
    return max(1, ((os.cpu_count() or 2) - 1) // max_concurrent)


def default_slice_s() -> float:
    """LCSM_SLICE_S (seconds ≥ 0; 0: runs keep their slot to the end), else SLICE_S. A minute: a waiting learner
    starts within about a minute per run ahead, while a turn's overhead stays well under a hundredth of it (d = 128,
    4 layers: a 7 MB checkpoint written in 0.05 s, the model and test set rebuilt from it in 0.1 s)."""
    value = os.environ.get(SLICE_ENV, "").strip()
    if not value:
        return SLICE_S
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(f"{SLICE_ENV}={value!r} must be a number of seconds ≥ 0") from None
    if not seconds >= 0:
        raise ValueError(f"{SLICE_ENV}={value!r} must be a number of seconds ≥ 0")
    return seconds


def default_grid_workers() -> int:
    """LCSM_GRID_WORKERS (≥ 0; 0: this service trains no grid cell), else 1."""
    value = os.environ.get(GRID_WORKERS_ENV, "").strip()
    if not value:
        return 1
    try:
        workers = int(value)
    except ValueError:
        raise ValueError(f"{GRID_WORKERS_ENV}={value!r} must be a whole number ≥ 0") from None
    if workers < 0:
        raise ValueError(f"{GRID_WORKERS_ENV}={value!r} must be a whole number ≥ 0")
    return workers


@dataclass(frozen=True)
class SharingPolicy:
    """What the page tells a learner who waits or is refused."""

    max_concurrent: int
    max_queue: int
    pause_hold_s: float
    max_pause_s: float
    memory_budget_bytes: float | None
    slice_s: float = 0.0                # training seconds per turn while others wait (0: a run keeps its slot)


@dataclass
class _ManagedRun:
    run_id: int
    session: str
    config: RunConfig
    control: RunControl
    thread: threading.Thread | None = None
    worker: WorkerProcess | None = None
    visitor: str | None = None          # admission's visitor_hash of who submitted it (None: the operator)
    grid: bool = False                  # a paper-lab grid's cell (the grid lane), not a tab's live run
    resumes_from: int = 0               # the step its turn begins at (> 0: it gave its slot back before)
    job: bool = False                   # a trainer-service job (adopt): the next service may take it up


class RunManager:
    """Owns the training workers of one store file. Thread-safe."""

    def __init__(self, db_path: str | os.PathLike | None = None, max_concurrent: int | None = None,
                 limits: SizeLimits | None = None, max_queue: int = 20, max_pause_s: float = IDLE_PAUSE_S,
                 torch_threads: int | None = None, pause_hold_s: float = PAUSE_HOLD_S, workers: str = "process",
                 prestart: bool = False, ray_address: str | None = None, grid_workers: int | None = None,
                 slice_s: float | None = None):
        """`workers`: "process" (default) or "thread" (in this process, as before; for comparisons).
        `slice_s`: training seconds a live run keeps its slot per turn while others wait (default:
        default_slice_s(); 0: no turns).
        `grid_workers`: grid cells at once in the grid lane (default: default_grid_workers()).
        `ray_address`: place each run on that Ray cluster (worker.RayWorker) instead of a local process.
        `torch_threads`: torch's CPU threads per training (default: default_torch_threads()). `prestart`: start
        one worker now, so the first run does not wait for Python and torch to load."""
        if workers not in ("process", "thread"):
            raise ValueError(f"workers must be 'process' or 'thread', got {workers!r}")
        self.db_path = Path(db_path) if db_path else default_db_path()
        self.store = RunStore(self.db_path)
        self.limits = limits or SizeLimits()
        self.max_concurrent = max_concurrent or (ray_slots(ray_address) if ray_address and not
                                                 os.environ.get(MAX_CONCURRENT_ENV) else
                                                 default_max_concurrent(self.limits.run_memory_bytes))
        self.max_queue, self.max_pause_s, self.pause_hold_s = max_queue, max_pause_s, pause_hold_s
        self.slice_s = default_slice_s() if slice_s is None else max(0.0, float(slice_s))
        remove_checkpoints_except(self.db_path, self.store.active_run_ids())   # a killed service's leftovers
        self.workers = workers
        self.ray_address = ray_address
        self.torch_threads = torch_threads or default_torch_threads(self.max_concurrent, workers)
        self._lock = threading.RLock()
        self._ended = threading.Condition(self._lock)
        self._runs: dict[int, _ManagedRun] = {}
        self._queue: deque[int] = deque()
        self._running: set[int] = set()
        self.grid_workers = default_grid_workers() if grid_workers is None else max(0, int(grid_workers))
        self._grid_queue: deque[int] = deque()
        self._grid_running: set[int] = set()
        self._grid_pool: list[WorkerProcess] = []
        self._draining = False
        self._last_served: dict[str | None, float] = {}      # visitor -> when a run of theirs last got a slot
        self._pool: list[WorkerProcess] = []
        self._spawned = 0
        self._closed = False
        if workers == "thread":
            torch.set_num_threads(self.torch_threads)
            threading.Thread(target=_warm_up_optimizer, daemon=True, name="lcsm-warm-up").start()
            self._events = None
        else:
            import multiprocessing
            self._events = multiprocessing.get_context("spawn").Queue()
        self._monitor = threading.Thread(target=self._watch, daemon=True, name="lcsm-run-monitor")
        self._monitor.start()
        if prestart:
            self.warm_up()

    def warm_up(self) -> None:
        """Start one worker now (in the background), so the first run does not wait for Python and torch."""
        if self.workers == "process" and not self.ray_address:
            threading.Thread(target=self._prestart, daemon=True, name="lcsm-worker-prestart").start()

    @property
    def policy(self) -> SharingPolicy:
        return SharingPolicy(self.max_concurrent, self.max_queue, self.pause_hold_s, self.max_pause_s,
                             self.limits.run_memory_bytes, self.slice_s)

    # --- submitting --------------------------------------------------------
    def submit(self, config: RunConfig, session: str, start_paused: bool = False, visitor: str | None = None) -> int:
        """Validate, cap and queue a run; returns its id. ValueError with a message for the learner. `visitor`:
        who the queue is fair between (any stable key, e.g. admission.visitor_hash; None: the operator)."""
        config.validate()
        self.limits.check(config)
        with self._lock:
            self._check_place(session)
            if len(self._queue) >= self.max_queue:
                raise ValueError(queue_full_message(self.max_queue, self.max_concurrent))
            run_id = self.store.create_run(config.to_dict(), label=describe(config), session=session)
            self._enqueue(run_id, session, config, start_paused, visitor)
            return run_id

    def adopt(self, run_id: int, config: RunConfig, session: str, start_paused: bool = False,
              visitor: str | None = None) -> None:
        """Take over a run row that already exists (a trainer-service job a web process stored, `session` its
        owner hash, `visitor` its visitor hash): checked like submit(), then queued. ValueError when it may not
        run; the row is untouched."""
        config.validate()
        self.limits.check(config)
        row = self.store.get_run(run_id)
        with self._lock:
            self._check_place(session)
            self._enqueue(run_id, session, config, start_paused, visitor)
            # a job that waited between two turns when the last service stopped resumes from its checkpoint
            self._runs[run_id].resumes_from = row.steps if row is not None else 0
            self._runs[run_id].job = True

    def adopt_cell(self, run_id: int, config: RunConfig, visitor: str | None = None) -> None:
        """Take over a page's grid cell (a GRID_JOB row): checked against the caps, then queued in the grid
        lane (first come, first served). ValueError when it may not run; the row is untouched. A cell's budget
        is its steps (admitted by their cost: admission.py), not seconds: only its sizes and memory are capped."""
        config.validate()
        dataclasses.replace(self.limits, max_steps=config.optim.max_steps,
                            max_seconds=config.optim.max_seconds).check(config)
        with self._lock:
            if self._closed:
                raise ValueError("the training server is shutting down; try again in a moment")
            control_type = RemoteControl if self.workers == "process" else RunControl
            control = control_type(lr=config.optim.lr)
            self._runs[run_id] = _ManagedRun(run_id, "", config, control, visitor=visitor, grid=True)
            self._grid_queue.append(run_id)
            self._dispatch()

    def stop_cell(self, run_id: int, reason: str) -> bool:
        """Stop a grid cell (a stop asked through the store: anyone the store allowed); False when it is not a
        cell managed here or is already stopping."""
        with self._lock:
            run = self._runs.get(run_id)
            if run is None or not run.grid or run.control.stop_reason:
                return False
            self._stop(run, reason)
            return True

    def _check_place(self, session: str) -> None:
        if self._closed:
            raise ValueError("the training server is shutting down; try again in a moment")
        active = self.active_run(session)
        if active is not None:
            raise ValueError(place_taken_message(active))

    def _enqueue(self, run_id: int, session: str, config: RunConfig, start_paused: bool,
                 visitor: str | None = None) -> None:
        control_type = RemoteControl if self.workers == "process" else RunControl
        control = control_type(lr=config.optim.lr, start_paused=start_paused, max_pause_s=self.max_pause_s,
                               slice_s=self.slice_s or None)
        self._runs[run_id] = _ManagedRun(run_id, session, config, control, visitor=visitor)
        self._queue.append(run_id)
        self._dispatch()

    def _dispatch_order(self) -> list[int]:
        """The waiting runs in the order they will get a slot: by how many runs their visitor already holds
        slots with or has waiting ahead of them, then first come first served (a visitor's own runs stay FIFO;
        one visitor alone is plain FIFO)."""
        holding = Counter(self._runs[r].visitor for r in self._running)
        ahead: Counter = Counter()
        ranked = []
        for arrival, run_id in enumerate(self._queue):
            visitor = self._runs[run_id].visitor
            served = self._last_served.get(visitor, float("-inf"))
            ranked.append((holding[visitor] + ahead[visitor], served, arrival, run_id))
            ahead[visitor] += 1
        return [run_id for *_, run_id in sorted(ranked)]

    def _served(self, visitor: str | None) -> None:
        if len(self._last_served) > 10_000:             # forget the visitors served longest ago
            for old in sorted(self._last_served, key=self._last_served.get)[:5_000]:
                del self._last_served[old]
        self._last_served[visitor] = time.monotonic()

    def managed_runs(self) -> list[int]:
        """Ids of the runs queued or holding a slot here."""
        with self._lock:
            return list(self._runs)

    def _dispatch(self) -> None:
        with self._lock:
            while self._queue and len(self._running) < self.max_concurrent and not (self._closed or self._draining):
                run = self._runs[self._dispatch_order()[0]]
                self._queue.remove(run.run_id)
                self._served(run.visitor)
                self._running.add(run.run_id)
                run.control.take_slot()
                if self.workers == "process":
                    run.worker = self._idle_worker()
                    run.worker.start(run.run_id, run.config.to_dict(), run.control)
                else:
                    self._start_thread(run)
            # The grid lane: its own workers, and only while no live run waits for a slot.
            while (self._grid_queue and len(self._grid_running) < self.grid_workers and not self._queue
                   and not (self._closed or self._draining)):
                run = self._runs[self._grid_queue.popleft()]
                self._grid_running.add(run.run_id)
                run.control.take_slot()
                if self.workers == "process":
                    run.worker = self._idle_worker(grid=True)
                    run.worker.start(run.run_id, run.config.to_dict(), run.control)
                else:
                    self._start_thread(run)
            self._tell_whether_others_wait()

    def _tell_whether_others_wait(self) -> None:
        """Every live run holding a slot learns whether a run waits: only then does its turn end (slice_s)."""
        waiting = bool(self._queue)
        for run_id in self._running:
            self._runs[run_id].control.set_others_waiting(waiting)

    def _start_thread(self, run: _ManagedRun) -> None:
        run.thread = threading.Thread(target=self._work, args=(run,), daemon=True, name=f"lcsm-train-{run.run_id}")
        run.thread.start()

    def _idle_worker(self, grid: bool = False) -> WorkerProcess:
        """An idle worker of the lane (grid cells have their own, at a low CPU priority), else a new one."""
        pool = [w for w in (self._grid_pool if grid else self._pool) if w.alive or w.run_id is not None]
        if grid:
            self._grid_pool = pool
        else:
            self._pool = pool
        idle = next((w for w in pool if w.run_id is None and w.alive), None)
        if idle is None and self.ray_address:
            idle = RayWorker(self._spawned, str(self.db_path), self._events,
                             CELL_THREADS if grid else self.torch_threads, self.ray_address, repeatable=grid)
        elif idle is None:
            # a grid cell trains as the paper lab's own cells do: one thread, deterministic (numerics.repeatable)
            idle = WorkerProcess(self._spawned, str(self.db_path), self._events,
                                 CELL_THREADS if grid else self.torch_threads, nice=GRID_NICE if grid else 0,
                                 repeatable=grid)
        else:
            return idle
        self._spawned += 1
        pool.append(idle)
        return idle

    def _prestart(self) -> None:
        with self._lock:
            if not self._pool and not self._closed:
                self._pool.append(WorkerProcess(self._spawned, str(self.db_path), self._events, self.torch_threads))
                self._spawned += 1

    def _work(self, run: _ManagedRun) -> None:
        """A run in a thread of this process (workers="thread")."""
        store = RunStore(self.db_path)
        end = "ended"
        try:
            if run.control.stop_reason:
                store.set_status(run.run_id, "stopped", run.control.stop_reason)
            else:
                end = turn_end(record_run(store, run.run_id, run.config, run.control))
        finally:
            store.close()
            if end == PREEMPTED:
                self._requeue(run.run_id)
            else:
                self._finish(run.run_id)

    def _finish(self, run_id: int) -> None:
        """Run `run_id` has ended (its thread returned or its worker said so): free its slot, start the next."""
        with self._lock:
            self._running.discard(run_id)
            self._grid_running.discard(run_id)
            run = self._runs.pop(run_id, None)
            if run is not None and run.worker is not None:
                run.worker.run_id = None
            remove_checkpoint(self.db_path, run_id)
            self._ended.notify_all()
            self._dispatch()

    def _requeue(self, run_id: int, worker_index: int | None = None) -> None:
        """Run `run_id` gave its slot back at a step boundary (its turn was over, its checkpoint saved): it waits
        at the back of the queue, and the fair order (_dispatch_order) gives it its next turn like any waiting
        run. Stopped meanwhile, or the server closing: it ends here instead. `worker_index`: the worker that
        says so (None: a thread of this process); news of a turn already handled changes nothing."""
        with self._lock:
            run = self._runs.get(run_id)
            if run is None or run_id not in self._running:
                return
            if worker_index is not None and (run.worker is None or run.worker.index != worker_index):
                return
            self._running.discard(run_id)
            if run.worker is not None:
                run.worker.run_id = None
                run.worker = None            # its next turn takes whichever worker is idle then
            run.control.leave_slot()
            if run.control.suspended and not run.control.stop_reason:
                self._runs.pop(run_id, None)             # saved for the next server: its row waits, queued
                self._ended.notify_all()
            elif run.control.stop_reason or self._draining or self._closed:
                self._end_waiting(run, run.control.stop_reason or "server shutting down")
            else:
                run.resumes_from = self.store.own_waiting_run(run_id)
                self._queue.append(run_id)
            self._dispatch()

    def _end_waiting(self, run: _ManagedRun, reason: str) -> None:
        """A run that waits for a slot (never started, or between two turns) ends "stopped" here."""
        self._runs.pop(run.run_id, None)
        self.store.set_status(run.run_id, "stopped", reason)
        remove_checkpoint(self.db_path, run.run_id)
        self._ended.notify_all()

    # --- watching ------------------------------------------------------------
    def _watch(self) -> None:
        """Worker events, dead workers, the memory guard and the paused-holding rule, every TICK_S."""
        while not self._closed:
            try:
                event = self._events.get(timeout=TICK_S) if self._events is not None else None
            except (queue.Empty, EOFError, OSError):
                event = None
            if self._events is None:
                threading.Event().wait(TICK_S)
            try:
                if event is not None:
                    worker_index, run_id, end = event
                    if end == PREEMPTED:
                        self._requeue(run_id, worker_index)
                    else:
                        self._finish(run_id)
                self._check_workers()
                self._release_paused_slots()
            except Exception as err:  # noqa: BLE001 — the monitor must outlive any one odd run
                if log_store_fault(err, "run monitor") is None:          # a store fault: logged once, not per tick
                    import traceback
                    traceback.print_exc()

    def _check_workers(self) -> None:
        with self._lock:
            running = [self._runs[r] for r in self._running | self._grid_running if self._runs[r].worker is not None]
        guard = self.limits.run_memory_bytes and MEMORY_GUARD * self.limits.run_memory_bytes + WORKER_OWN_BYTES
        for run in running:
            worker = run.worker
            if not worker.alive and self._gave_its_slot_back(run):
                self._requeue(run.run_id, worker.index)    # its worker died after saving it, before saying so
                continue
            if not worker.alive:
                code = worker.exitcode
                self._fail(run, f"its worker process ended unexpectedly (exit code {code}); the run is lost")
                continue
            used = worker.resident_bytes() if guard else None
            if used is not None and used > guard:
                worker.kill()
                self._fail(run, f"it used {used / 1024 ** 3:.1f} GiB, far over this server's budget of "
                                f"{self.limits.run_memory_bytes / 1024 ** 3:.1f} GiB per run")

    def _gave_its_slot_back(self, run: _ManagedRun) -> bool:
        """Whether a run that holds a slot here is stored as waiting again, further on than its turn began: its
        worker saved its checkpoint and stored it "queued" (the recorder does both, in that order) before its news
        reached the manager. (A worker that dies before its turn's first step fails the run: a crash at every
        resume must not go round the queue forever.)"""
        row = self.store.get_run(run.run_id)
        return not run.grid and row is not None and row.status == "queued" and row.steps > run.resumes_from

    def _fail(self, run: _ManagedRun, reason: str) -> None:
        row = self.store.get_run(run.run_id)
        if row is not None and row.active:
            self.store.set_status(run.run_id, "failed", reason)
        self._finish(run.run_id)

    def _release_paused_slots(self) -> None:
        """A paused run that held its slot for pause_hold_s (paused time in total) gives it to a waiting run."""
        with self._lock:
            if not self._queue:
                return
            for run_id in list(self._running):
                run = self._runs[run_id]
                control = run.control
                if control.paused and not control.stop_reason and control.paused_holding_s() > self.pause_hold_s:
                    control.stop(f"gave its training slot to a waiting run after {self.pause_hold_s:g} s paused "
                                     "(Step does not reset this clock); press ▶ Play for a new run")

    # --- asking ------------------------------------------------------------
    def active_run(self, session: str) -> int | None:
        with self._lock:
            return next((r.run_id for r in self._runs.values() if r.session == session), None)

    def queue_position(self, run_id: int) -> int | None:
        """0 while training (or paused), 1.. while waiting, None when not managed here."""
        with self._lock:
            if run_id in self._running or run_id in self._grid_running:
                return 0
            if run_id in self._queue:
                return self._dispatch_order().index(run_id) + 1
            if run_id in self._grid_queue:
                return self._grid_queue.index(run_id) + 1
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
            waiting = self._grid_queue if run.grid else self._queue
            if run_id in waiting:  # not training (never started, or between two turns): end it here
                waiting.remove(run_id)
                self._end_waiting(run, reason)
                self._dispatch()   # a live run that stopped waiting may let a grid cell start

    def wait(self, run_id: int, timeout: float | None = None) -> bool:
        """Block until run `run_id` has ended (tests, scripts); True if it has."""
        with self._ended:
            return self._ended.wait_for(lambda: run_id not in self._runs, timeout)

    def shutdown(self) -> None:
        """Keep every learner's run for the next server (`_keep_for_next_server`), stop the grid's cells, then end
        the workers. Safe to call twice. A grid's cells end "interrupted" (the paper lab runs them again with its
        missing cells), not "stopped" by someone; a run that could not save itself in time too."""
        with self._lock:
            self._draining = True                        # nothing starts from here on
            runs = list(self._runs.values())
            # already stopping (a visitor's ⏹ Stop the grid): keeps its own reason and stays "stopped", so
            # "Run missing cells" does not run again what a visitor chose to stop
            asked = {run.run_id for run in runs if run.control.stop_reason}
        for run in runs:
            if run.run_id in asked:
                continue
            if run.job:
                self._keep_for_next_server(run)
            else:                                        # a grid's cell, or a run no later service takes up
                self._stop(run, "server shutting down")
        for run in runs:
            self.wait(run.run_id, 10)
        with self._lock:
            self._closed = True
            pool, self._pool, grid_pool, self._grid_pool = self._pool, [], self._grid_pool, []
        for worker in pool + grid_pool:
            worker.close()
        for run in runs:                                 # a worker that did not end its run in time
            row = self.store.get_run(run.run_id)
            if row is not None and run.control.suspended and row.status == "queued":
                continue                                 # saved for the next server (_keep_for_next_server)
            if row is not None and (row.active or (run.grid and row.status == "stopped" and run.run_id not in asked)):
                self.store.set_status(run.run_id, "interrupted", "the trainer service shut down before it finished")

    def _keep_for_next_server(self, run: _ManagedRun) -> None:
        """A learner's run outlives a restart of the server (an update, a restore from a backup): one that waits
        stays queued (between two turns, with its checkpoint); one that trains or is paused saves its checkpoint at
        its next step boundary and waits, queued, for the next server's service, which takes it up paused or
        running as it was (`adopt`: from its checkpoint). Its owner's tab drives it there as before."""
        with self._lock:
            self.store.keep_for_next_server(run.run_id, paused=run.control.paused)
            run.control.suspend()
            if run.run_id in self._queue:                # not training: nothing to save but its row
                self._queue.remove(run.run_id)
                self._runs.pop(run.run_id, None)
                self._ended.notify_all()


def place_taken_message(run_id: int) -> str:
    return (f"run {run_id} of this tab is still queued or training, and a tab holds one place on this server at a "
            "time: pause-and-reset it first")


def queue_full_message(max_queue: int, max_concurrent: int) -> str:
    return (f"the server queue is full ({max_queue} runs waiting for {max_concurrent} training slot(s)); "
            "try again shortly")


def _machine_memory_bytes() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8.0 * 1024 ** 3


_SHARED: dict[Path, RunManager] = {}
_SHARED_LOCK = threading.Lock()


def shared_manager(db_path: str | os.PathLike | None = None) -> RunManager:
    """The one manager of a store file in this process (default: `default_db_path()` now): every session
    and tab of a server drives its runs through it, so the cap, the queue and the live controls are shared.
    Its workers start with the first call and end when the process exits."""
    path = Path(db_path or default_db_path()).resolve()
    with _SHARED_LOCK:
        if path not in _SHARED:
            _SHARED[path] = RunManager(path, prestart=True)
            atexit.register(_SHARED[path].shutdown)
        return _SHARED[path]


def _warm_up_optimizer() -> None:
    """The first AdamW of a process pays a one-off lazy import (seconds): pay it before a learner waits."""
    torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))])


def describe(config: RunConfig) -> str:
    """A short label of a run for tables and legends."""
    t, m, o = config.task, config.model, config.optim
    size = f"T{t.seq_len}" + (f"·{t.num_kv_pairs}kv" if t.name == "mqar" else f"·{t.num_tokens}tok")
    return f"{m.layer_label} · {t.name} {size} · d{m.d_model}×{m.n_layers} · lr {o.lr:g} · seed {o.seed}"

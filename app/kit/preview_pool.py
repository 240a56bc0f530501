"""Preview families computed off the request path: one lowest-priority worker process, shared by every session.

A family (every member of a page's `Lesson.sweep` for one set of held settings, `app/kit/sweep.py:sweep_family`)
costs 0.2–0.6 s of CPU; computed in a session's script thread it held up that session and, through the GIL,
every other one. Here `request(page, held)` queues it for a spawned worker process (`os.nice(19)`: the web
process's own work always comes first) and returns at once; `app/kit/preview.py` puts the finished family into the
byte-bounded cache, where every session of the process finds it.

- Deduplicated: a family queued or running is not queued again (thirty learners on the same defaults: one job).
- Fair: each visitor (app/kit/fair_share.py: a seated learner, else an address) has a line of their own, and the
  worker serves the lines in turn, the newest request of each first (a learner who moved on wants the family of
  where they are now); a visitor keeps at most `PER_VISITOR` families waiting, a newer one replacing their oldest
  (coalesced, never a burst ahead of everyone). So one client's burst waits behind one family of each learner,
  not thirty learners behind it. Warm-up jobs (defaults and presets, `warm`) wait for every line.
- Shed: with `MAX_QUEUED` requests waiting, or the machine's load above `max_load()`, a new family is refused
  (`request` returns None) and the page says the preview is paused; previews come back when quiet.
- Never outlives the server: each worker watches its parent and exits when it is gone (kill -9 included).

A worker keeps a quarter of the web process's cache budget (`LCSM_CACHE_MB`; at least 16 MiB, or
`LCSM_PREVIEW_CACHE_MB`): it only needs the lessons' own sub-results while it computes a family, and the finished
families live in the web process's cache.

`LCSM_PREVIEW_WORKERS` (default 1) sets the worker count; 0 computes a family in the requesting session after its
page is drawn (the old way; no process). `LCSM_PREVIEW_MAX_LOAD` sets the 1-minute load average above which
new families are shed (default: 2 × the core count).
"""
from __future__ import annotations

import os
import pickle
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

MAX_QUEUED = 6            # learners' families waiting beyond this: shed new ones
PER_VISITOR = 2           # families one visitor may have waiting; a newer one replaces their oldest
REQUEST, WARM = 0, 1      # priorities: a learner's family before a warm-up one


def worker_count() -> int:
    try:
        return max(0, int(os.environ.get("LCSM_PREVIEW_WORKERS", "1")))
    except ValueError:
        return 1


def max_load() -> float:
    try:
        return float(os.environ["LCSM_PREVIEW_MAX_LOAD"])
    except (KeyError, ValueError):
        return 2.0 * (os.cpu_count() or 1)


def worker_cache_mb() -> float:
    """The cache budget of a preview worker in MiB: LCSM_PREVIEW_CACHE_MB, else a quarter of the web process's."""
    try:
        return max(1.0, float(os.environ["LCSM_PREVIEW_CACHE_MB"]))
    except (KeyError, ValueError):
        pass
    from .cache import DEFAULT_MB
    try:
        web = float(os.environ.get("LCSM_CACHE_MB", DEFAULT_MB))
    except ValueError:
        web = DEFAULT_MB
    return max(16.0, web / 4)


def machine_busy() -> bool:
    try:
        return os.getloadavg()[0] > max_load()
    except OSError:                                        # no load average on this platform
        return False


# --- in the worker process ------------------------------------------------------------------------------------
def _start_worker(parent_pid: int, cache_mb: float) -> None:
    """Lowest priority, a smaller cache (read when the worker first imports app/kit/cache.py, after this), and gone
    with the server: a thread exits the process once its parent has changed."""
    global _in_worker
    _in_worker = True
    os.environ["LCSM_CACHE_MB"] = f"{cache_mb:g}"
    try:
        os.nice(19)
    except OSError:
        pass

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=watch, daemon=True, name="watch-parent").start()


_in_worker = False          # this process is a preview worker (`_start_worker` ran): not a web or test process
_prepared = False


def _prepare_worker() -> None:
    """Once per worker, at its first family: every lesson imported, then the heap frozen (`gc.freeze`, as
    `app/kit/web_process.py:prepare` does for a web process). Else the collector's full pass walks the hundreds of
    thousands of objects of torch, plotly, scipy and the lessons every few dozen families, a cost counted in a held
    move's (benchmarks/results/move_profile-cpu.md).
    Done at the first job, not in `_start_worker`: the web process waits for its workers to start."""
    global _prepared
    if _prepared or not _in_worker:
        return
    import gc

    from lcsm_explorer.app.lessons import all_lessons
    all_lessons()
    gc.collect()
    gc.freeze()
    _prepared = True


RESULTS_BYTES = 2 * 2**20  # a family's compute results travel back with it up to this size (else only members)


def compute_family(page: str, held: tuple) -> tuple[bytes, bytes]:
    """Every member of `page`'s sweep with `held` fixing the other settings (runs in the worker), as the web process
    keeps them (`app/kit/family.py:prepared`: the family's JSON text and the members' outline, made here), and the
    members' compute results by value (empty where they pass `RESULTS_BYTES`: copying them to the web process
    would cost more than computing one again there) — each pickled once, here: the web process unpickles them
    once, and their lengths are their sizes in its cache (each shared object counted once)."""
    _prepare_worker()
    from lcsm_explorer.app.kit.family import prepared
    from lcsm_explorer.app.kit.sweep import sweep_family
    from lcsm_explorer.app.lessons import lesson
    results: dict = {}
    spec = lesson(page)
    family = prepared(spec, held, sweep_family(spec, dict(held), results))
    sent = pickle.dumps(results, pickle.HIGHEST_PROTOCOL)
    return pickle.dumps(family, pickle.HIGHEST_PROTOCOL), (sent if len(sent) <= RESULTS_BYTES else b"")


# --- in the web process ---------------------------------------------------------------------------------------
class PreviewPool:
    """Queues families for `workers` spawned processes; `on_done(key, family, results)` is called with each result
    (`compute_family`'s; `family` None where it failed)."""

    def __init__(self, workers: int, on_done: Callable[[tuple, list], None]):
        self.workers, self.on_done = workers, on_done
        self._lock = threading.Lock()
        self._finished_one = threading.Condition(self._lock)   # a family left the queue (stored, or failed)
        self._lines: dict[object, list] = {}               # visitor → their waiting families, oldest first
        self._turns: deque = deque()                       # visitors with a family waiting, next served first
        self._warm: list = []                              # warm-up families, oldest first
        self._queued: set = set()                          # keys waiting or running
        self._running = 0
        self._executor: ProcessPoolExecutor | None = None

    def pending(self, key: tuple) -> bool:
        with self._lock:
            return key in self._queued

    def wait(self, key: tuple, timeout: float) -> bool:
        """Block (no CPU: a condition wait) until family `key` is no longer queued or running, at most `timeout`
        seconds; True when it left the queue (its `on_done` has run)."""
        with self._finished_one:
            return self._finished_one.wait_for(lambda: key not in self._queued, timeout)

    def backlog(self) -> int:
        with self._lock:
            return sum(len(line) for line in self._lines.values())

    def request(self, key: tuple, priority: int = REQUEST, visitor: object = None) -> bool | None:
        """Queue the family `key` = (page, held settings) in `visitor`'s line; True when queued or already on its
        way, None when shed (the server is busy: no new family now)."""
        with self._finished_one:
            if key in self._queued:
                return True
            if priority == WARM:
                self._warm.append(key)
            else:
                line = self._lines.get(visitor, [])
                replaced = line.pop(0) if len(line) >= PER_VISITOR else None   # coalesced: the latest wins
                waiting = sum(len(other) for other in self._lines.values()) - (replaced is not None)
                if replaced is None and (waiting >= MAX_QUEUED or machine_busy()):
                    return None
                if replaced is not None:
                    self._queued.discard(replaced)
                    self._finished_one.notify_all()        # whoever waited for it draws the plain page
                line.append(key)
                if visitor not in self._lines:
                    self._lines[visitor] = line
                    self._turns.append(visitor)
            self._queued.add(key)
        self._dispatch()
        return True

    def _next(self) -> tuple | None:
        """The family to start next (the caller holds the lock): the newest of the next visitor's line, in turn;
        else the newest warm-up family."""
        if self._turns:
            visitor = self._turns.popleft()
            line = self._lines[visitor]
            key = line.pop()
            if line:
                self._turns.append(visitor)
            else:
                del self._lines[visitor]
            return key
        return self._warm.pop() if self._warm else None

    def _dispatch(self) -> None:
        while True:
            with self._lock:
                if self._running >= self.workers:
                    return
                key = self._next()
                if key is None:
                    return
                self._running += 1
            try:
                future = self._pool().submit(compute_family, *key)
            except (BrokenProcessPool, RuntimeError):      # a worker died: a fresh pool for the next jobs
                self._executor = None
                future = Future()
                future.set_exception(BrokenProcessPool("preview worker lost"))
            future.add_done_callback(lambda done, key=key: self._finished(key, done))

    def _finished(self, key: tuple, done: Future) -> None:
        try:
            finished = done.result()
        except BrokenProcessPool:
            self._executor = None
            finished = None
        except Exception:                                  # noqa: BLE001 - a family that fails has no preview
            finished = (None, b"")
        with self._lock:
            self._running -= 1
        try:
            if finished is not None:
                self.on_done(key, *finished)
        finally:
            with self._finished_one:                       # queued until stored: a waiter then finds it cached
                self._queued.discard(key)
                self._finished_one.notify_all()
        self._dispatch()

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            from lcsm_serving.spawning import main_hidden_from_workers
            with main_hidden_from_workers():
                self._executor = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"),
                                                     initializer=_start_worker,
                                                     initargs=(os.getpid(), worker_cache_mb()))
                self._executor.submit(int).result()        # start the workers while __main__ is hidden
        return self._executor

"""Running a grid's cells: on a local process pool by default, or on a Ray cluster given its address, or — a
page's grid (`via_service=True`, shared_grid_runner) — as jobs of the trainer service.

A page's grid: the web process admits the cells (store.admit_grid, job=GRID_JOB) and runs no grid
work at all; the trainer service (lcsm_serving/service.py: a thread of the one web process, or the separate
`python -m lcsm_serving.service`) trains them in its grid lane, after live runs (manager.py says how). Its
futures are answered from the store. While another's grid holds the lab, a visitor's grid goes into the store's
grid line instead (`launch_or_queue`), and the service starts it at its turn; `lab` says where a visitor stands.
The CLI and scripts (`GridRunner(db)`) are the operator: their own pool, never queued.

Every cell is a run in the one SQLite store (session "grid:<grid id>"). A cell whose run finished
("completed" or "diverged") is not run again unless asked to; anything else (never started, failed,
interrupted) is. With Ray each cell trains in an actor that never opens the store: this process takes the
cell's metrics from it as it trains and writes them (training/remote.py), so the Ray nodes need the code, not
the store file. Each cell asks Ray for `cpus_per_cell` CPUs (its torch threads) and `gpus_per_cell` GPUs (0 on a
CPU cluster: the request path is the same; more GPUs than the cluster has is refused before anything is
admitted), and as many cells train at once as the cluster's CPUs (and GPUs) hold.
Local pool workers die with the process that started them (a watcher thread, as training/worker.py's):
their unfinished runs then belong to a dead process, and the store marks them "interrupted" when next opened.
"""
from __future__ import annotations

import functools
import multiprocessing
import os
import queue
import sqlite3
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lcsm_core.paper_lab.grid import Cell, GridSpec, cells, finished_cells, grid_session
from lcsm_core.paper_lab.results import live_results, merged
from lcsm_core.paper_lab.search import EvidencePlan, load_evidence
from lcsm_core.training import RunConfig
from lcsm_core.training.cost import run_cost_s
from lcsm_core.training.numerics import CELL_THREADS, repeatable
from lcsm_serving import RunRow, RunStore, default_db_path
from lcsm_serving.admission import AdmissionPolicy, AdmissionRefused, large_grid_refusal, visitor_hash
from lcsm_serving.spawning import main_hidden_from_workers as _main_hidden_from_workers
from lcsm_serving.store import GRID_JOB, GridBusy, LineEntry

PARENT_CHECK_S = 0.5
CELL_POLL_S = 1.0             # how often a service grid's futures read their cells' rows


def run_one(config: dict, db_path: str, run_id: int, threads: int = CELL_THREADS) -> dict:
    """Train one cell into the store (in a worker process) on `threads` torch threads with torch's deterministic
    algorithms on (numerics.repeatable: the same cell gives the same numbers again on this machine); the run's
    row keeps what else its numbers depend on (numerics.fingerprint). Returns its stored row as a plain dict."""
    from lcsm_core.training.control import stop_asked_control
    from lcsm_serving import record_run
    store = RunStore(db_path)
    try:
        cfg = RunConfig.from_dict(config)
        with repeatable(threads):
            record_run(store, run_id, cfg, stop_asked_control(store, run_id, cfg.optim.lr))   # GridRunner.stop ends it
        return cell_result(store.get_run(run_id))
    finally:
        store.close()


def cell_result(row: RunRow) -> dict:
    """What a cell's future answers: its stored row as a plain dict."""
    return dict(id=row.id, status=row.status, steps=row.steps, wall_s=row.wall_s, best_test_acc=row.best_test_acc,
                test_acc=row.test_acc, reason=row.reason, numerics=row.numerics)


def exit_with_parent() -> None:
    """Pool worker initializer: a daemon thread ends this process as soon as its parent is gone (kill -9 or SIGTERM
    of the server). Not PR_SET_PDEATHSIG: that fires when the parent's *thread* that started the worker ends, and
    a page's script thread launches the pool and ends long before the grid does."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(1)                                    # mid-run: the store marks the run interrupted
    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


@dataclass(frozen=True)
class Lab:
    """Where a visitor stands with the paper lab: the grid holding it (`active`, None: free), when it leaves the
    lab at the latest (`free_by`, time.time(); None: the operator's grid, not held to the ceiling), the grids
    waiting in line, the visitor's own line entry (waiting, with its place, or lately started or refused) and when
    their grid starts at the latest (`starts_by`: `free_by` plus the ceiling for each grid ahead of it; None when
    the lab is free, so it starts at the service's next poll, or when the operator's grid holds it)."""

    active: str | None
    free_by: float | None
    waiting: int
    line_max: int
    ceiling_s: float
    operator: bool                   # the visitor is the operator: never queued
    holds_grid: bool                 # the running grid is the visitor's
    entry: LineEntry | None = None
    starts_by: float | None = None

    @property
    def in_line(self) -> bool:
        return self.entry is not None and self.entry.state == "waiting"

    @property
    def may_queue(self) -> bool:
        """Whether a run button would put the visitor's grid in line: the lab is taken, and the visitor is no
        operator and has no grid running or waiting (one grid per visitor)."""
        return (self.active is not None or self.waiting > 0) and not (self.operator or self.holds_grid or
                                                                      self.in_line)

    @property
    def line_full(self) -> bool:
        return self.waiting >= self.line_max

    def starts_by_if_queued(self) -> float | None:
        """When a grid queued now would start at the latest (behind every grid waiting)."""
        return None if self.free_by is None else self.free_by + self.ceiling_s * self.waiting


class GridRunner:
    """Launches one grid at a time and says how it is going (everything else lives in the store)."""

    def __init__(self, db_path: str | os.PathLike | None = None, workers: int | None = None,
                 ray_address: str | None = None, gpus_per_cell: float = 0.0, cpus_per_cell: int = 1,
                 via_service: bool = False, ray_token_file: str | os.PathLike | None = None):
        """`via_service`: the cells are the trainer service's jobs (a page's grids; `workers`, `ray_address` and
        the per-cell resources are then the service's own, not this runner's). `ray_token_file`: the Ray
        cluster's token, for a cluster with token authentication (remote.connect)."""
        if gpus_per_cell < 0 or cpus_per_cell < 1:
            raise ValueError(f"a cell needs ≥ 1 CPU and ≥ 0 GPUs, got {cpus_per_cell} CPU(s), {gpus_per_cell} GPU(s)")
        self.db_path = str(db_path or default_db_path())
        self.workers = workers or max(1, min(2, os.cpu_count() or 1))
        self.ray_address, self.ray_token_file = ray_address, ray_token_file
        self.gpus_per_cell, self.cpus_per_cell = float(gpus_per_cell), int(cpus_per_cell)
        self.via_service = via_service
        self._lock = threading.Lock()
        self._active: str | None = None
        self._pending: list[Future] = []

    @property
    def where(self) -> str:
        """Where the runs execute, in words."""
        if self.via_service:
            service = self._ledger().live_service()
            if service is None:
                return "the trainer service (none is running now: the cells wait for it)"
            policy = service["policy"]
            where = "on Ray" if policy.get("ray") else "in worker processes"
            return (f"the trainer service's grid lane ({policy.get('grid_workers', 1)} cell(s) at once {where}, at "
                    "a low CPU priority: learners' live runs go first)")
        if self.ray_address:
            return (f"Ray at {self.ray_address} ({self.cpus_per_cell} CPU(s) and {self.gpus_per_cell:g} GPU(s) per "
                    "cell)")
        return f"a local pool of {self.workers} worker process(es)"

    @property
    def active_grid(self) -> str | None:
        """The grid of this store with a cell still to run, launched by any process (the store says so: "one grid
        at a time" holds across web processes); None when there is none."""
        with self._lock:
            if self._active and all(f.done() for f in self._pending):
                self._active, self._pending = None, []
        if self.via_service:
            self._ensure_service()
        return self._ledger().active_grid()

    def lab_free_by(self, grid_id: str, ceiling_s: float) -> float | None:
        """When a visitor's grid `grid_id` leaves the lab at the latest (time.time(): its admission plus the
        ceiling, admission.grid_ceiling_s); None for the operator's grid (not held to it) or no such grid."""
        ledger = self._ledger()
        if ledger.grid_visitor(grid_id) is None:
            return None
        admitted = ledger.grid_admitted_at(grid_id)
        return None if admitted is None else admitted + ceiling_s

    def lab(self, visitor: str | None, policy: AdmissionPolicy | None = None) -> Lab:
        """Where `visitor` (an address, a page's visitor key; the operator: "local" or None) stands: see Lab.
        `policy` (default AdmissionPolicy.from_env()) gives the ceiling and the line's length."""
        policy = policy or AdmissionPolicy.from_env()
        ceiling = policy.grid_ceiling_s
        active = self.active_grid
        ledger = self._ledger()
        line = ledger.grid_line()
        who = visitor_hash(visitor)
        free_by = self.lab_free_by(active, ceiling) if active else None
        entry = ledger.grid_line_entry(visitor, since=time.time() - ceiling)
        starts_by = None
        if entry is not None and entry.state == "waiting" and free_by is not None:
            starts_by = free_by + ceiling * (entry.place - 1)
        return Lab(active, free_by, len(line), policy.grid_line_max, ceiling, operator=who is None,
                   holds_grid=who is not None and active is not None and ledger.grid_visitor(active) == who,
                   entry=entry, starts_by=starts_by)

    def leave_line(self, visitor: str | None) -> str | None:
        """Take `visitor`'s grid out of the line; its grid id, or None when none of theirs waited."""
        return self._ledger().leave_grid_line(visitor)

    def _ensure_service(self) -> None:
        """A page's grid needs a live trainer service: in one web process, the client starts one in a thread
        (after a restart too, so queued cells go on); with LCSM_TRAINER=external the separate one is expected."""
        from lcsm_serving.client import shared_client
        shared_client(self.db_path).ensure_service()

    def _ledger(self) -> RunStore:
        """This runner's own handle on the store, for admission and stops (opened once: opening one writes)."""
        with self._lock:
            if getattr(self, "_ledger_store", None) is None:
                self._ledger_store = RunStore(self.db_path)
            return self._ledger_store

    def stop(self, grid_id: str | None = None, visitor: str | None = None,
             reason: str = "the grid was stopped") -> int:
        """Stop a grid (default: the active one): every cell still to run is asked to stop through the store
        (admission counts them free at once; a training cell ends at its next step, when its worker watches the
        store: control.stop_asked_control), and cells this process queued that have not started never will.
        `visitor` (an address, from a page) may stop only a grid it launched; None (the operator, the CLI) any.
        Returns how many cells were asked; 0 when there was nothing of theirs to stop."""
        store = self._ledger()
        grid_id = grid_id or store.active_grid()
        if grid_id is None:
            return 0
        asked = set(store.request_grid_stop(grid_id, reason, visitor))
        with self._lock:
            pending = [] if self.via_service else list(getattr(self, "_pending_runs", {}).items())
        for run_id, future in pending:                 # (the service stops a service grid's queued cells)
            if run_id in asked and future.cancel():
                store.set_status(run_id, "stopped", reason)
        return len(asked)

    def todo(self, spec: GridSpec, rerun: tuple | str | None = None, have: frozenset = frozenset()) -> list[Cell]:
        """The cells a launch would run: those with no finished run in the store and whose key is not in `have`
        (results known elsewhere, e.g. shipped), or — `rerun` — every cell (rerun="all") or the cells whose
        (label, seq_len) is in `rerun`, finished or not."""
        grid = cells(spec)
        if rerun == "all":
            return grid
        if rerun:
            return [c for c in grid if (c.label, c.seq_len) in set(rerun)]
        store = RunStore(self.db_path)
        try:
            done = finished_cells(store.session_runs(grid_session(spec.grid_id)))
        finally:
            store.close()
        return [c for c in grid if c.key not in done and c.key not in have]

    def launch(self, spec: GridSpec, rerun: tuple | str | None = None, have: frozenset = frozenset(),
               visitor: str | None = None,
               admission: AdmissionPolicy | None = None) -> tuple[str, list[tuple[Cell, int, Future]]]:
        """Queue the grid's cells to do (see `todo`) and start them; returns the grid id and (cell, run id,
        future) per queued cell. A grid with nothing left to do starts nothing.

        One grid at a time per store, atomically (store.admit_grid: four sessions pressing "Rerun the whole
        grid" together start one grid; the others get "still running"). `visitor`: the address a page's
        visitor has (lcsm_explorer.app.kit.visitor.visitor_key); a page's grid passes the admission policy (`admission`,
        default AdmissionPolicy.from_env(): the visitor's quota and CPU budget, the server's budget, no large
        grid unless the operator allows them). None: the operator (the CLI, scripts), never refused for cost.
        ValueError (AdmissionRefused, GridBusy) with the message for the page."""
        if self.active_grid:
            raise ValueError(f"grid {self.active_grid} is still running; wait for it to finish (or stop it)")
        todo = self.todo(spec, rerun, have)
        if not todo:
            return spec.grid_id, []
        return self._admit(spec, todo, *self._sized(spec, todo, visitor, admission), visitor)

    def launch_or_queue(self, spec: GridSpec, rerun: tuple | str | None = None, have: frozenset = frozenset(),
                        visitor: str | None = None, admission: AdmissionPolicy | None = None
                        ) -> tuple[str, list[tuple[Cell, int, Future]], int | None]:
        """`launch`, or — a page's visitor (not the operator; a runner `via_service`, whose service starts the
        line) while the lab is taken: a grid holds it, or grids wait in line — the cells to do into the store's
        grid line behind them (store.queue_grid: one grid per visitor, a few places). Returns (grid id, the
        launched (cell, run id, future)s, None), or (grid id, [], the place in line); (grid id, [], None) when
        nothing is left to do. ValueError (AdmissionRefused, GridBusy, LineRefused) with the message for the page."""
        if visitor_hash(visitor) is None or not self.via_service:
            return (*self.launch(spec, rerun, have, visitor, admission), None)
        todo = self.todo(spec, rerun, have)
        if not todo:
            return spec.grid_id, [], None
        policy, costs = self._sized(spec, todo, visitor, admission)
        if self.active_grid is None and not self._ledger().grid_line():
            try:
                return (*self._admit(spec, todo, policy, costs, visitor), None)
            except GridBusy:                  # another took the lab meanwhile: behind it, then
                pass
        place = self._ledger().queue_grid(spec.grid_id, self._cells(spec, todo, costs), grid_session(spec.grid_id),
                                          visitor, policy.grid_line_max, policy, job=GRID_JOB)
        self._ensure_service()
        return spec.grid_id, [], place

    def _sized(self, spec: GridSpec, todo: list[Cell], visitor: str | None,
               admission: AdmissionPolicy | None) -> tuple[AdmissionPolicy | None, list[float]]:
        """The policy a page's grid is admitted under (None: the operator's) and the cells' costs; AdmissionRefused
        for a page's grid over the large-grid limit."""
        costs = [run_cost_s(cell.config) for cell in todo]
        if visitor is None:
            return None, costs
        policy = admission or AdmissionPolicy.from_env()
        too_large = large_grid_refusal(policy, sum(costs), len(todo), spec.steps)
        if too_large:
            raise AdmissionRefused(too_large)
        return policy, costs

    @staticmethod
    def _cells(spec: GridSpec, todo: list[Cell], costs: list[float]) -> list[tuple[dict, str, float]]:
        return [(cell.config.to_dict(), f"{spec.ablation}: {cell.run_label}", cost) for cell, cost in zip(todo, costs)]

    def _admit(self, spec: GridSpec, todo: list[Cell], policy: AdmissionPolicy | None, costs: list[float],
               visitor: str | None) -> tuple[str, list[tuple[Cell, int, Future]]]:
        """The cells admitted (store.admit_grid) and started: on the trainer service, Ray or the local pool."""
        grid_id = spec.grid_id
        ray = self._ray() if self.ray_address and not self.via_service else None    # refused before admitting
        run_ids = self._ledger().admit_grid(grid_id, self._cells(spec, todo, costs), grid_session(grid_id), visitor,
                                            policy, job=GRID_JOB if self.via_service else 0)
        jobs = list(zip(todo, run_ids))
        if self.via_service:
            self._ensure_service()
            futures = self._watch_cells(run_ids)
            with self._lock:
                self._active, self._pending = grid_id, futures
            return grid_id, [(cell, run_id, future) for (cell, run_id), future in zip(jobs, futures)]
        args = [(cell.config.to_dict(), self.db_path, run_id) for cell, run_id in jobs]
        try:
            futures = self._submit_ray(ray, args) if ray is not None else self._submit_local(args)
        except Exception as err:              # admitted but never started: the rows must not hold the store
            for run_id in run_ids:
                self._ledger().set_status(run_id, "failed", f"the grid could not start: {err}")
            raise
        for future, (_, run_id) in zip(futures, jobs):
            # A cell stop() cancelled before it started has no crash to record (and no exception to ask).
            future.add_done_callback(lambda f, run_id=run_id: f.cancelled() or self._record_crash(f, run_id))
        with self._lock:
            self._active, self._pending = grid_id, futures
            self._pending_runs = dict(zip(run_ids, futures))
        return grid_id, [(cell, run_id, future) for (cell, run_id), future in zip(jobs, futures)]

    def _record_crash(self, future: Future, run_id: int) -> None:
        """A worker that died before its run could say so leaves the run "failed", never "queued"."""
        error = future.exception()
        if error is None:
            return
        store = RunStore(self.db_path)
        try:
            row = store.get_run(run_id)
            if row is not None and row.active:
                store.set_status(run_id, "failed", f"worker ended: {type(error).__name__}: {error}")
        finally:
            store.close()

    def _watch_cells(self, run_ids: list[int]) -> list[Future]:
        """Futures of a service grid's cells, answered (with run_one's dict) when each cell's row ends: one daemon
        thread reads the rows every CELL_POLL_S until the last one has."""
        futures = {run_id: Future() for run_id in run_ids}

        def watch():
            store = RunStore(self.db_path)
            try:
                while futures:
                    time.sleep(CELL_POLL_S)
                    for run_id in list(futures):
                        row = store.get_run(run_id)
                        if row is None or not row.active:
                            futures.pop(run_id).set_result(None if row is None else cell_result(row))
            except Exception as err:  # noqa: BLE001 — a store fault: the futures say so, the page reads the store
                for future in futures.values():
                    future.set_exception(err)
            finally:
                store.close()
        ordered = list(futures.values())
        threading.Thread(target=watch, daemon=True, name="lcsm-grid-cells").start()
        return ordered

    def _submit_local(self, args) -> list[Future]:
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=exit_with_parent)
        with _main_hidden_from_workers():    # a spawn pool starts its workers inside submit()
            futures = [pool.submit(run_one, *job) for job in args]
        pool.shutdown(wait=False)            # workers finish the queue, then the pool goes away
        return futures

    def _ray(self):
        """The `ray` module connected to this runner's cluster, which can hold a cell; ValueError saying why not."""
        from lcsm_serving.remote import connect, gpu_refusal
        try:
            ray = connect(self.ray_address, self.ray_token_file)
        except ImportError as err:
            raise ValueError(f"a Ray address was given but {err}" if "ray[client]" in str(err) else
                             "a Ray address was given but Ray is not installed (pip install 'ray[client]')") from None
        resources = ray.cluster_resources()
        refusal = gpu_refusal(self.gpus_per_cell, resources, self.ray_address)
        if refusal:
            raise ValueError(refusal)
        if resources.get("CPU", 0) < self.cpus_per_cell:
            raise ValueError(f"each cell asks for {self.cpus_per_cell} CPU(s) but the Ray cluster at "
                             f"{self.ray_address} has {resources.get('CPU', 0):g}")
        return ray

    def _submit_ray(self, ray, args) -> list[Future]:
        """Each cell in an actor of its own (training/remote.py), as many at once as the cluster holds; a thread of
        this process per running cell writes its calls into the store and forwards a stop asked of it. Daemon
        threads: an interrupted CLI exits at once, its job's actors end with it, and the store marks their cells
        "interrupted" (their owner, this process, is gone)."""
        resources = ray.cluster_resources()
        at_once = int(resources.get("CPU", 0) // self.cpus_per_cell)
        if self.gpus_per_cell:
            at_once = min(at_once, int(resources.get("GPU", 0) // self.gpus_per_cell))
        return in_daemon_threads(max(1, at_once), [functools.partial(self._ray_cell, ray, *job) for job in args])

    def _ray_cell(self, ray, config: dict, db_path: str, run_id: int) -> dict:
        """Train one cell on the cluster (one torch thread per CPU asked for, deterministic, as run_one) and write
        it into the store here; returns its stored row as a plain dict."""
        from lcsm_core.training.control import RunControl
        from lcsm_serving.remote import RemoteTrainer, drive, end_actor
        store = RunStore(db_path)
        actor = ray.remote(num_cpus=self.cpus_per_cell, num_gpus=self.gpus_per_cell,
                           max_concurrency=3)(RemoteTrainer).remote(self.cpus_per_cell, True)
        stopping = []

        def forward_stop():
            try:
                reason = None if stopping else store.stop_requested(run_id)
            except sqlite3.Error:             # a store that cannot be read for a moment stops nothing
                reason = None
            if reason:
                stopping.append(reason)
                actor.command.remote(run_id, "stop", (reason,))
        try:
            state = RunControl(lr=RunConfig.from_dict(config).optim.lr).state()
            drive(ray, actor, actor.train.remote(run_id, config, state), store, between=forward_stop)
            return cell_result(store.get_run(run_id))
        finally:
            end_actor(ray, actor)
            store.close()


def in_daemon_threads(workers: int, calls: list) -> list[Future]:
    """Futures of `calls` (no arguments each), run in order on `workers` daemon threads; a future cancelled before
    its turn never runs (GridRunner.stop)."""
    futures = [Future() for _ in calls]
    todo: queue.SimpleQueue = queue.SimpleQueue()
    for pair in zip(futures, calls):
        todo.put(pair)

    def work():
        while True:
            try:
                future, call = todo.get_nowait()
            except queue.Empty:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as err:  # noqa: BLE001 — the future carries it (GridRunner._record_crash)
                future.set_exception(err)
    for index in range(min(workers, len(calls))):
        threading.Thread(target=work, daemon=True, name=f"lcsm-ray-cell-{index}").start()
    return futures


_SHARED: dict[Path, GridRunner] = {}
_SHARED_LOCK = threading.Lock()


def shared_grid_runner(db_path: str | os.PathLike | None = None) -> GridRunner:
    """The one runner of a store file in a web process (one grid at a time, whoever launched it): its grids are
    jobs of the trainer service (which places them on the Ray cluster at $LCSM_RAY_ADDRESS when it is set)."""
    path = Path(db_path or default_db_path()).resolve()
    with _SHARED_LOCK:
        if path not in _SHARED:
            _SHARED[path] = GridRunner(path, via_service=True)
        return _SHARED[path]


def stored_results(plan: EvidencePlan, db_path, with_shipped: bool = True) -> list:
    """The plan's finished cells in a run store (every stage's grid), merged over the shipped evidence file's when
    that file is of this plan's grid (a budget changed since keeps its cells); `with_shipped=False`: the store's
    own cells only."""
    shipped = load_evidence(plan.ablation) if with_shipped else None
    have = shipped.results if shipped is not None and shipped.plan.base == plan.base else []
    store = RunStore(db_path)
    try:
        live = [r for spec in plan.specs() for r in live_results(spec, store.session_runs(grid_session(spec.grid_id)))]
    finally:
        store.close()
    return merged(have, live)

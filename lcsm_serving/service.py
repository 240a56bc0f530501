"""The trainer service: the one place that trains runs for every web process of a server.

Process model
-------------
Web processes never train. A tab's ▶ Play stores a *job* (a queued run row) and each button a *command* row
in the run store (SQLite WAL, store.py); the service polls the store every POLL_S, takes the new jobs, trains
them on its worker processes (worker.py, one run each) and applies commands to the runs' controls. What may be
stored at all is the admission policy's (admission.py: a per-visitor quota and CPU budget, a server budget),
applied by the web process in the transaction that stores the job. The sharing policy is RunManager's
(manager.py): one queued-or-training run per owner, at most `max_concurrent` at once, a queue of at most
`max_queue` (FIFO per visitor, fair between visitors), a paused run gives its slot to a waiting run after
PAUSE_HOLD_S paused in total and stops after IDLE_PAUSE_S, a run that trained SLICE_S in its turn while others
wait gives its slot back and resumes from its checkpoint at its next turn, SizeLimits and the memory guard, a
dead worker fails its run. It writes each run's queue position into the store, where every web process reads it.

A page's paper-lab grid is the service's work too: the page admits its cells in one transaction
(store.admit_grid with job=GRID_JOB; paper_lab/runner.py GridRunner(via_service=True)), and the service takes
them like jobs and trains them in RunManager's grid lane: its own LCSM_GRID_WORKERS workers at a low CPU
priority, and no new cell while a live run waits, so a learner's ▶ Play is never kept waiting by a grid. A
stop asked of a cell through the store (⏹ Stop the grid, from any web process) is applied here, and so is the grid
line: when no grid has a cell to run (it ended, was stopped, or passed the ceiling) the service starts the grid at
the head of the store's line (store.start_grid_line_head). SIGTERM ends the
running cells and the queued ones "interrupted" (the page's "Run missing cells" reruns them); after a kill -9 the
cell that was training ends "interrupted" (its worker sees its parent gone) and the queued ones wait for the next
service, as live jobs do. The CLI (`python -m lcsm_serving.paper_lab`) is the operator and keeps its own pool.

- Several web processes (scripts/app.sh): `LCSM_TRAINER=external` in the web processes, and one
  `python -m lcsm_serving.service [--db PATH]` beside them (PATH defaults to default_db_path()).
- One web process (a laptop, the tests): no env; the first TrainerClient of a process starts the service
  in a thread of that process when no live service holds the store (client.py).

A single service drives a store: it holds the `service` row (a lease: its process, a heartbeat, its policy)
and a second service on the same file refuses to start. A web process that dies loses nothing (its jobs and
runs live in the store and the service); a service that dies (kill -9) takes its workers with it (they watch
their parent) and its runs end "interrupted"; jobs still waiting stay queued for the next service. SIGTERM
keeps the learners' runs for the next service (a paused or training run saves its checkpoint and waits, queued;
the next service takes it up paused or running as it was, from that step), ends the grid's cells and exits.

With `LCSM_RAY_ADDRESS` set, the service places each run, and each cell of a page's grid, on that Ray cluster
(worker.RayWorker: an actor holding one CPU, or one GPU for a CUDA run) instead of a local worker process; the
policy is the same. The actors send their metrics back to the service, which writes them (remote.py): the Ray
nodes need the code, not the store. A cluster with token authentication takes its token from the file named by
`LCSM_RAY_TOKEN_FILE` (or Ray's own RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH). (The CLI's grids take `--ray`.)
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path

from lcsm_core.training.config import RunConfig, SizeLimits
from lcsm_serving.admission import AdmissionPolicy, grid_ceiling_message
from lcsm_serving.manager import IDLE_PAUSE_S, PAUSE_HOLD_S, SLICE_ENV, SLICE_S, RunManager
from lcsm_serving.remote import RayConnectError
from lcsm_serving.store import RunStore, default_db_path
from lcsm_serving.store_faults import log_store_fault

POLL_S = 0.2                 # how often the service reads new jobs and commands
HEARTBEAT_S = 1.0            # how often it renews its lease
KEEP_COMMANDS_S = 86400.0    # applied commands and ended grid-line entries older than this go when a service starts
RAY_ADDRESS_ENV = "LCSM_RAY_ADDRESS"


class ServiceBusy(RuntimeError):
    """Another live service already drives this store."""


class TrainerService:
    """Drives the runs of one store file: jobs and commands in, RunManager's policy, positions out."""

    def __init__(self, db_path: str | os.PathLike | None = None, admission: AdmissionPolicy | None = None,
                 **manager_options):
        """`manager_options`: RunManager's (max_concurrent, max_queue, pause_hold_s, max_pause_s, limits, ...);
        `admission`: the policy whose grid ceiling the service keeps (default: the environment's)."""
        self.admission = admission or AdmissionPolicy.from_env()
        self.db_path = Path(db_path) if db_path else default_db_path()
        self.store = RunStore(self.db_path)
        self.manager: RunManager | None = None
        self._options = dict(manager_options)
        self._options.setdefault("ray_address", os.environ.get(RAY_ADDRESS_ENV) or None)
        self._stop = threading.Event()
        self._last_job = 0
        self._last_cell = 0
        self._last_heartbeat = 0.0
        self._positions: dict[int, int | None] = {}

    def start(self) -> None:
        """Take the lease and start the workers; ServiceBusy when another live service holds the store."""
        manager = RunManager(self.db_path, **self._options)
        if not self.store.acquire_service(policy_of(manager)):
            manager.shutdown()
            raise ServiceBusy(f"a trainer service already drives {self.db_path}")
        manager.warm_up()
        self.manager = manager
        self.store.prune_commands(time.time() - KEEP_COMMANDS_S)
        self.store.prune_grid_line(time.time() - KEEP_COMMANDS_S)

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def serve(self) -> None:
        """Poll until stop() (or until the lease is lost), then shut the runs down."""
        try:
            while not self._stop.wait(POLL_S):
                try:
                    if not self.tick():
                        break
                except Exception as err:  # noqa: BLE001 — one odd job or command must not end the service
                    if log_store_fault(err, "trainer service") is None:   # a store fault: logged once, not per poll
                        traceback.print_exc()
        finally:
            self.shutdown()

    def tick(self) -> bool:
        """One poll: lease, new jobs, pending commands, positions. False when the lease was lost."""
        now = time.monotonic()
        if now - self._last_heartbeat > HEARTBEAT_S:
            if not self.store.service_heartbeat():
                print("trainer service: lost the store's lease to another service; stopping", file=sys.stderr)
                return False
            self._last_heartbeat = now
        self._admit_jobs()
        self._end_grid_past_ceiling()
        self._start_queued_grid()
        self._admit_cells()
        self._apply_commands()
        self._write_positions()
        return True

    def _admit_jobs(self) -> None:
        for run_id, config, owner, start_paused, visitor in self.store.queued_jobs(self._last_job):
            self._last_job = run_id
            try:
                self.manager.adopt(run_id, RunConfig.from_dict(config), owner, start_paused, visitor)
            except Exception as err:  # noqa: BLE001 — a refused job ends with its reason, the service goes on
                self.store.set_status(run_id, "failed", f"refused by the trainer service: {err}")

    def _end_grid_past_ceiling(self) -> None:
        """Stop what is left of a visitor's grid that has held the lab past the ceiling (admission.py); the
        operator's grids (no visitor) run on."""
        grid = self.store.active_grid()
        if grid is None or self.store.grid_visitor(grid) is None:
            return
        ceiling = self.admission.grid_ceiling_s
        admitted = self.store.grid_admitted_at(grid)
        if admitted is not None and time.time() - admitted > ceiling:
            self.store.request_grid_stop(grid, grid_ceiling_message(ceiling))

    def _start_queued_grid(self) -> None:
        """The head of the grid line into the lab once no grid has a cell to run (after the ceiling freed it, in
        the same poll); its cells are taken by _admit_cells below. The store admits it in one transaction with
        its checks, so a web process racing for the lab cannot start a second grid."""
        for entry in self.store.start_grid_line_head(self.admission):
            if entry.state == "refused":
                print(f"trainer service: grid {entry.grid} was refused at its turn: {entry.reason}", file=sys.stderr)

    def _admit_cells(self) -> None:
        """New grid cells into the grid lane (a cell already asked to stop ends here); then the stops asked of
        cells already taken."""
        for run_id, config, visitor, stop in self.store.queued_grid_cells(self._last_cell):
            self._last_cell = run_id
            if stop:
                self.store.set_status(run_id, "stopped", stop)
                continue
            try:
                self.manager.adopt_cell(run_id, RunConfig.from_dict(config), visitor)
            except Exception as err:  # noqa: BLE001 — a refused cell ends with its reason, the service goes on
                self.store.set_status(run_id, "failed", f"refused by the trainer service: {err}")
        for run_id, reason in self.store.grid_stops():
            self.manager.stop_cell(run_id, reason)

    def _apply_commands(self) -> None:
        for command_id, run_id, owner, name, args in self.store.pending_commands():
            self.store.command_applied(command_id, self._apply(run_id, owner, name, args))

    def _apply(self, run_id: int, owner: str, name: str, args: list) -> str:
        """Owner-only: the command's owner hash must be the run's. Returns the outcome stored with it."""
        if name == "stop":
            return "applied" if self.manager.stop(run_id, owner, *args[:1]) else "refused: not a live run of its owner"
        control = self.manager.control(run_id, owner)
        if control is None:
            return "refused: not a live run of its owner"
        if name not in ("pause", "resume", "step", "set_lr"):
            return f"refused: unknown command {name!r}"
        try:
            getattr(control, name)(*args)
        except (TypeError, ValueError) as err:
            return f"refused: {err}"
        return "applied"

    def _write_positions(self) -> None:
        positions = {run_id: self.manager.queue_position(run_id) for run_id in self.manager.managed_runs()}
        changed = {r: p for r, p in positions.items() if self._positions.get(r, -1) != p}
        if changed:
            self.store.set_queue_positions(changed)
        self._positions = positions

    def stop(self) -> None:
        self._stop.set()

    def shutdown(self) -> None:
        """Keep the learners' runs for the next service, end the grid's cells and the workers, give the lease back."""
        self._stop.set()
        if self.manager is not None:
            self.manager.shutdown()
            try:
                self.store.release_service()
            except Exception as err:  # noqa: BLE001 — a store that cannot be written lets the lease expire instead
                if log_store_fault(err, "trainer service shutdown") is None:
                    raise
            self.manager = None


def policy_of(manager: RunManager) -> dict:
    """What web processes read from the service's row: the sharing policy and the caps."""
    return dict(max_concurrent=manager.max_concurrent, max_queue=manager.max_queue,
                pause_hold_s=manager.pause_hold_s, max_pause_s=manager.max_pause_s, slice_s=manager.slice_s,
                limits=dataclasses.asdict(manager.limits), grid_workers=manager.grid_workers,
                ray=bool(manager.ray_address))


def start_in_thread(db_path: str | os.PathLike | None = None, **manager_options) -> TrainerService:
    """A service in a daemon thread of this process (one web process): ServiceBusy when one already runs."""
    service = TrainerService(db_path, **manager_options)
    service.start()
    threading.Thread(target=service.serve, daemon=True, name="lcsm-trainer-service").start()
    return service


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lcsm-explorer service",
                                     description="The trainer service of a run store (see the module docstring).")
    parser.add_argument("--db", default=None, help="the run store file (default: $LCSM_DATA_DIR/runs.sqlite)")
    parser.add_argument("--max-concurrent", type=int, default=None,
                        help="trainings at once (default: $LCSM_MAX_CONCURRENT_RUNS, else a core each but one)")
    parser.add_argument("--max-queue", type=int, default=20, help="runs that may wait for a slot")
    parser.add_argument("--pause-hold-s", type=float, default=PAUSE_HOLD_S,
                        help="paused seconds (in total) a run may hold a slot while others wait")
    parser.add_argument("--max-pause-s", type=float, default=IDLE_PAUSE_S, help="a run paused this long stops")
    parser.add_argument("--slice-s", type=float, default=None,
                        help="training seconds a run keeps its slot per turn while others wait, then resumes from "
                             f"a checkpoint at its next turn (default: ${SLICE_ENV}, else {SLICE_S:g}; 0: no turns)")
    parser.add_argument("--grid-workers", type=int, default=None,
                        help="paper-lab grid cells at once, at a low CPU priority (default: $LCSM_GRID_WORKERS, "
                             "else 1; 0: no grid cell runs here)")
    parser.add_argument("--limits", default=None, help='SizeLimits overrides as JSON, e.g. {"max_d_model": 64}')
    args = parser.parse_args(argv)
    limits = SizeLimits(**json.loads(args.limits)) if args.limits else None
    service = TrainerService(args.db, max_concurrent=args.max_concurrent, max_queue=args.max_queue,
                             pause_hold_s=args.pause_hold_s, max_pause_s=args.max_pause_s, limits=limits,
                             grid_workers=args.grid_workers, slice_s=args.slice_s)
    try:
        service.start()
    except (ServiceBusy, RayConnectError) as err:    # LCSM_RAY_ADDRESS unreachable, or it refused the token
        print(f"trainer service: {err}", file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: service.stop())
    signal.signal(signal.SIGINT, lambda *_: service.stop())
    where = f"on Ray at {service.manager.ray_address}" if service.manager.ray_address else "in worker processes"
    print(f"trainer service: pid {os.getpid()} drives {service.db_path} "
          f"({service.manager.max_concurrent} training slot(s) and {service.manager.grid_workers} grid worker(s), "
          f"{where})", flush=True)
    service.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())

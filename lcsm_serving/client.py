"""What a web process uses to train: TrainerClient talks to the trainer service (service.py) only through
the run store, so any web process can drive a run and none holds one.

- submit() checks the config and the caps here (an instant, clear ValueError) and stores the job in one
  transaction with the per-owner place, the admission policy (admission.py: the visitor's quota and CPU budget,
  the server's budget; `visitor` is the address the web process sees) and the queue-full checks (the same words
  as RunManager's); the service checks the caps again when it takes the job.
- command() / stop() store a command for the service, only for a live run of the same owner token (the
  store compares hashes; another owner's command is refused and stored nowhere).
- Without LCSM_TRAINER=external, the first client of a process (and any later call that finds no live
  service) starts the service in a thread of this process, so one web process behaves as before.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from lcsm_core.training.config import RunConfig, SizeLimits, check_learning_rate
from lcsm_core.training.control import COMMANDS
from lcsm_core.training.cost import run_cost_s
from lcsm_serving.admission import AdmissionPolicy
from lcsm_serving.manager import (
    IDLE_PAUSE_S,
    PAUSE_HOLD_S,
    SharingPolicy,
    default_max_concurrent,
    default_slice_s,
    describe,
    place_taken_message,
    queue_full_message,
)
from lcsm_serving.store import PlaceTaken, QueueFull, RunStore, default_db_path

if TYPE_CHECKING:
    from lcsm_serving.service import TrainerService

TRAINER_ENV = "LCSM_TRAINER"          # "external": a separate `python -m lcsm_serving.service` runs
DEFAULT_MAX_QUEUE = 20
SERVICE_CHECK_S = 2.0                 # how often a client looks for a live service (thread mode)


class TrainerClient:
    """A web process's handle on the trainer service of one store file. Thread-safe."""

    def __init__(self, db_path: str | os.PathLike | None = None, start_service: bool | None = None,
                 admission: AdmissionPolicy | None = None):
        """`start_service`: start a service thread here when none is live (default: unless
        LCSM_TRAINER=external). `admission`: the admission policy (default: AdmissionPolicy.from_env() at each
        submit, the settings every process of a server shares)."""
        self.db_path = Path(db_path) if db_path else default_db_path()
        self.admission = admission
        self.store = RunStore(self.db_path)
        self.start_service = (os.environ.get(TRAINER_ENV) != "external") if start_service is None else start_service
        self._lock = threading.Lock()
        self._service_seen = 0.0
        self.ensure_service()

    # --- the service -------------------------------------------------------
    def ensure_service(self) -> None:
        """Start the service in a thread of this process when this client may and none is live."""
        if not self.start_service or time.monotonic() - self._service_seen < SERVICE_CHECK_S:
            return
        with self._lock:
            if self.store.live_service() is None:
                _start_local_service(self.db_path)
            self._service_seen = time.monotonic()

    def _service_policy(self) -> dict:
        row = self.store.live_service()
        return row["policy"] if row else {}

    @property
    def limits(self) -> SizeLimits:
        """The live service's caps, else the defaults."""
        return _limits_of(self._service_policy())

    @property
    def policy(self) -> SharingPolicy:
        """The live service's sharing policy, else what a service started now would use."""
        return _sharing_policy_of(self._service_policy())

    # --- submitting and driving ---------------------------------------------
    def submit(self, config: RunConfig, owner: str, start_paused: bool = False, visitor: str = "") -> int:
        """Store a job for the service; its run id. ValueError with a message for the learner (bad config,
        over a cap, this owner already holds a place, the queue is full). `visitor`: who asks, as the server sees
        them (`app/kit/visitor.py:visitor_key`), for the admission policy's per-visitor quota and budget ("" or
        "local": this machine's own user, the operator)."""
        self.ensure_service()
        p = self._service_policy()
        config.validate()
        _limits_of(p).check(config)
        policy = _sharing_policy_of(p)
        admission = self.admission or AdmissionPolicy.from_env()
        try:
            return self.store.submit_job(config.to_dict(), describe(config), owner, start_paused,
                                         policy.max_concurrent, policy.max_queue, visitor=visitor or None,
                                         cost_s=run_cost_s(config), admission=admission)
        except PlaceTaken as err:
            raise ValueError(place_taken_message(err.run_id)) from None
        except QueueFull:
            raise ValueError(queue_full_message(policy.max_queue, policy.max_concurrent)) from None

    def command(self, run_id: int, owner: str, name: str, *args) -> bool:
        """Send pause / resume / step n / stop reason / set_lr lr to a live run of `owner`; False when the
        run is not live or is another owner's. ValueError for a learning rate out of range."""
        if name not in COMMANDS:
            raise ValueError(f"command must be one of {', '.join(COMMANDS)}, got {name!r}")
        if name == "set_lr":
            check_learning_rate(args[0])
        self.ensure_service()
        return self.store.add_command(run_id, owner, name, args)

    def stop(self, run_id: int, owner: str, reason: str = "stopped by the user") -> bool:
        return self.command(run_id, owner, "stop", reason)

    # --- asking --------------------------------------------------------------
    def queue_position(self, run_id: int) -> int | None:
        """0 while training (or holding a slot paused), 1.. while waiting, None when ended or not placed yet."""
        return self.store.queue_position(run_id)

    def is_mine(self, run_id: int | None, owner: str) -> bool:
        """Whether `owner` submitted run `run_id` (live or not)."""
        row = self.store.get_run(run_id) if run_id else None
        return row is not None and row.owned_by(owner)

    def drives(self, run_id: int | None, owner: str) -> bool:
        """Whether `owner` may drive run `run_id` now: theirs and still queued, training or paused."""
        row = self.store.get_run(run_id) if run_id else None
        return row is not None and row.active and row.owned_by(owner)

    def wait(self, run_id: int, timeout: float | None = None, poll_s: float = 0.05) -> bool:
        """Block until run `run_id` has ended (tests, scripts); True if it has."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while deadline is None or time.monotonic() < deadline:
            row = self.store.get_run(run_id)
            if row is None or not row.active:
                return True
            time.sleep(poll_s)
        return False


def _limits_of(policy: dict) -> SizeLimits:
    return SizeLimits(**policy["limits"]) if policy.get("limits") else SizeLimits()


def _sharing_policy_of(policy: dict) -> SharingPolicy:
    limits = _limits_of(policy)
    return SharingPolicy(policy.get("max_concurrent") or default_max_concurrent(limits.run_memory_bytes),
                         policy.get("max_queue", DEFAULT_MAX_QUEUE), policy.get("pause_hold_s", PAUSE_HOLD_S),
                         policy.get("max_pause_s", IDLE_PAUSE_S), limits.run_memory_bytes,
                         policy.get("slice_s", default_slice_s()))


_CLIENTS: dict[Path, TrainerClient] = {}
_SERVICES: dict[Path, TrainerService] = {}
_SHARED_LOCK = threading.RLock()     # shared_client → TrainerClient() → _start_local_service


def shared_client(db_path: str | os.PathLike | None = None) -> TrainerClient:
    """The one client of a store file in this process (default: `default_db_path()` now)."""
    path = Path(db_path or default_db_path()).resolve()
    with _SHARED_LOCK:
        if path not in _CLIENTS:
            _CLIENTS[path] = TrainerClient(path)
        return _CLIENTS[path]


def _start_local_service(path: Path) -> None:
    """A service thread for `path` in this process, unless one runs here already or another process wins."""
    import atexit

    # Imported here, not at the top: `python -m lcsm_serving.service` imports this package first, and a
    # service module already imported by then makes runpy warn that it may run twice.
    from lcsm_serving.service import ServiceBusy, start_in_thread
    path = path.resolve()
    with _SHARED_LOCK:
        running = _SERVICES.get(path)
        if running is not None and not running.stopping:
            return
        try:
            _SERVICES[path] = service = start_in_thread(path)
        except ServiceBusy:
            return
        atexit.register(service.shutdown)

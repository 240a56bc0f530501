"""Drive a training loop and keep what it yields in the run store: metric rows and
eigenvalue snapshots are buffered and written in one transaction at least every
`flush_s` seconds (and at every status change), with a heartbeat.

A run that gives its slot back (a PREEMPTED record: its turn was over, or the server is stopping) saves its
checkpoint beside the store (checkpoints.py) and is stored as "queued" again, with a reason that says from which
step it resumes; the next record_run of that run goes on from the checkpoint. A paused run saves its checkpoint
too, at each step it pauses at (before the store says so): a service that dies, or a backup taken while the server
runs, keeps it, and the next service takes it up paused (store.mark_interrupted).

The store is a RunStore, or anything with the five calls record_run makes (start_run, write, set_status,
checkpoint, save_checkpoint): a Ray worker passes a remote.RunOutbox, which keeps the calls for the process that
owns the store to replay (remote.py), so the worker never opens the store."""
from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterator

import numpy as np

from lcsm_core.training.config import RunConfig
from lcsm_core.training.control import RunControl
from lcsm_core.training.loop import PREEMPTED, Trainer, TrainRecord
from lcsm_core.training.numerics import fingerprint
from lcsm_serving.store import RunStore
from lcsm_serving.store_faults import run_fault_reason

MAX_EIGENVALUES_PER_LAYER = 256


def thin_eigenvalues(values: np.ndarray, cap: int = MAX_EIGENVALUES_PER_LAYER) -> np.ndarray:
    """At most `cap` evenly spaced entries (the same indices at every snapshot)."""
    if len(values) <= cap:
        return values
    return values[np.linspace(0, len(values) - 1, cap).round().astype(int)]


def record_run(store: RunStore, run_id: int, config: RunConfig, control: RunControl | None = None,
               flush_s: float = 0.5, on_record: Callable[[TrainRecord], None] | None = None) -> TrainRecord | None:
    """Train `config` as run `run_id` of `store` until it ends or gives its slot back (the last record's status
    is then PREEMPTED); returns the last record. A run with a checkpoint beside the store goes on from it.
    Any exception (bad config, missing registry, ...) ends the run as "failed" with its message."""
    try:
        trainer = Trainer(config, control, checkpoint=store.checkpoint(run_id))
        store.start_run(run_id, device=str(trainer.device), status="paused" if trainer.control.paused else "running",
                        numerics=fingerprint(config, trainer.device))
        return _drain(store, run_id, trainer.records(), flush_s, on_record,
                      save=lambda: store.save_checkpoint(run_id, trainer.checkpoint()))
    except Exception as err:  # noqa: BLE001 — the run must end with a readable status, whatever failed
        store.set_status(run_id, "failed", run_fault_reason(err) or f"{type(err).__name__}: {err}")
        traceback.print_exc()
        return None


def turn_end(last: TrainRecord | None) -> str:
    """What a worker tells the manager when record_run returns: PREEMPTED (the run waits for another turn, its
    checkpoint saved) or "ended"."""
    return PREEMPTED if last is not None and last.status == PREEMPTED else "ended"


def _drain(store: RunStore, run_id: int, records: Iterator[TrainRecord], flush_s: float,
           on_record: Callable[[TrainRecord], None] | None, save: Callable[[], None]) -> TrainRecord | None:
    """`save`: keep the run's checkpoint, called before a PREEMPTED record is stored (whoever reads "queued"
    again may start the run's next turn at once)."""
    metrics, snapshots = [], []
    last, last_flush, last_status, test_acc, saved_at = None, time.monotonic(), None, None, None
    for record in records:
        last = record
        if on_record:
            on_record(record)
        if not record.is_heartbeat:
            metrics.append((record.step, record.loss, record.train_acc, record.test_acc, record.lr, record.wall_s))
        if record.test_acc is not None:
            test_acc = record.test_acc
        for layer, values in enumerate(record.eigenvalues or []):
            snapshots.append((record.step, layer, thin_eigenvalues(values.numpy())))
        status = record.status
        if status == PREEMPTED:
            save()
            status = "queued"                    # it waits for a slot again
        elif status == "paused" and record.step != saved_at:
            save()                               # a paused run is on disk: a restart or a restore goes on from it
            saved_at = record.step
        due = time.monotonic() - last_flush >= flush_s or status != last_status
        if due or record.reason:
            store.write(run_id, metrics, snapshots, status, record.step, record.wall_s, test_acc, record.reason)
            metrics, snapshots, test_acc = [], [], None
            last_flush, last_status = time.monotonic(), status
    return last

"""Turns on a shared slot: while others wait, a live run that trained `slice_s` in its turn gives its slot back at a
step boundary, waits at the back of the queue (its row says from which step it resumes) and goes on from its
checkpoint at its next turn, storing exactly what an uninterrupted run stores. Nobody waits: nobody is cut off.
A waiting run keeps its controls, a stop ends it and removes its checkpoint, and its worker may die meanwhile."""
import os
import signal
import sqlite3

import numpy as np
import pytest

from lcsm_core.training import RunControl, Trainer
from lcsm_core.training.loop import PREEMPTED, preempted_reason
from lcsm_serving import RunManager, RunStore, TrainerClient, record_run
from lcsm_serving.checkpoints import checkpoint_path, checkpoints_dir
from lcsm_serving.manager import default_slice_s
from tests.training.test_manager import wait_for
from tests.training.test_service import end, start_service
from tests.training.test_sharing import worker_pid
from tests.training.tiny import tiny_config

SLICE_S = 0.2


def config(steps: int, seed: int = 0):
    return tiny_config(max_steps=steps, seed=seed, target_acc=1.0, eval_every=10, snapshot_every=10)


@pytest.fixture
def manager(tmp_path):
    m = RunManager(tmp_path / "runs.sqlite", max_concurrent=1, max_queue=4, max_pause_s=120, pause_hold_s=600,
                   slice_s=SLICE_S)
    yield m
    m.shutdown()


def stored(store: RunStore, run_id: int) -> tuple[dict, list]:
    """What a run stored, but its wall clock: metric columns and eigenvalue snapshots."""
    metrics = store.metrics(run_id)
    del metrics["wall_s"]
    return metrics, store.snapshots(run_id)


def uninterrupted(tmp_path, run_config, name: str) -> tuple[dict, list]:
    """The same config trained in one go, in this process, into a store of its own."""
    store = RunStore(tmp_path / f"{name}.sqlite")
    run_id = store.create_run(run_config.to_dict(), label=name)
    assert record_run(store, run_id, run_config).status == "completed"
    return stored(store, run_id)


def assert_stored_equal(expected: tuple[dict, list], actual: tuple[dict, list]) -> None:
    (want_metrics, want_snaps), (got_metrics, got_snaps) = expected, actual
    assert set(want_metrics) == set(got_metrics)
    for name in want_metrics:
        assert np.array_equal(want_metrics[name], got_metrics[name], equal_nan=True), name
    assert [step for step, _ in want_snaps] == [step for step, _ in got_snaps]
    for (step, want), (_, got) in zip(want_snaps, got_snaps):
        assert len(want) == len(got) and all(np.array_equal(a, b) for a, b in zip(want, got)), step


def turns(db_path, run_ids) -> list[int]:
    """Whose metric rows the store received, in order, one entry per unbroken stretch: the turns taken."""
    with sqlite3.connect(db_path) as db:
        order = [r[0] for r in db.execute("SELECT run_id FROM metrics WHERE run_id IN (%s) ORDER BY rowid"
                                          % ",".join("?" * len(run_ids)), run_ids)]
    return [run for j, run in enumerate(order) if j == 0 or order[j - 1] != run]


def waiting_preempted(manager, run_id) -> bool:
    row = manager.store.get_run(run_id)
    return row.status == "queued" and row.steps > 0 and manager.queue_position(run_id) == 1


# --- the loop's side ----------------------------------------------------------------------------------------------
def test_a_turn_ends_at_a_step_boundary_only_while_others_wait_and_the_run_is_running():
    control = RunControl(lr=1e-2, slice_s=1e-9)
    records = list(Trainer(config(5), control).records())
    assert records[-1].status == "completed"                        # nobody waits: the run keeps its slot
    control = RunControl(lr=1e-2, slice_s=1e-9)
    control.set_others_waiting(True)
    last = list(Trainer(config(5), control).records())[-1]
    assert (last.status, last.step, last.reason) == (PREEMPTED, 1, preempted_reason(1))    # one step, then turns
    assert last.is_heartbeat and last.reason == "waiting: others' turn, resumes from step 1"
    paused = RunControl(lr=1e-2, slice_s=1e-9, start_paused=True)
    paused.set_others_waiting(True)
    paused.step(3)
    records = Trainer(config(50), paused).records()
    seen = [next(records) for _ in range(5)]                        # step 0, three Steps, a paused heartbeat
    assert [r.step for r in seen] == [0, 1, 2, 3, 3] and PREEMPTED not in {r.status for r in seen}


def test_the_slice_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("LCSM_SLICE_S", raising=False)
    assert default_slice_s() == 60.0
    monkeypatch.setenv("LCSM_SLICE_S", "2.5")
    assert default_slice_s() == 2.5
    monkeypatch.setenv("LCSM_SLICE_S", "soon")
    with pytest.raises(ValueError, match="LCSM_SLICE_S"):
        default_slice_s()


# --- the manager's side -------------------------------------------------------------------------------------------
def test_two_runs_take_turns_and_store_what_uninterrupted_runs_store(manager, tmp_path):
    first, second = config(150), config(120, seed=1)
    a = manager.submit(first, "alice")
    b = manager.submit(second, "bob")
    assert manager.wait(a, 240) and manager.wait(b, 240)
    assert [manager.store.get_run(r).status for r in (a, b)] == ["completed", "completed"]
    taken = turns(manager.db_path, [a, b])
    assert taken[:3] == [a, b, a] and len(taken) >= 4, taken         # both made progress, in turns
    assert_stored_equal(uninterrupted(tmp_path, first, "alone-a"), stored(manager.store, a))
    assert_stored_equal(uninterrupted(tmp_path, second, "alone-b"), stored(manager.store, b))
    assert not any(checkpoints_dir(manager.db_path).iterdir())       # ended runs keep no checkpoint


def test_runs_in_threads_of_the_server_take_turns_too(tmp_path):
    m = RunManager(tmp_path / "threads.sqlite", max_concurrent=1, workers="thread", slice_s=SLICE_S / 2)
    try:
        first = config(80)
        a, b = m.submit(first, "alice"), m.submit(config(60, seed=1), "bob")
        assert m.wait(a, 120) and m.wait(b, 120)
        assert len(turns(m.db_path, [a, b])) >= 3
        assert_stored_equal(uninterrupted(tmp_path, first, "alone"), stored(m.store, a))
    finally:
        m.shutdown()


def test_a_run_alone_is_never_cut_off(manager):
    run_id = manager.submit(config(150), "alice")
    assert manager.wait(run_id, 120) and manager.store.get_run(run_id).status == "completed"
    assert manager.store.get_run(run_id).wall_s > 3 * SLICE_S       # trained past many slices, alone
    assert not checkpoints_dir(manager.db_path).exists()            # no turn ended: no checkpoint was ever written


def test_a_waiting_run_says_from_which_step_it_resumes_and_keeps_its_controls(manager):
    a = manager.submit(config(5000), "alice")
    assert wait_for(lambda: manager.store.get_run(a).steps > 0)
    b = manager.submit(config(5000), "bob", start_paused=True)     # waits; then holds the slot paused
    assert wait_for(lambda: waiting_preempted(manager, a), 60)
    assert wait_for(lambda: manager.store.get_run(b).status == "paused", 60)
    row = manager.store.get_run(a)
    assert row.reason == preempted_reason(row.steps) == f"waiting: others' turn, resumes from step {row.steps}"
    assert checkpoint_path(manager.db_path, a).exists() and manager.queue_position(b) == 0
    control = manager.control(a, "alice")                           # its owner still drives it while it waits
    control.pause()
    control.set_lr(3e-3)
    waited_at = row.steps
    assert manager.stop(b, "bob", "bob is done")                    # a's turn: it resumes paused, where it was
    assert wait_for(lambda: manager.store.get_run(a).status == "paused", 60)
    row = manager.store.get_run(a)
    assert row.steps == waited_at and row.reason is None and manager.queue_position(a) == 0
    control.step(2)
    assert wait_for(lambda: manager.store.get_run(a).steps == waited_at + 2)
    assert manager.store.metrics(a)["lr"][-1] == 3e-3
    assert manager.stop(a, "alice") and manager.wait(a, 30)
    assert manager.store.get_run(a).status == "stopped" and not checkpoint_path(manager.db_path, a).exists()


def test_stopping_a_waiting_run_ends_it_and_removes_its_checkpoint(manager):
    a = manager.submit(config(5000), "alice")
    assert wait_for(lambda: manager.store.get_run(a).steps > 0)
    b = manager.submit(config(5000), "bob", start_paused=True)
    assert wait_for(lambda: waiting_preempted(manager, a), 60)
    assert checkpoint_path(manager.db_path, a).exists()
    assert manager.stop(a, "alice", "reset by the user") and manager.wait(a, 5)
    row = manager.store.get_run(a)
    assert (row.status, row.reason) == ("stopped", "reset by the user")
    assert not checkpoint_path(manager.db_path, a).exists() and manager.queue_position(b) == 0


def test_a_waiting_run_outlives_the_worker_it_trained_in(manager, tmp_path):
    a_config = config(300)
    a = manager.submit(a_config, "alice")
    assert wait_for(lambda: manager.store.get_run(a).steps > 0)
    b = manager.submit(config(5000), "bob", start_paused=True)
    assert wait_for(lambda: waiting_preempted(manager, a), 60)
    assert wait_for(lambda: manager.store.get_run(b).status == "paused", 60)
    os.kill(worker_pid(manager, b), signal.SIGKILL)                  # the worker a trained in, training b now
    assert manager.wait(b, 30) and manager.store.get_run(b).status == "failed"
    assert manager.wait(a, 240)
    assert manager.store.get_run(a).status == "completed"            # resumed in a new worker, from its file
    assert_stored_equal(uninterrupted(tmp_path, a_config, "alone"), stored(manager.store, a))


def test_grid_cells_are_not_given_turns(tmp_path):
    """A cell's control has no slice (the grid lane has its own workers; no cell starts here: grid_workers=0)."""
    m = RunManager(tmp_path / "grid.sqlite", max_concurrent=1, slice_s=SLICE_S, grid_workers=0, workers="thread")
    try:
        cell = m.store.create_run(config(5000).to_dict(), label="cell")
        m.adopt_cell(cell, config(5000))
        live = m.submit(config(5000), "alice", start_paused=True)
        assert m.control(cell, "").slice_s is None and m.control(live, "alice").slice_s == SLICE_S
        assert m.stop_cell(cell, "done") and m.wait(cell, 5)
    finally:
        m.shutdown()


# --- the trainer service's side -----------------------------------------------------------------------------------
def test_a_run_waiting_for_its_turn_survives_a_killed_service_and_the_next_one_resumes_it(tmp_path, subprocess_env):
    """The page's path: jobs through the store. The waiting run's row says where it stands; the service is killed
    with -9 while it waits; the next service goes on from its checkpoint, and the run stores what an
    uninterrupted run stores."""
    db = tmp_path / "runs.sqlite"
    options = ("--max-concurrent", "1", "--pause-hold-s", "600", "--slice-s", str(SLICE_S))
    service = start_service(db, subprocess_env, *options)
    client = TrainerClient(db, start_service=False)
    a_config = config(300)
    try:
        a = client.submit(a_config, "alice")
        assert wait_for(lambda: client.store.get_run(a).steps > 0)
        b = client.submit(config(5000), "bob", start_paused=True)
        assert wait_for(lambda: client.store.get_run(b).status == "paused" and client.queue_position(a) == 1, 60)
        row = client.store.get_run(a)
        assert row.status == "queued" and row.reason == preempted_reason(row.steps) and client.drives(a, "alice")
        service.kill()
        service.wait(10)
        assert checkpoint_path(db, a).exists()
        service = start_service(db, subprocess_env, *options)
        assert client.wait(a, 240) and client.store.get_run(a).status == "completed"
    finally:
        end(service)
    assert_stored_equal(uninterrupted(tmp_path, a_config, "alone"), stored(client.store, a))
    client.store.mark_interrupted()              # b's orphaned worker may have exited before marking it
    assert client.store.get_run(b).status == "interrupted" and not checkpoint_path(db, a).exists()

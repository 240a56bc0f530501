"""Fair sharing of the training server: one place per session, a paused run cannot hold a slot forever (Step
does not reset the clock), runs train in worker processes driven across the process boundary, a crashed
worker fails its run and the next run still trains, shutdown ends the workers."""
import os
import signal
import sqlite3
import time

import pytest

from lcsm_serving import RunManager
from tests.training.test_manager import wait_for
from tests.training.tiny import tiny_config


def worker_pid(manager, run_id) -> int:
    """The process that trains a run: the store's owner column, host:pid:start."""
    with sqlite3.connect(manager.db_path) as db:
        owner = db.execute("SELECT owner FROM runs WHERE id=?", (run_id,)).fetchone()[0]
    return int(owner.rsplit(":", 2)[1])


@pytest.fixture
def manager(tmp_path):
    m = RunManager(tmp_path / "runs.sqlite", max_concurrent=1, max_queue=2, max_pause_s=60, pause_hold_s=2.0)
    yield m
    m.shutdown()


def test_two_sessions_hold_one_place_each_and_the_queue_is_per_server(manager):
    alice = manager.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    with pytest.raises(ValueError, match="a tab holds one place"):
        manager.submit(tiny_config(), "alice")
    bob = manager.submit(tiny_config(max_steps=5000), "bob", start_paused=True)
    with pytest.raises(ValueError, match="a tab holds one place"):
        manager.submit(tiny_config(), "bob")                    # waiting counts as a place too
    assert [manager.queue_position(r) for r in (alice, bob)] == [0, 1]
    manager.submit(tiny_config(max_steps=5000), "carol", start_paused=True)
    with pytest.raises(ValueError, match="queue is full"):
        manager.submit(tiny_config(), "dave")                   # max_queue=2 waiting, server-wide
    assert len(manager.store.list_runs()) == 3


def test_a_paused_run_stepped_often_gives_its_slot_to_a_waiting_run(manager):
    alice = manager.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    assert wait_for(lambda: manager.store.get_run(alice).status == "paused")
    control = manager.control(alice, "alice")
    deadline = time.monotonic() + 3.0                           # longer than pause_hold_s, nobody waiting: kept
    while time.monotonic() < deadline:
        control.step(1)
        time.sleep(0.3)
    assert manager.queue_position(alice) == 0 and control.stop_reason is None
    bob = manager.submit(tiny_config(max_steps=5), "bob")
    for _ in range(20):                                         # Steps keep coming: they do not reset the clock
        if manager.queue_position(bob) != 1:
            break
        control.step(1)
        time.sleep(0.3)
    assert manager.wait(alice, 30)
    row = manager.store.get_run(alice)
    assert row.status == "stopped" and "gave its training slot to a waiting run" in row.reason
    assert manager.wait(bob, 60) and manager.store.get_run(bob).status == "completed"


def test_pause_step_lr_and_stop_cross_into_the_worker_process(manager):
    run_id = manager.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    assert wait_for(lambda: manager.store.get_run(run_id).status == "paused")
    assert worker_pid(manager, run_id) != os.getpid()           # trained outside the server process
    control = manager.control(run_id, "alice")
    control.step(2)
    assert wait_for(lambda: manager.store.get_run(run_id).steps == 2)
    control.set_lr(2e-3)
    control.resume()
    assert wait_for(lambda: manager.store.get_run(run_id).steps > 5)
    control.pause()
    assert wait_for(lambda: manager.store.get_run(run_id).status == "paused")
    assert manager.stop(run_id, "alice", "done here")
    assert manager.wait(run_id, 30)
    row = manager.store.get_run(run_id)
    assert row.status == "stopped" and row.reason == "done here" and manager.store.metrics(run_id)["lr"][-1] == 2e-3


def test_a_crashed_worker_fails_its_run_and_the_next_run_still_trains(manager):
    doomed = manager.submit(tiny_config(max_steps=5000), "alice")
    assert wait_for(lambda: manager.store.get_run(doomed).steps > 0)
    os.kill(worker_pid(manager, doomed), signal.SIGKILL)
    assert manager.wait(doomed, 30)
    row = manager.store.get_run(doomed)
    assert row.status == "failed" and "worker process ended unexpectedly" in row.reason
    after = manager.submit(tiny_config(max_steps=5), "alice")   # the session's place is free again
    assert manager.wait(after, 90) and manager.store.get_run(after).status == "completed"


def test_shutdown_ends_the_workers_and_their_runs(tmp_path):
    m = RunManager(tmp_path / "runs.sqlite", max_concurrent=1)
    run_id = m.submit(tiny_config(max_steps=5000), "alice")
    assert wait_for(lambda: m.store.get_run(run_id).steps > 0)
    pid = worker_pid(m, run_id)
    m.shutdown()
    assert m.store.get_run(run_id).status == "stopped"
    assert wait_for(lambda: not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z",
                    10)


def test_the_queue_is_fair_between_visitors_and_fifo_within_one(tmp_path):
    """Fresh tokens of one address (visitor "A") queue behind another visitor's first run (issue 24)."""
    m = RunManager(tmp_path / "fair.sqlite", max_concurrent=1, max_queue=10, workers="thread", pause_hold_s=600)
    try:
        a1, a2, a3 = (m.submit(tiny_config(max_steps=5000), f"a{i}", start_paused=True, visitor="A") for i in (1, 2, 3))
        b1 = m.submit(tiny_config(max_steps=5000), "b1", start_paused=True, visitor="B")
        c1 = m.submit(tiny_config(max_steps=5000), "c1", start_paused=True)               # the operator
        assert [m.queue_position(r) for r in (a1, b1, c1, a2, a3)] == [0, 1, 2, 3, 4]
    finally:
        m.shutdown()

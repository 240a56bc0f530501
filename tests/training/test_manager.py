"""The background run manager: worker threads, server-wide cap and queue, one run per session, caps."""
import time

import pytest

from lcsm_core.training import SizeLimits
from lcsm_serving import RunManager, shared_manager
from tests.training.tiny import tiny_config


def wait_for(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def manager(tmp_path):
    m = RunManager(tmp_path / "runs.sqlite", max_concurrent=1, max_pause_s=60)
    yield m
    m.shutdown()


def test_runs_queue_behind_the_cap_with_visible_positions(manager):
    first = manager.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    second = manager.submit(tiny_config(max_steps=5), "bob")
    third = manager.submit(tiny_config(max_steps=5), "carol")
    assert [manager.queue_position(r) for r in (first, second, third)] == [0, 1, 2]
    assert manager.store.get_run(second).status == "queued"
    manager.stop(first, "alice")
    assert manager.wait(first, 30) and manager.wait(second, 60) and manager.wait(third, 60)
    assert [manager.store.get_run(r).status for r in (first, second, third)] == ["stopped", "completed", "completed"]
    assert manager.queue_position(third) is None


def test_one_active_run_per_session_and_caps_give_clear_messages(tmp_path, manager):
    run_id = manager.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    with pytest.raises(ValueError, match="still queued or training"):
        manager.submit(tiny_config(), "alice")
    manager.stop(run_id, "alice")
    manager.wait(run_id, 30)
    capped = RunManager(tmp_path / "capped.sqlite", limits=SizeLimits(max_d_model=8))
    with pytest.raises(ValueError, match="d_model 16 is over this server's cap of 8"):
        capped.submit(tiny_config(), "bob")


def test_pause_step_resume_through_the_run_control(manager):
    run_id = manager.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    assert wait_for(lambda: manager.store.get_run(run_id).status == "paused")
    control = manager.control(run_id, "alice")     # what the page drives
    control.step(3)
    assert wait_for(lambda: manager.store.get_run(run_id).steps == 3)
    control.set_lr(1e-3)
    control.resume()
    assert wait_for(lambda: manager.store.get_run(run_id).steps > 6)
    manager.stop(run_id, "alice")
    manager.wait(run_id, 30)
    metrics = manager.store.metrics(run_id)
    assert metrics["lr"][-1] == 1e-3 and manager.store.get_run(run_id).status == "stopped"


def test_only_the_session_that_submitted_a_run_drives_it(manager):
    run_id = manager.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    assert wait_for(lambda: manager.store.get_run(run_id).status == "paused")
    assert manager.control(run_id, "mallory") is None
    assert manager.stop(run_id, "mallory", "hijacked") is False
    assert manager.store.get_run(run_id).status == "paused" and manager.control(run_id, "alice") is not None
    assert manager.stop(run_id, "alice") is True
    assert manager.wait(run_id, 30) and manager.store.get_run(run_id).status == "stopped"


def test_one_shared_manager_per_store_file(tmp_path):
    first = shared_manager(tmp_path / "shared.sqlite")
    assert shared_manager(str(tmp_path / "shared.sqlite")) is first
    assert shared_manager(tmp_path / "other.sqlite") is not first

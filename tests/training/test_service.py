"""The trainer service through the store from two processes: a service subprocess
(`python -m lcsm_serving.service`) and clients in this process (and a client process that dies).
The policy (one place per owner, queue full, pause hold, caps, owner-only control), a service killed with -9,
SIGTERM, one service per store, a thread service for one web process."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from lcsm_serving import RunStore, TrainerClient, owner_hash
from lcsm_serving.checkpoints import checkpoint_path
from lcsm_serving.service import start_in_thread
from tests.training.conftest import ROOT
from tests.training.test_manager import wait_for
from tests.training.test_sharing import worker_pid
from tests.training.tiny import tiny_config


def start_service(db, env, *options) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "lcsm_serving.service", "--db", str(db), *options],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    store = RunStore(db)
    assert wait_for(lambda: store.live_service() is not None or proc.poll() is not None, 60), "no service"
    assert proc.poll() is None, proc.stdout.read()
    return proc


def end(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def service(tmp_path, subprocess_env):
    """A service subprocess: one slot, two waiting places, 2 s pause hold, d_model capped at 16."""
    db = tmp_path / "runs.sqlite"
    proc = start_service(db, subprocess_env, "--max-concurrent", "1", "--max-queue", "2", "--pause-hold-s", "2",
                         "--max-pause-s", "60", "--limits", json.dumps({"max_d_model": 16}))
    yield proc, TrainerClient(db, start_service=False)
    end(proc)


def status(client, run_id) -> str:
    return client.store.get_run(run_id).status


def test_one_place_per_owner_and_a_full_queue_are_refused_with_todays_words(service):
    _, client = service
    alice = client.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    with pytest.raises(ValueError, match="a tab holds one place"):
        client.submit(tiny_config(), "alice")
    assert wait_for(lambda: client.queue_position(alice) == 0)           # the service gave alice the slot
    bob = client.submit(tiny_config(max_steps=5000), "bob", start_paused=True)
    with pytest.raises(ValueError, match="a tab holds one place"):
        client.submit(tiny_config(), "bob")                             # waiting counts as a place too
    carol = client.submit(tiny_config(max_steps=5000), "carol", start_paused=True)
    assert wait_for(lambda: [client.queue_position(r) for r in (alice, bob, carol)] == [0, 1, 2])
    with pytest.raises(ValueError, match=r"queue is full \(2 runs waiting for 1 training slot"):
        client.submit(tiny_config(), "dave")
    assert len(client.store.list_runs()) == 3
    assert client.stop(carol, "carol") and client.wait(carol, 30) and status(client, carol) == "stopped"
    dave = client.submit(tiny_config(max_steps=5), "dave")              # a waiting place is free again
    assert wait_for(lambda: client.queue_position(dave) == 2)


def test_caps_refuse_too_big_configs_in_the_web_process_and_in_the_service(service):
    _, client = service
    assert client.limits.max_d_model == 16 and client.policy.max_queue == 2     # the service's row
    big = tiny_config()
    big.model.d_model = 32
    with pytest.raises(ValueError, match="d_model 32 is over this server's cap of 16"):
        client.submit(big, "alice")
    assert client.store.list_runs() == []
    sneaked = client.store.submit_job(big.to_dict(), "sneaked past a client", "mallory", False, 1, 2)
    assert wait_for(lambda: status(client, sneaked) == "failed")
    assert "over this server's cap of 16" in client.store.get_run(sneaked).reason


def test_only_the_owner_drives_a_run_and_commands_cross_into_the_worker(service):
    _, client = service
    run_id = client.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    assert wait_for(lambda: status(client, run_id) == "paused")
    assert client.is_mine(run_id, "alice") and not client.is_mine(run_id, "mallory")
    for name, args in (("step", (5,)), ("resume", ()), ("set_lr", (2e-3,)), ("stop", ("hijacked",))):
        assert client.command(run_id, "mallory", name, *args) is False
    time.sleep(1.0)
    row = client.store.get_run(run_id)
    assert row.status == "paused" and row.steps == 0                   # mallory changed nothing
    with sqlite3.connect(client.db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM commands").fetchone()[0] == 0
        assert db.execute("SELECT session FROM runs").fetchone()[0] == owner_hash("alice")   # never the token
    assert client.command(run_id, "alice", "step", 2)
    assert wait_for(lambda: client.store.get_run(run_id).steps == 2)
    assert client.command(run_id, "alice", "set_lr", 2e-3) and client.command(run_id, "alice", "resume")
    assert wait_for(lambda: client.store.get_run(run_id).steps > 5)
    assert client.stop(run_id, "alice", "done here") and client.wait(run_id, 30)
    row = client.store.get_run(run_id)
    assert row.status == "stopped" and row.reason == "done here" and client.store.metrics(run_id)["lr"][-1] == 2e-3


def test_a_paused_run_gives_its_slot_to_a_waiting_run_after_the_hold(service):
    _, client = service
    alice = client.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    assert wait_for(lambda: status(client, alice) == "paused")
    bob = client.submit(tiny_config(max_steps=5), "bob")
    assert client.queue_position(bob) in (None, 1)
    for _ in range(20):                                  # Steps keep coming: they do not reset the clock
        if client.queue_position(bob) == 0 or not client.store.get_run(alice).active:
            break
        client.command(alice, "alice", "step", 1)
        time.sleep(0.3)
    assert client.wait(alice, 30)
    row = client.store.get_run(alice)
    assert row.status == "stopped" and "gave its training slot to a waiting run" in row.reason
    assert client.wait(bob, 60) and status(client, bob) == "completed"


# A web process: submits a run, prints its id, exits without a word to the service. A plain child python (not a
# multiprocessing child, which re-imports this test module inside a test worker's state): what it says on stderr
# is the failure's message.
SUBMIT_AND_EXIT = """
import sys
from lcsm_serving import TrainerClient
from tests.training.tiny import tiny_config
slow_learner = tiny_config(max_steps=5000, lr=1e-4)               # far from 99 %: it keeps training
print(TrainerClient(sys.argv[1], start_service=False).submit(slow_learner, sys.argv[2]))
"""


def test_a_web_process_that_dies_loses_no_run_and_its_owner_still_drives_it(service, subprocess_env):
    _, client = service
    # a child python imports torch afresh: on a loaded 2-core machine that alone has taken most of a minute
    web = subprocess.run([sys.executable, "-c", SUBMIT_AND_EXIT, str(client.db_path), "alice"], env=subprocess_env,
                         cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert web.returncode == 0, web.stderr[-3000:]                             # the web process is gone
    run_id = int(web.stdout.strip().splitlines()[-1])

    def run_now() -> str:
        run = client.store.get_run(run_id)
        return f"run {run_id}: {run.status} at step {run.steps}"
    # the service's worker is a spawned process too (torch imported afresh): a loaded machine gets 2 minutes
    assert wait_for(lambda: client.store.get_run(run_id).steps > 3, 120), run_now()
    steps = client.store.get_run(run_id).steps
    assert wait_for(lambda: client.store.get_run(run_id).steps > steps + 3, 120), run_now()   # still training
    again = TrainerClient(client.db_path, start_service=False)                # the reloaded tab, elsewhere
    assert again.command(run_id, "alice", "pause")
    assert wait_for(lambda: status(again, run_id) == "paused", 120), run_now()
    assert again.stop(run_id, "alice") and again.wait(run_id, 60), run_now()


def test_a_service_killed_with_9_leaves_its_runs_interrupted_and_its_workers_end(service):
    proc, client = service
    run_id = client.submit(tiny_config(max_steps=5000), "alice", start_paused=True)   # alive in its worker
    assert wait_for(lambda: status(client, run_id) == "paused")
    pid = worker_pid(client, run_id)
    proc.kill()
    proc.wait(10)
    assert wait_for(lambda: status(client, run_id) == "interrupted", 30)
    assert wait_for(lambda: not _alive(pid), 30)
    assert client.store.live_service() is None


def test_sigterm_keeps_a_learners_run_for_the_next_service_which_goes_on_from_its_step(service, subprocess_env):
    """A restart (an update, a restore from a backup) loses no learner's run: the paused run saves its checkpoint
    and waits, queued; the next service takes it up paused at the same step, and its owner plays it on."""
    proc, client = service
    run_id = client.submit(tiny_config(max_steps=5000), "alice")
    assert wait_for(lambda: client.store.get_run(run_id).steps >= 20)
    client.command(run_id, "alice", "pause")
    assert wait_for(lambda: status(client, run_id) == "paused")
    second = subprocess.run([sys.executable, "-m", "lcsm_serving.service", "--db", str(client.db_path)],
                            env=subprocess_env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert second.returncode == 1 and "already drives" in second.stderr      # one service per store
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    row = client.store.get_run(run_id)
    assert row.status == "queued" and "server restarted" in row.reason, (row.status, row.reason)
    assert checkpoint_path(client.db_path, run_id).exists() and client.store.live_service() is None
    at = row.steps
    again = start_service(client.db_path, subprocess_env)
    try:
        assert wait_for(lambda: status(client, run_id) == "paused", 60)        # as it was
        assert client.store.get_run(run_id).steps == at
        assert client.command(run_id, "alice", "resume")                       # its owner drives it
        assert wait_for(lambda: client.store.get_run(run_id).steps > at + 5)
        steps = client.store.metrics(run_id)["step"]
        assert (np.diff(steps) > 0).all() and steps.max() > at                 # on from its step, not from 0
        assert not client.command(run_id, "bob", "pause")                      # and nobody else does
    finally:
        end(again)


def test_one_web_process_runs_the_service_in_a_thread(tmp_path, monkeypatch):
    monkeypatch.delenv("LCSM_TRAINER", raising=False)
    client = TrainerClient(tmp_path / "runs.sqlite")
    service = client.store.live_service()
    assert service is not None and service["pid"] == os.getpid()
    run_id = client.submit(tiny_config(max_steps=5), "alice")
    assert client.wait(run_id, 60) and status(client, run_id) == "completed"
    assert worker_pid(client, run_id) != os.getpid()                  # trained in a worker process
    from lcsm_serving.client import _SERVICES
    _SERVICES.pop((tmp_path / "runs.sqlite").resolve()).shutdown()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.slow
def test_with_a_ray_address_runs_train_on_ray_and_obey_their_owner(tmp_path, local_ray):
    service = start_in_thread(tmp_path / "ray.sqlite", ray_address="auto", max_concurrent=1)
    client = TrainerClient(tmp_path / "ray.sqlite", start_service=False)
    run_id = client.submit(tiny_config(max_steps=5000), "alice", start_paused=True)
    assert client.command(run_id, "alice", "step", 2)
    assert wait_for(lambda: client.store.get_run(run_id).steps == 2, 120)
    assert type(service.manager._runs[run_id].worker).__name__ == "RayWorker"   # a Ray actor trains it
    assert worker_pid(client, run_id) == os.getpid()   # and the service writes its rows: the actor has no store
    assert not client.command(run_id, "mallory", "resume")
    assert client.stop(run_id, "alice", "done on Ray") and client.wait(run_id, 60)
    assert client.store.get_run(run_id).reason == "done on Ray"
    service.shutdown()

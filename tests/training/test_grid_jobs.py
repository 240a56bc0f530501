"""A page's paper-lab grid is a job of the trainer service (issue 24): the web process admits the cells and trains
none; the service trains them in its grid lane, after live runs; a stop through the store, a SIGTERM of the service
and a kill -9 of a web process mid-grid (the service in its thread) each leave every cell accounted for."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from lcsm_core.paper_lab import GridSpec, grid_session
from lcsm_core.paper_lab.grid import cells
from lcsm_core.training import SizeLimits
from lcsm_serving import RunStore, TrainerClient
from lcsm_serving.admission import AdmissionPolicy
from lcsm_serving.manager import GRID_NICE, RunManager
from lcsm_serving.paper_lab import GridRunner
from lcsm_serving.store import GRID_JOB
from tests.training.conftest import ROOT
from tests.training.test_manager import wait_for
from tests.training.test_paper_lab_lifetime import alive, children
from tests.training.test_service import end, start_service
from tests.training.tiny import tiny_config

ALICE = "203.0.113.7"
TINY_GRID = dict(seq_lens=(16,), kv_pairs=2, d_model=8, expand_dim=8, lrs=(1e-2,), batch_size=4, eval_every=10)
LONG = 1_000_000                                   # steps: a cell that trains until it is stopped
ANY_COST = AdmissionPolicy(visitor_budget_s=1e12, server_budget_s=1e12, large_grid_s=1e12)


def statuses(store: RunStore, run_ids) -> list[str]:
    return [store.get_run(r).status for r in run_ids]


def pid_of(owner: str) -> int:
    return int(owner.rsplit(":", 2)[1])


def stat_fields(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


# --- the grid lane's policy, in one process (thread workers) --------------------------------------------------
def grid_cells(store: RunStore, count: int, steps: int = LONG) -> list[int]:
    config = tiny_config(max_steps=steps, max_seconds=120).to_dict()
    return store.admit_grid("g", [(config, f"cell {i}", 1.0) for i in range(count)], "grid:g", job=GRID_JOB)


def test_a_grid_cell_never_takes_a_live_slot_and_starts_only_while_no_live_run_waits(tmp_path):
    manager = RunManager(tmp_path / "runs.sqlite", max_concurrent=1, grid_workers=1, workers="thread",
                         limits=SizeLimits(max_steps=LONG))
    store = manager.store
    try:
        alice = manager.submit(tiny_config(max_steps=LONG, max_seconds=120), "alice", start_paused=True)
        bob = manager.submit(tiny_config(max_steps=LONG, max_seconds=120), "bob")     # waits for alice's slot
        cell, = grid_cells(store, 1)
        manager.adopt_cell(cell, tiny_config(max_steps=LONG, max_seconds=120))
        time.sleep(0.5)
        assert manager.queue_position(bob) == 1 and manager.queue_position(cell) == 1   # a live run waits: no cell
        assert manager.stop(bob, "bob", "gave up")
        assert wait_for(lambda: store.get_run(cell).steps > 0, 30)                     # now the cell trains...
        assert manager.queue_position(alice) == 0                                       # ...beside alice's slot
        carol = manager.submit(tiny_config(max_steps=LONG, max_seconds=120), "carol")
        assert manager.queue_position(carol) == 1                                       # waits for alice, not the cell
        manager.stop(alice, "alice")
        assert wait_for(lambda: manager.queue_position(carol) == 0, 60)               # alice's thread ends first
        assert manager.queue_position(cell) == 0                                        # both lanes train
        assert manager.stop_cell(cell, "the grid was stopped") and not manager.stop_cell(cell, "again")
        assert manager.wait(cell, 30)
        row = store.get_run(cell)
        assert (row.status, row.reason) == ("stopped", "the grid was stopped")
    finally:
        manager.shutdown()


def test_a_cell_stopped_just_before_a_shutdown_stays_stopped_with_its_reason(tmp_path):
    """Only what the shutdown ended is "interrupted" (a missing cell the page reruns): a cell a visitor stopped
    keeps the visitor's reason, whether its worker ended before the shutdown or during it."""
    manager = RunManager(tmp_path / "runs.sqlite", max_concurrent=1, grid_workers=1, workers="thread")
    try:
        cell, = grid_cells(manager.store, 1, steps=LONG)
        manager.adopt_cell(cell, tiny_config(max_steps=LONG, max_seconds=120))
        assert wait_for(lambda: manager.store.get_run(cell).steps > 0, 60)
        assert manager.stop_cell(cell, "the grid was stopped")
    finally:
        manager.shutdown()                                                            # at once: no wait
    row = manager.store.get_run(cell)
    assert (row.status, row.reason) == ("stopped", "the grid was stopped"), (row.status, row.reason)


def test_no_grid_worker_means_cells_wait(tmp_path):
    manager = RunManager(tmp_path / "runs.sqlite", max_concurrent=1, grid_workers=0, workers="thread")
    try:
        cell, = grid_cells(manager.store, 1, steps=5)
        manager.adopt_cell(cell, tiny_config(max_steps=5))
        time.sleep(0.3)
        assert manager.queue_position(cell) == 1 and manager.store.get_run(cell).status == "queued"
    finally:
        manager.shutdown()
    assert manager.store.get_run(cell).status == "interrupted"                     # a shutdown ends a cell so


def test_the_grid_workers_setting_is_read_and_a_bad_one_named(monkeypatch, tmp_path):
    from lcsm_serving.manager import default_grid_workers
    monkeypatch.setenv("LCSM_GRID_WORKERS", "3")
    assert default_grid_workers() == 3
    monkeypatch.setenv("LCSM_GRID_WORKERS", "two")
    with pytest.raises(ValueError, match="LCSM_GRID_WORKERS='two'"):
        default_grid_workers()


# --- through the store, the service in another process -----------------------------------------------------
@pytest.fixture
def service(tmp_path, subprocess_env):
    """A service subprocess with one live slot and one grid worker; a page's runner and a tab's client here."""
    db = tmp_path / "runs.sqlite"
    proc = start_service(db, subprocess_env, "--max-concurrent", "1", "--grid-workers", "1",
                         "--limits", json.dumps({"max_steps": LONG}))
    yield proc, GridRunner(db, via_service=True), TrainerClient(db, start_service=False, admission=ANY_COST)
    end(proc)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_pages_grid_trains_in_the_service_at_a_low_priority_not_in_the_web_process(service):
    proc, lab, _ = service
    spec = GridSpec(ablation="parameterization", steps=3, **TINY_GRID)
    grid_id, queued = lab.launch(spec, visitor=ALICE)
    assert len(queued) == len(cells(spec)) and lab.active_grid == grid_id
    assert "grid lane" in lab.where
    rows = [future.result(timeout=240) for _, _, future in queued]               # answered from the store
    assert [r["status"] for r in rows] == ["completed"] * len(rows)
    assert lab.active_grid is None and lab.todo(spec) == []
    store = RunStore(lab.db_path)
    with store._lock:
        owners = {r[0] for r in store._db.execute("SELECT owner FROM runs WHERE grid=?", (grid_id,))}
    workers = {pid_of(owner) for owner in owners}
    assert os.getpid() not in workers and not set(children(os.getpid())) & workers     # nothing ran here
    assert workers <= set(children(proc.pid))                                            # the service's workers
    assert all(int(stat_fields(pid)[16]) == GRID_NICE for pid in workers)               # at a low priority
    # as the CLI's cells: one thread, deterministic, so a page's cell repeats a CLI cell's numbers
    assert all(row.numerics["threads"] == 1 and row.numerics["deterministic"]
               for row in store.session_runs(grid_session(grid_id)))


def test_a_learners_play_starts_while_a_grid_trains_and_the_page_stops_the_grid(service):
    _, lab, client = service
    spec = GridSpec(ablation="tau", steps=LONG, **TINY_GRID)                             # 7 endless cells
    grid_id, queued = lab.launch(spec, visitor=ALICE, admission=ANY_COST)
    store = client.store
    run_ids = [r for _, r, _ in queued]
    assert wait_for(lambda: "running" in statuses(store, run_ids), 120)
    play = client.submit(tiny_config(max_steps=LONG, max_seconds=120), "learner", visitor="198.51.100.9")
    assert wait_for(lambda: store.get_run(play).status == "running", 120), store.get_run(play)   # a worker starts
    assert statuses(store, run_ids).count("running") == 1                               # one cell, beside it
    assert lab.stop(visitor="198.51.100.9") == 0                                          # not the launcher
    assert lab.stop(visitor=ALICE, reason="stopped from the page") == len(run_ids)
    assert lab.active_grid is None                                                        # free at once
    assert wait_for(lambda: set(statuses(store, run_ids)) == {"stopped"}, 60), statuses(store, run_ids)
    assert {store.get_run(r).reason for r in run_ids} == {"stopped from the page"}
    assert store.get_run(play).status == "running"                                       # the learner's run goes on
    client.stop(play, "learner")


def test_a_service_sigterm_ends_its_cells_interrupted_and_the_page_can_rerun_them(tmp_path, subprocess_env):
    db = tmp_path / "runs.sqlite"
    proc = start_service(db, subprocess_env, "--grid-workers", "1")
    try:
        lab = GridRunner(db, via_service=True)
        spec = GridSpec(ablation="tau", steps=LONG, **TINY_GRID)
        _, queued = lab.launch(spec, visitor=ALICE, admission=ANY_COST)
        store = RunStore(db)
        run_ids = [r for _, r, _ in queued]
        assert wait_for(lambda: "running" in statuses(store, run_ids), 120)
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        assert set(statuses(store, run_ids)) == {"interrupted"}, statuses(store, run_ids)
        assert lab.active_grid is None and len(lab.todo(spec)) == len(run_ids)           # "Run missing cells"
    finally:
        end(proc)


WORKERS_GONE_S = 5.0                 # a server killed with -9: every worker it started has ended this long after
SLOW_CELL = dict(seq_lens=(256,), kv_pairs=8, d_model=64, expand_dim=64, lrs=(1e-2,), batch_size=32, eval_every=1000)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_service_killed_with_9_mid_evaluation_leaves_no_worker_after_5_s(tmp_path, subprocess_env):
    """A cell whose step and evaluations take seconds (~1 s and ~3.5 s on a free core, far more niced on busy
    ones): its worker does not wait for them to end once its server is gone; it marks the cell itself."""
    db = tmp_path / "runs.sqlite"
    proc = start_service(db, subprocess_env, "--grid-workers", "1", "--limits", json.dumps({"max_steps": LONG}))
    try:
        _, queued = GridRunner(db, via_service=True).launch(GridSpec(ablation="tau", steps=LONG, **SLOW_CELL),
                                                            visitor=ALICE, admission=ANY_COST)
        store = RunStore(db)
        run_ids = [r for _, r, _ in queued]
        assert wait_for(lambda: "running" in statuses(store, run_ids), 180)     # in its first evaluation now
        workers = children(proc.pid)
        proc.kill()
        proc.wait(10)
        assert wait_for(lambda: not any(alive(pid) for pid in workers), WORKERS_GONE_S), \
            [(pid, stat_fields(pid)[0]) for pid in workers if alive(pid)]
        assert statuses(store, run_ids).count("interrupted") == 1, statuses(store, run_ids)   # marked by its worker
    finally:
        end(proc)


WEB_PROCESS = textwrap.dedent("""
    import sys, time
    from lcsm_core.paper_lab import GridSpec
    from lcsm_serving.paper_lab import shared_grid_runner
    lab = shared_grid_runner(sys.argv[1])          # as the page: the service starts in a thread of this process
    spec = GridSpec(ablation="tau", seq_lens=(16,), kv_pairs=2, d_model=8, expand_dim=8, lrs=(1e-2,),
                    steps=int(sys.argv[2]), batch_size=4, eval_every=10)
    lab.launch(spec, visitor="203.0.113.7")
    print("launched", flush=True)
    time.sleep(600)
""")


STEPS = 120                                       # a cell: long enough to be caught training, short to finish


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_the_web_process_mid_grid_loses_no_cell(tmp_path, subprocess_env):
    """One web process, the service in its thread: kill -9 mid-grid. The cell that was training reads
    "interrupted" and its worker ends; the cells still queued wait, and the next service (a
    restarted web process's) trains them; the interrupted one is a missing cell the page reruns."""
    db = tmp_path / "runs.sqlite"
    web = subprocess.Popen([sys.executable, "-c", WEB_PROCESS, str(db), str(STEPS)], env=subprocess_env, cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert web.stdout.readline().strip() == "launched"
        store = RunStore(db)
        with store._lock:
            run_ids = [r[0] for r in store._db.execute("SELECT id FROM runs ORDER BY id")]
        assert wait_for(lambda: "running" in statuses(store, run_ids), 120)
        workers = children(web.pid)
        web.kill()
        web.wait(10)
        # Within 5 s even niced on busy cores (benchmarks/kill_recovery.py --targets grid measures it under load)
        assert wait_for(lambda: not any(alive(pid) for pid in workers), WORKERS_GONE_S), "a worker outlived its server"
        assert wait_for(lambda: "running" not in statuses(store, run_ids), 30), statuses(store, run_ids)
        ended = statuses(store, run_ids)
        assert ended.count("interrupted") >= 1 and set(ended) <= {"interrupted", "completed", "queued"}, ended
    finally:
        web.kill()
        web.wait(10)
    lab = GridRunner(db, via_service=True)           # a web process starts again: its service takes the queue
    spec = GridSpec(ablation="tau", steps=STEPS, **TINY_GRID)
    try:
        assert lab.active_grid is not None or "queued" not in ended
        assert wait_for(lambda: "queued" not in statuses(store, run_ids) and
                        "running" not in statuses(store, run_ids), 240), statuses(store, run_ids)
        assert set(statuses(store, run_ids)) <= {"interrupted", "completed"}
        assert len(lab.todo(spec)) == statuses(store, run_ids).count("interrupted")     # the page reruns those
    finally:
        from lcsm_serving.client import _SERVICES
        service = _SERVICES.get(db.resolve())
        if service is not None:
            service.shutdown()

"""The grid line: while a grid holds the paper lab, a page's visitor may queue theirs behind it (one grid per visitor,
running or waiting; a few places), leave the line, and the trainer service starts the head when the lab is free, in
one transaction with admit_grid's checks (a head refused then leaves the line with its reason, in words)."""
import dataclasses
import threading
import time

import pytest

from lcsm_core.training import SizeLimits
from lcsm_serving import RunStore
from lcsm_serving.admission import AdmissionPolicy, AdmissionRefused, visitor_hash
from lcsm_serving.service import TrainerService
from lcsm_serving.store import GRID_JOB, LineAhead, LineRefused
from tests.training.test_manager import wait_for
from tests.training.tiny import tiny_config

ALICE, BOB, CAROL, DAVE, ERIN, FRANK = (f"203.0.113.{n}" for n in range(1, 7))
ANY_COST = AdmissionPolicy(visitor_budget_s=1e12, server_budget_s=1e12, large_grid_s=1e12)
LONG = 1_000_000                                   # steps: a cell that trains until it is stopped


def grid_cells(count: int = 2, cost_s: float = 10.0) -> list[tuple[dict, str, float]]:
    return [(tiny_config().to_dict(), f"cell {n}", cost_s) for n in range(count)]


def running(store: RunStore, grid: str = "running", visitor: str | None = ALICE) -> list[int]:
    return store.admit_grid(grid, grid_cells(), f"grid:{grid}", visitor, ANY_COST, job=GRID_JOB)


def queue(store: RunStore, grid: str, visitor: str | None, max_line: int = 4, **options) -> int:
    return store.queue_grid(grid, grid_cells(), f"grid:{grid}", visitor, max_line, **options)


def finish(store: RunStore, run_ids: list[int]) -> None:
    for run_id in run_ids:
        store.set_status(run_id, "completed")


def test_a_visitor_queues_behind_the_running_grid_one_grid_each_and_a_few_places(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    running(store)
    assert queue(store, "g-bob", BOB) == 1 and queue(store, "g-carol", CAROL) == 2
    with pytest.raises(LineRefused, match="your grid running is still running: one grid per visitor"):
        queue(store, "g-alice", ALICE)                                          # hers holds the lab
    with pytest.raises(LineRefused, match="your grid g-bob is already number 1 in line: one grid per visitor"):
        queue(store, "g-bob-2", BOB)
    with pytest.raises(LineRefused, match="grid g-carol is already number 2 in line"):
        queue(store, "g-carol", DAVE)                                           # the same grid, another visitor
    with pytest.raises(LineRefused, match="grid running is the one running now"):
        queue(store, "running", DAVE)
    with pytest.raises(LineRefused, match="the operator's grids are not queued"):
        queue(store, "cli", None)
    assert queue(store, "g-dave", DAVE, max_line=3) == 3
    with pytest.raises(LineRefused, match=r"the line for the paper lab is full \(3 grids wait\)"):
        queue(store, "g-erin", ERIN, max_line=3)
    assert [(e.grid, e.place) for e in store.grid_line()] == [("g-bob", 1), ("g-carol", 2), ("g-dave", 3)]

    assert store.leave_grid_line(BOB) == "g-bob" and store.leave_grid_line(BOB) is None
    assert store.grid_line_entry(BOB, since=0) is None                          # who left is told nothing
    carol = store.grid_line_entry(CAROL, since=0)
    assert (carol.grid, carol.state, carol.place) == ("g-carol", "waiting", 1)   # one place up
    assert queue(store, "g-erin", ERIN, max_line=3) == 3                        # a place freed
    with store._lock:
        stored = store._db.execute("SELECT visitor, cells FROM grid_line").fetchall()
    assert stored[0][0] == visitor_hash(BOB) and all(BOB not in str(row) for row in stored)   # no address kept


def test_a_visitors_own_allowance_refuses_at_once_not_after_the_wait(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    running(store)
    with pytest.raises(AdmissionRefused, match="this grid needs about"):
        queue(store, "g-bob", BOB, admission=AdmissionPolicy(visitor_budget_s=5))
    assert queue(store, "g-bob", BOB, admission=AdmissionPolicy(server_budget_s=25)) == 1   # the backlog: later


def test_visitors_take_their_turn_but_the_operator_does_not_wait_in_line(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    finish(store, running(store))
    queue(store, "g-bob", BOB)                     # the lab is free, the service has not started bob's grid yet
    with pytest.raises(LineAhead, match="1 grid\\(s\\) already wait in line"):
        store.admit_grid("g-carol", grid_cells(), "grid:g-carol", CAROL, ANY_COST, job=GRID_JOB)
    assert store.admit_grid("cli", grid_cells(), "grid:cli", None, job=0)      # the CLI keeps its behaviour


def test_the_head_starts_when_the_grid_ends_through_admit_grids_checks(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    alice = running(store)
    queue(store, "g-bob", BOB)
    queue(store, "g-carol", CAROL)
    assert store.start_grid_line_head(ANY_COST) == []                          # the lab is taken
    finish(store, alice)
    [started] = store.start_grid_line_head(ANY_COST)
    assert (started.grid, started.state) == ("g-bob", "started") and store.active_grid() == "g-bob"
    rows = store.session_runs("grid:g-bob")
    assert len(rows) == 2 and all(r.status == "queued" for r in rows)
    with store._lock:
        job, who, created = store._db.execute("SELECT job, visitor, created_at FROM runs WHERE grid='g-bob'").fetchone()
    assert (job, who) == (GRID_JOB, visitor_hash(BOB)) and created == started.ended_at
    assert store.grid_admitted_at("g-bob") == started.ended_at                  # the ceiling counts from the start
    told = store.grid_line_entry(BOB, since=0)
    assert (told.state, told.ended_at) == ("started", started.ended_at)
    assert store.grid_line_entry(BOB, since=started.ended_at + 1) is None        # told for a while, not forever
    assert store.start_grid_line_head(ANY_COST) == []                          # bob's grid holds the lab now
    assert [e.grid for e in store.grid_line()] == ["g-carol"]


def test_a_grid_stopped_at_the_ceiling_frees_the_lab_for_the_head(tmp_path):
    service = TrainerService(tmp_path / "runs.sqlite", admission=dataclasses.replace(ANY_COST, grid_ceiling_s=60))
    store = service.store
    running(store)
    queue(store, "g-bob", BOB)
    with store._lock:
        store._db.execute("UPDATE runs SET created_at=created_at-120 WHERE grid='running'")
    service._end_grid_past_ceiling()
    [started] = store.start_grid_line_head(service.admission)
    assert started.grid == "g-bob" and store.active_grid() == "g-bob"


def test_a_head_refused_at_its_turn_leaves_the_line_with_its_reason_and_the_next_starts(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    alice = running(store)
    queue(store, "g-bob", BOB)
    queue(store, "g-carol", CAROL)
    store.submit_job(tiny_config().to_dict(), "run", "bob-tab", True, 1, 20, visitor=BOB, cost_s=100.0)
    finish(store, alice)
    tight = AdmissionPolicy(visitor_max_active=1, visitor_budget_s=1e12, server_budget_s=1e12)
    refused, started = store.start_grid_line_head(tight)                      # bob's live run took his place
    assert (refused.grid, refused.state, started.grid, started.state) == ("g-bob", "refused", "g-carol", "started")
    told = store.grid_line_entry(BOB, since=0)
    assert told.state == "refused" and "your address already has 1 run(s) or grid(s)" in told.reason
    assert store.grid_line_entry(CAROL, since=0).state == "started"
    assert store.session_runs("grid:g-bob") == []


def test_processes_starting_the_head_together_start_it_once(tmp_path):
    """The service and web processes (own connections) race for a head whose lab just came free."""
    db = tmp_path / "runs.sqlite"
    store = RunStore(db)
    alice = running(store)
    queue(store, "g-bob", BOB)
    queue(store, "g-carol", CAROL)
    finish(store, alice)
    handles = [RunStore(db) for _ in range(4)]
    barrier, decided = threading.Barrier(len(handles)), []

    def start(handle):
        barrier.wait()
        decided.extend(handle.start_grid_line_head(ANY_COST))

    threads = [threading.Thread(target=start, args=(h,)) for h in handles]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [(e.grid, e.state) for e in decided] == [("g-bob", "started")]
    assert len(store.session_runs("grid:g-bob")) == 2 and store.session_runs("grid:g-carol") == []


def test_an_old_store_file_gains_the_line_and_ended_entries_are_pruned(tmp_path):
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    with store._lock:
        store._db.execute("DROP TABLE grid_line")                              # a file from before the line
    store.close()
    store = RunStore(path)
    alice = running(store)
    queue(store, "g-bob", BOB)
    queue(store, "g-carol", CAROL)
    store.leave_grid_line(CAROL)
    finish(store, alice)
    store.start_grid_line_head(ANY_COST)
    assert store.prune_grid_line(time.time() + 1) == 2 and store.grid_line() == []


# --- the trainer service -----------------------------------------------------------------------------------------
def test_the_service_starts_the_queued_grid_when_the_running_one_reaches_the_ceiling(tmp_path):
    """Alice's grid (an endless cell, admitted an hour ago) is past the ceiling (a minute here): the service stops it
    and starts Bob's from the line in the same poll, Bob's cells train to the end, and Carol, refused at her turn,
    is told why."""
    policy = dataclasses.replace(ANY_COST, grid_ceiling_s=60.0, visitor_max_active=1)
    service = TrainerService(tmp_path / "runs.sqlite", admission=policy, max_concurrent=1, grid_workers=1,
                             workers="thread", limits=SizeLimits(max_steps=LONG))
    store = service.store
    forever = tiny_config(max_steps=LONG, max_seconds=120).to_dict()
    alice = store.admit_grid("g-alice", [(forever, "cell 0", 10.0)], "grid:g-alice", ALICE, ANY_COST, job=GRID_JOB)
    with store._lock:
        store._db.execute("UPDATE runs SET created_at=created_at-3600 WHERE grid='g-alice'")
    short = [(tiny_config(max_steps=5).to_dict(), f"cell {n}", 10.0) for n in range(2)]
    assert store.queue_grid("g-bob", short, "grid:g-bob", BOB, 4) == 1
    assert store.queue_grid("g-carol", short, "grid:g-carol", CAROL, 4) == 2
    store.submit_job(tiny_config().to_dict(), "run", "carol-tab", True, 1, 20, visitor=CAROL, cost_s=1.0)
    service.start()
    threading.Thread(target=service.serve, daemon=True).start()
    try:
        assert wait_for(lambda: store.grid_line_entry(BOB, since=0).state == "started", 30)
        assert wait_for(lambda: not store.get_run(alice[0]).active, 30)
        assert "limit for one visitor's grid (60 s on the clock)" in store.get_run(alice[0]).reason
        assert wait_for(lambda: all(r.status == "completed" for r in store.session_runs("grid:g-bob")), 60)
        assert wait_for(lambda: store.grid_line_entry(CAROL, since=0).state == "refused", 90)   # her live run
        carol = store.grid_line_entry(CAROL, since=0)
        assert "your address already has 1 run(s) or grid(s)" in carol.reason
        assert carol.ended_at >= max(r.ended_at for r in store.session_runs("grid:g-bob"))   # Bob's held the lab
        assert store.grid_line() == [] and store.active_grid() is None
    finally:
        service.shutdown()


# --- a page's runner -----------------------------------------------------------------------------------------
def test_a_pages_runner_queues_a_visitor_while_the_lab_is_taken_and_says_when_it_starts(tmp_path, monkeypatch):
    from lcsm_core.paper_lab import GridSpec
    from lcsm_serving.paper_lab import GridRunner
    lab = GridRunner(tmp_path / "runs.sqlite", via_service=True)
    monkeypatch.setattr(lab, "_ensure_service", lambda: None)                  # no service: the cells just wait
    tiny = dict(seq_lens=(16,), kv_pairs=2, d_model=8, expand_dim=8, lrs=(1e-2,), steps=3, batch_size=4)
    policy = dataclasses.replace(ANY_COST, grid_ceiling_s=600)
    first, second = GridSpec(ablation="parameterization", **tiny), GridSpec(ablation="tau", **tiny)
    grid, started, place = lab.launch_or_queue(first, visitor=ALICE, admission=policy)
    assert started and place is None                                          # the lab was free
    free_by = lab.lab_free_by(grid, 600)
    bob = lab.lab(BOB, policy)
    assert (bob.active, bob.free_by, bob.waiting, bob.may_queue, bob.entry) == (grid, free_by, 0, True, None)
    assert bob.starts_by_if_queued() == free_by
    assert lab.launch_or_queue(second, visitor=BOB, admission=policy)[1:] == ([], 1)
    bob = lab.lab(BOB, policy)
    assert bob.in_line and bob.entry.place == 1 and bob.starts_by == free_by and not bob.may_queue
    carol = lab.lab(CAROL, policy)
    assert carol.may_queue and carol.starts_by_if_queued() == free_by + 600      # Bob's grid holds it 600 s at most
    alice = lab.lab(ALICE, policy)
    assert alice.holds_grid and not alice.may_queue
    operator = lab.lab("local", policy)
    assert operator.operator and not operator.may_queue
    with pytest.raises(ValueError, match="still running"):
        lab.launch_or_queue(second, visitor="local", admission=policy)          # the operator is not queued
    assert lab.leave_line(BOB) == second.grid_id and not lab.lab(BOB, policy).in_line

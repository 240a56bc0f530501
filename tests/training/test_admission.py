"""The admission policy (issue 24 item 1): who a visitor is, what work costs, the quota and budgets and their
words; applied in the store's transaction for live-run jobs and for grids (a race of launches starts one grid),
the grid stop, and large grids refused from a page but not from the CLI."""
import threading
import time
from concurrent.futures import Future

import pytest

from lcsm_core.paper_lab import GridSpec
from lcsm_core.paper_lab.grid import cells
from lcsm_core.training.control import stop_asked_control
from lcsm_core.training.cost import grid_cost_s, run_cost_s
from lcsm_serving import RunStore, record_run
from lcsm_serving.admission import (
    AdmissionPolicy,
    AdmissionRefused,
    Charge,
    large_grid_refusal,
    refusal,
    visitor_hash,
    visitor_identity,
)
from lcsm_serving.paper_lab import GridRunner
from lcsm_serving.store import GridBusy
from tests.training.test_manager import wait_for
from tests.training.tiny import tiny_config

ALICE, BOB = "203.0.113.7", "198.51.100.9"
TINY_GRID = dict(seq_lens=(16,), kv_pairs=2, d_model=16, expand_dim=16, lrs=(1e-2,), steps=3, batch_size=8)


# --- who ---------------------------------------------------------------------------
def test_a_visitor_is_an_address_an_ipv6_visitor_its_64_and_loopback_is_the_operator():
    assert visitor_identity(ALICE) == ALICE
    assert visitor_identity("::ffff:203.0.113.7") == ALICE                    # IPv4-mapped: the same visitor
    assert visitor_identity("2001:db8:1:2::1") == visitor_identity("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert visitor_identity("2001:db8:1:3::1") != visitor_identity("2001:db8:1:2::1")
    for operator in (None, "", "local", "127.0.0.1", "::1"):
        assert visitor_identity(operator) is None and visitor_hash(operator) is None
    assert visitor_hash(ALICE) != visitor_hash(BOB) and ALICE not in visitor_hash(ALICE)


# --- the words -------------------------------------------------------------------------
def test_quota_budget_and_server_budget_refuse_with_their_own_words():
    policy = AdmissionPolicy(visitor_max_active=2, visitor_budget_s=600, window_s=3600, server_budget_s=1000)
    now = 10_000.0
    running = Charge(now - 10, 100, 5, True)
    grid_cell = Charge(now - 10, 50, 0, True, grid="g")
    assert refusal(policy, 10, "v", [running], 0, now) is None
    held = refusal(policy, 10, "v", [running, grid_cell, Charge(now, 50, 0, True, grid="g")], 0, now)
    assert "already has 2 run(s) or grid(s)" in held                        # a grid counts once
    spent = [Charge(now - 3000, 500, 480, False)]                            # ended: charged what it took
    budget = refusal(policy, 200, "v", spent, 0, now)
    assert "needs about 3 min of CPU" in budget and "used 8 min of its 10 min per 60 min" in budget
    assert "try again in about 10 min" in budget                             # when the old run leaves the window
    assert refusal(policy, 200, "v", [Charge(now - 3700, 500, 480, False)], 0, now) is None   # out of the window
    assert "ask for fewer steps" in refusal(policy, 700, "v", [], 0, now)
    server = refusal(policy, 200, "v", [], 900, now)
    assert "already has 15 min of CPU work waiting or training" in server
    assert refusal(policy, 200, None, [running] * 5, 900, now) == server     # the operator: the server's budget only


def test_large_grids_are_refused_unless_the_operator_allows_them():
    policy = AdmissionPolicy(large_grid_s=3600)
    assert large_grid_refusal(policy, 3600, 10, 1000) is None
    words = large_grid_refusal(policy, 5 * 3600, 324, 3000)
    assert "about 5.0 h of CPU (324 runs of 3000 steps" in words and "LCSM_ALLOW_LARGE_GRIDS=1" in words
    assert large_grid_refusal(AdmissionPolicy.from_env({"LCSM_ALLOW_LARGE_GRIDS": "1"}), 5 * 3600, 324, 3000) is None


def test_a_pages_grid_is_no_larger_than_the_grid_ceiling_and_every_shipped_default_grid_passes():
    from lcsm_core.paper_lab import DEFAULT_SPECS
    policy = AdmissionPolicy.from_env({})
    assert policy.large_grid_s == AdmissionPolicy().large_grid_s == policy.grid_ceiling_s == 1800
    assert AdmissionPolicy.from_env({"LCSM_GRID_CEILING_S": "600"}).large_grid_s == 600       # follows the ceiling
    assert AdmissionPolicy.from_env({"LCSM_GRID_CEILING_S": "600", "LCSM_LARGE_GRID_CPU_S": "900"}).large_grid_s \
        == 900                                                                                # the operator's word
    for name, spec in DEFAULT_SPECS.items():
        cost = grid_cost_s(c.config for c in cells(spec))
        assert large_grid_refusal(policy, cost, spec.cell_count, spec.steps) is None, (name, cost)
        assert refusal(policy, cost, "v", [], 0.0, 0.0, "this grid") is None, (name, cost)   # a fresh visitor


def test_settings_come_from_the_environment_and_bad_ones_are_named():
    policy = AdmissionPolicy.from_env({"LCSM_VISITOR_MAX_ACTIVE": "5", "LCSM_SERVER_BUDGET_CPU_S": "60"})
    assert policy.visitor_max_active == 5 and policy.server_budget_s == 60 and not policy.allow_large_grids
    with pytest.raises(ValueError, match="LCSM_VISITOR_BUDGET_CPU_S='lots' must be a positive number"):
        AdmissionPolicy.from_env({"LCSM_VISITOR_BUDGET_CPU_S": "lots"})


def test_costs_come_from_the_cost_model_before_anything_runs():
    config = tiny_config(max_steps=40, max_seconds=60)
    assert 0 < run_cost_s(config) <= 60
    assert run_cost_s(tiny_config(max_steps=10 ** 6, max_seconds=60)) == 60         # capped by its time limit
    issue_grid = GridSpec(ablation="oscillation", seq_lens=(32, 64, 128), lrs=(0.001, 0.003, 0.01), steps=3000,
                          seeds=(0, 1, 2), d_model=64, expand_dim=64, kv_pairs=8, short_conv=1)
    assert grid_cost_s(c.config for c in cells(issue_grid)) > AdmissionPolicy().large_grid_s   # the issue's link


# --- live runs, in the store's transaction ---------------------------------------------------
def submit(store, owner, visitor, policy, cost_s=100.0):
    return store.submit_job(tiny_config().to_dict(), "run", owner, True, 1, 20, visitor=visitor, cost_s=cost_s,
                            admission=policy)


def test_fresh_tokens_from_one_address_share_its_quota_and_the_store_keeps_no_address(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    policy = AdmissionPolicy(visitor_max_active=2)
    first, second = submit(store, "token-1", ALICE, policy), submit(store, "token-2", ALICE, policy)
    for token in range(3, 23):                                                     # 20 more fresh tokens
        with pytest.raises(AdmissionRefused, match="your address already has 2"):
            submit(store, f"token-{token}", ALICE, policy)
    bob = submit(store, "bob", BOB, policy)
    assert [r.id for r in store.list_runs()] == [bob, second, first]
    with store._lock:
        stored = store._db.execute("SELECT visitor, cost_s FROM runs ORDER BY id").fetchall()
    assert stored[0] == (visitor_hash(ALICE), 100.0) and all(ALICE not in str(row) for row in stored)
    store.set_status(first, "stopped", "done")                                     # a stopped run frees a place
    submit(store, "token-23", ALICE, policy)
    for token in ("operator-1", "operator-2", "operator-3"):                        # this machine: no quota
        submit(store, token, "local", policy)


def test_a_stopped_run_refunds_the_rest_of_its_estimate(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    policy = AdmissionPolicy(visitor_budget_s=1000)
    run_id = submit(store, "a", ALICE, policy, cost_s=900)
    with pytest.raises(AdmissionRefused, match="needs about 3 min of CPU"):
        submit(store, "b", ALICE, policy, cost_s=200)                             # 900 still to run + 200 > 1000
    store.write(run_id, [], [], "stopped", 10, 30.0, None, "stopped by the user")  # it took 30 s
    submit(store, "b", ALICE, policy, cost_s=200)


def test_the_server_budget_counts_everyone_s_work_still_to_run(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    policy = AdmissionPolicy(server_budget_s=1000)
    submit(store, "a", ALICE, policy, cost_s=600)
    with pytest.raises(AdmissionRefused, match="this server already has 10 min of CPU work"):
        submit(store, "b", BOB, policy, cost_s=600)
    submit(store, "b", BOB, policy, cost_s=300)


# --- grids ---------------------------------------------------------------------------
def never_started(runner):
    """Cells are admitted but no pool runs them (a race test needs the admission, not the training)."""
    runner._submit_local = lambda args: [Future() for _ in args]
    return runner


def test_four_sessions_launching_together_start_one_grid(tmp_path):
    """Four web processes' runners (own connections, own memory) press "Rerun the whole grid" at once."""
    db = tmp_path / "runs.sqlite"
    runners = [never_started(GridRunner(db, workers=1)) for _ in range(4)]
    spec = GridSpec(ablation="parameterization", **TINY_GRID)
    barrier, outcomes = threading.Barrier(4), []

    def press(runner):
        barrier.wait()
        try:
            outcomes.append(len(runner.launch(spec, rerun="all", visitor=f"203.0.113.{len(outcomes)}")[1]))
        except GridBusy as err:
            outcomes.append(str(err))
        except ValueError as err:                       # the quick check before the transaction saw it first
            outcomes.append(str(err))
        except Exception as err:                        # anything else is the test's message, not a lost thread
            outcomes.append(f"unexpected {type(err).__name__}: {err}")
            raise

    threads = [threading.Thread(target=press, args=(r,)) for r in runners]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)                                     # four runners' first transactions on a loaded machine
    assert not [t for t in threads if t.is_alive()], f"a press still waits after 3 minutes: {outcomes}"
    started = [o for o in outcomes if isinstance(o, int)]
    assert started == [len(cells(spec))], outcomes
    assert all("still running" in o for o in outcomes if isinstance(o, str)) and len(outcomes) == 4
    store = RunStore(db)
    assert len(store.list_runs()) == len(cells(spec))
    assert all(r.active_grid == spec.grid_id for r in runners)                  # every process sees it


def test_a_grid_stop_frees_the_store_at_once_and_only_its_launcher_may_stop_it(tmp_path):
    db = tmp_path / "runs.sqlite"
    lab = never_started(GridRunner(db, workers=1))
    spec = GridSpec(ablation="parameterization", **TINY_GRID)
    grid_id, queued = lab.launch(spec, visitor=ALICE)
    other = GridRunner(db)                                                          # another web process
    assert other.active_grid == grid_id and other.stop(visitor=BOB) == 0 and other.active_grid == grid_id
    assert other.stop(visitor=ALICE) == len(queued) and other.active_grid is None   # the launcher, anywhere
    _, again = lab.launch(GridSpec(ablation="tau", **TINY_GRID), visitor=BOB)       # the next grid may start
    assert again and lab.stop() == len(again)                                       # the operator stops any


def test_stop_cancels_cells_not_started_and_a_watching_cell_ends_at_its_next_step(tmp_path):
    db = tmp_path / "runs.sqlite"
    lab = GridRunner(db, workers=1)
    spec = GridSpec(ablation="tau", **{**TINY_GRID, "steps": 5000})                 # 7 cells, one worker
    grid_id, queued = lab.launch(spec, visitor=ALICE)
    assert lab.stop(visitor=ALICE, reason="stopped from the page") == len(queued)
    assert lab.active_grid is None
    store = RunStore(db)
    cancelled = [run_id for _, run_id, future in queued if future.cancelled()]
    assert len(cancelled) >= len(queued) - 3                                        # 1 running + 1 in the pool's pipe
    assert all(store.get_run(r).status == "stopped" for r in cancelled)
    assert wait_for(lambda: all(f.done() for _, _, f in queued), 60)              # the cells in the pool watch
    assert all(store.get_run(r).status == "stopped" for _, r, _ in queued)         # (run_one: stop_asked_control)

    run_id = store.create_run(tiny_config(max_steps=10 ** 5).to_dict(), "a cell")  # a cell trained under the control
    config = tiny_config(max_steps=10 ** 5, max_seconds=120)
    worker = threading.Thread(target=record_run, args=(store, run_id, config,
                                                       stop_asked_control(store, run_id, config.optim.lr)))
    worker.start()
    assert wait_for(lambda: store.get_run(run_id).steps > 2, 60)
    with store._lock:
        store._db.execute("UPDATE runs SET stop_requested='the grid was stopped' WHERE id=?", (run_id,))
    started = time.monotonic()
    worker.join(30)
    row = store.get_run(run_id)
    assert row.status == "stopped" and row.reason == "the grid was stopped" and time.monotonic() - started < 10


def test_a_large_grid_is_refused_from_a_page_but_not_from_the_cli(tmp_path):
    large = GridSpec(ablation="tau", **{**TINY_GRID, "steps": 20_000, "seeds": (0, 1, 2, 3, 4)})
    lab = never_started(GridRunner(tmp_path / "runs.sqlite"))
    with pytest.raises(AdmissionRefused, match="more than a page may start"):
        lab.launch(large, visitor=ALICE, admission=AdmissionPolicy(large_grid_s=300))
    assert lab.active_grid is None and RunStore(lab.db_path).list_runs() == []
    _, allowed = lab.launch(large, visitor=ALICE,
                            admission=AdmissionPolicy(large_grid_s=300, allow_large_grids=True,
                                                      visitor_budget_s=1e9, server_budget_s=1e9))
    assert len(allowed) == 35 and lab.stop() == 35
    _, from_cli = lab.launch(large)                                                 # visitor None: the operator
    assert len(from_cli) == 35

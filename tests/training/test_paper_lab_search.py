"""The evidence grids' staged learning-rate search and budget on synthetic results (no training): stage 1, the
extension at an edge, stage 2 at the best rate and its neighbours, a best rate still at the edge withholds the
verdict, a budget run out says "not tested at this scale", and the claims' comparisons per length."""
import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcsm_core.paper_lab import CellResult
from lcsm_core.paper_lab.evidence import HELD, INCONCLUSIVE, NOT_HELD, NOT_TESTED, WITHHELD, Arm, compare
from lcsm_core.paper_lab.grid import cells
from lcsm_core.paper_lab.search import (
    CONFIRM_SEEDS,
    EVIDENCE_PLANS,
    LADDER,
    RUNNING,
    STAGE1_RATES,
    STAGE2_SEEDS,
    STAGE3_SEEDS,
    _possible_kinds,
    claim_pairs,
    early_outcomes,
    evidence_verdict,
    load_evidence,
    next_chunk,
    next_stage,
    plan_of,
    reachable_outcomes,
    save_evidence,
    settled_early,
    spent_s,
    stage3_outcomes,
    stage_costs,
)

STUCK, LEARNED = 0.27, 0.85


def run(plan, acc, results=(), stages=4):
    """Run up to `stages` stages of the search with accuracy acc(label, T, lr, seed); returns every result."""
    results = list(results)
    for _ in range(stages):
        stage = next_stage(plan, results)
        if stage is None:
            break
        results += [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                               acc(c.label, c.seq_len, c.lr, c.seed), 1.0, "live") for c in stage.cells]
    return results


def learns_at(winners, good=(3.2e-3, 1e-2, 3.2e-2)):
    return lambda label, T, lr, seed: LEARNED + 0.01 * seed if label in winners and lr in good else STUCK


def test_stage_one_is_four_rates_over_a_decade_and_a_half_by_two_seeds():
    assert len(STAGE1_RATES) == 4 and max(STAGE1_RATES) / min(STAGE1_RATES) >= 10 ** 1.5 - 1e-9
    plan = plan_of("parameterization")
    stage = next_stage(plan, [])
    assert stage.name == "stage 1" and len(stage.cells) == 3 * 4 * 2 and stage.cost_s > 0
    assert not stage.skipped()


def test_stage_two_runs_five_seeds_at_the_best_rate_and_its_neighbours():
    plan = plan_of("parameterization")
    results = run(plan, learns_at({"1-1-1-0"}, good=(1e-2,)), stages=1)
    stage = next_stage(plan, results)
    assert stage.name == "stage 2"
    mine = [c for c in stage.cells if c.label == "1-1-1-0"]
    assert {c.lr for c in mine} == {3.2e-3, 1e-2, 3.2e-2} and {c.seed for c in mine} == {2, 3, 4}
    assert len(mine) == 9 and stage.skipped()                   # seeds 0, 1 ran in stage 1


def test_a_best_rate_at_the_edge_extends_once_then_withholds():
    plan = plan_of("parameterization")
    def top(label, T, lr, seed):                                # 1-1-1-0 learns best at the highest rate tried
        return (0.5 + lr if lr >= 3.2e-2 else STUCK) if label == "1-1-1-0" else 0.8
    results = run(plan, top, stages=1)
    stage = next_stage(plan, results)
    assert stage.name == "extension" and {(c.label, c.lr) for c in stage.cells} == {("1-1-1-0", LADDER[-1])}
    results = run(plan, top, results, stages=3)
    found = evidence_verdict(plan, results)
    assert found.outcome == NOT_TESTED and "edge of the search" in found.why
    assert any(c.kind == WITHHELD for *_, c in found.comparisons)


def test_an_edge_best_that_comes_back_inside_is_searched_normally():
    plan = plan_of("parameterization")
    peak = learns_at({"1-1-1-0"}, good=(3.2e-2,))              # best at the top of stage 1, worse at 1e-1
    results = run(plan, peak, stages=3)
    assert next_stage(plan, results) is None
    entry = next(e for e in evidence_verdict(plan, results).entries if e.label == "1-1-1-0")
    assert entry.window == (1e-2, 3.2e-2, 1e-1) and not entry.withheld


@pytest.mark.parametrize("winners,outcome", [({"1-1-1-2"}, HELD), ({"1-1-1-1"}, NOT_HELD)])
def test_activation_claim_decided_on_shares(winners, outcome):
    plan = plan_of("activation")
    results = run(plan, learns_at(winners))
    found = evidence_verdict(plan, results)
    assert found.outcome == outcome, found.detail
    assert found.decided and not found.why


def test_bimodal_seeds_leave_it_inconclusive_and_say_why():
    plan = plan_of("activation")

    def lottery(label, T, lr, seed):                            # sigmoid leaves the plateau in 3 seeds of 10
        return LEARNED if label == "1-1-1-2" and seed in (0, 2, 4) else STUCK
    results = run(plan, lottery)
    found = evidence_verdict(plan, results)
    assert found.outcome == INCONCLUSIVE and "more seeds" in found.why
    assert {r.seed for r in results} == set(STAGE2_SEEDS + STAGE3_SEEDS)        # stage 3 ran, once
    assert found.arms["1-1-1-2", 32].n == 10 and next_stage(plan, results) is None


def test_stage_three_gives_the_open_comparisons_five_more_seeds_and_can_decide():
    plan = plan_of("parameterization", budget_cpu_h=10)

    def lottery(label, T, lr, seed):                            # 1-1-1-0 learns in 3 of seeds 0–4, all of 5–9
        return LEARNED if label == "1-1-1-0" and (seed in (0, 2, 4) or seed >= 5) else STUCK
    results = run(plan, lottery, stages=2)                     # stages 1 and 2: 3/5 vs 0/5, open
    stage = next_stage(plan, results)
    assert stage.name == "stage 3" and {c.seed for c in stage.cells} == set(STAGE3_SEEDS)
    assert {c.label for c in stage.cells} == {"0 as DSS", "0 as selective SSM", "1-1-1-0"}
    assert evidence_verdict(plan, results).outcome == RUNNING
    half = results + [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                                 lottery(c.label, c.seq_len, c.lr, c.seed), 1.0, "live") for c in stage.cells[:5]]
    assert next_stage(plan, half).cells == [c for c in stage.cells[5:]]         # the selection holds still
    found = evidence_verdict(plan, run(plan, lottery, results))
    assert found.outcome == NOT_HELD and found.arms["1-1-1-0", 32].n == 10      # 8/10 vs 0/10: apart


def test_stage_three_stops_once_its_unfinished_runs_cannot_change_the_verdict():
    plan = plan_of("activation", budget_cpu_h=10)

    def lottery(label, T, lr, seed):                            # sigmoid leaves in 2 of 5; 1-1-1-1 in 4 of 5, then 1
        wins = {"1-1-1-2": (0, 2), "1-1-1-1": (0, 1, 2, 3, 5)}.get(label, ())
        return LEARNED if seed in wins else STUCK
    results = run(plan, lottery, stages=2)
    stage = next_stage(plan, results)                           # 1-1-1-1 could still end wholly above sigmoid
    assert stage.name == "stage 3"
    assert stage3_outcomes(plan, results) >= {NOT_HELD, INCONCLUSIVE}
    theirs = [c for c in stage.cells if c.label == "1-1-1-1"]
    results += [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                           lottery(c.label, c.seq_len, c.lr, c.seed), 1.0, "live") for c in theirs]
    # 1-1-1-1 at 5/10: sigmoid's 2–7 of 10 can neither clear it nor fall wholly below it, nor anyone else's
    assert stage3_outcomes(plan, results) == {INCONCLUSIVE} and next_stage(plan, results).name == "confirmation"
    no_confirmation = plan_of("activation", budget_cpu_h=(spent_s(plan, results) + 60) / 3600)
    found = evidence_verdict(no_confirmation, results)
    left = len(stage.cells) - len(theirs)
    assert found.outcome == INCONCLUSIVE and f"stage 3 stopped after {len(theirs)} of its {len(stage.cells)} runs" \
        in found.why and f"whatever the other {left} would show" in found.why and "does not fit" in found.why
    whole = results + [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                                  lottery(c.label, c.seq_len, c.lr, c.seed), 1.0, "live")
                       for c in stage.cells if c.label != "1-1-1-1"]
    assert evidence_verdict(no_confirmation, whole).outcome == INCONCLUSIVE  # what the whole stage gives


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=3, max_size=8), st.lists(st.booleans(), min_size=3, max_size=8),
       st.lists(st.booleans(), max_size=6), st.lists(st.booleans(), max_size=6))
def test_the_reachable_kinds_hold_every_way_the_seeds_to_come_can_fall(a, b, more_a, more_b):
    """`_possible_kinds` of two arms part-way, with the seeds still to come, includes the kind of each completion."""
    def arm(name, left):
        return Arm(name, tuple(LEARNED + 0.01 * i if x else STUCK for i, x in enumerate(left)), 0.35)
    reachable = _possible_kinds(arm("a", a), len(more_a), arm("b", b), len(more_b))
    assert compare(arm("a", a + more_a), arm("b", b + more_b)).kind in reachable


def test_a_decided_claim_gets_no_more_seeds_and_an_unpaid_stage_three_leaves_the_verdict_standing():
    plan = plan_of("activation")
    results = run(plan, learns_at({"1-1-1-1"}))
    assert next_stage(plan, results) is None and evidence_verdict(plan, results).outcome == NOT_HELD
    assert {r.seed for r in results} == set(STAGE2_SEEDS)

    def lottery(label, T, lr, seed):
        return LEARNED if label == "1-1-1-0" and seed in (0, 2, 4) else STUCK
    results = run(plan_of("parameterization", budget_cpu_h=10), lottery, stages=2)
    costs = stage_costs(plan_of("parameterization"))
    stages_1_2 = plan_of("parameterization", budget_cpu_h=(sum(costs.values()) - costs["stage 3 (at most)"]
                                                           - costs["confirmation (at most)"]) / 3600)
    found = evidence_verdict(stages_1_2, results)
    assert found.outcome == INCONCLUSIVE and "do not fit" in found.why and found.stage == "stage 3"


def test_nobody_learning_is_not_tested():
    plan = plan_of("activation")
    found = evidence_verdict(plan, run(plan, lambda *a: STUCK))
    assert found.outcome == NOT_TESTED and "neither" in found.why


def test_budget_run_out_is_not_tested_and_says_so():
    plan = dataclasses.replace(plan_of("parameterization"), budget_cpu_s=1.0)
    results = run(plan, learns_at({"1-1-1-0"}), stages=1)
    found = evidence_verdict(plan, results)
    assert found.outcome == NOT_TESTED and "budget ran out" in found.why and found.stage == "stage 2"
    roomy = plan_of("parameterization", budget_cpu_h=10)
    assert evidence_verdict(roomy, results).outcome == RUNNING


def test_claims_compare_what_the_paper_says_per_length():
    short, long = claim_pairs("data_dependence", 32), claim_pairs("data_dependence", 256)
    assert {w for _, (w,), _ in short} == {"1-0-1-0", "1-1-1-0"} and len(short) == 12
    assert {w for _, (w,), _ in long} == {"1-0-1-0"} and ("1-1-1-0",) in [o for *_, o in long]
    ((_, large, small),) = claim_pairs("tau", 32)
    assert large == ("τ = 16", "τ = 32", "τ = 64") and small == ("τ = 1", "τ = 2", "τ = 4")
    readings = {r for r, _, _ in claim_pairs("parameterization", 32)}
    assert readings == {"0 as DSS", "0 as selective SSM"}


def test_tau_pools_each_half():
    plan = plan_of("tau")
    found = evidence_verdict(plan, run(plan, learns_at({"τ = 16", "τ = 32", "τ = 64"})))
    ((_, _, comparison),) = found.comparisons
    assert comparison.winner.n == 3 * len(STAGE2_SEEDS) and found.outcome == HELD


def test_plans_have_budgets_that_cover_their_stages():
    for name, plan in EVIDENCE_PLANS.items():
        costs = stage_costs(plan)
        needed = {k: v for k, v in costs.items()             # the confirmation runs only where what is left pays
                  if "confirmation" not in k and not (name == "data_dependence" and "stage 3" in k)}
        assert sum(needed.values()) <= plan.budget_cpu_s, name
        assert plan.base.seq_lens == ((32, 128, 256) if name == "data_dependence" else (32,))


def test_the_evidence_file_round_trips(tmp_path):
    plan = plan_of("parameterization")
    results = run(plan, learns_at({"1-1-1-0"}), stages=1)
    path = save_evidence(plan, results, "a test CPU", "2026-01-01", path=tmp_path / "p.json")
    back = load_evidence("parameterization", path=path)
    assert back.plan == plan and {r.key for r in back.results} == {r.key for r in results}
    assert {c.key for c in cells(plan.spec("stage 1"))} == {r.key for r in back.results}


def test_the_cli_driver_runs_stage_one_within_the_budget_then_resumes_running_nothing(tmp_path, capsys):
    """A tiny plan whose budget holds stage 1 only: stage 1 runs, stage 2 is 'not tested'; again: nothing runs."""
    from lcsm_core.paper_lab.search import spent_s
    from lcsm_serving import RunStore
    from lcsm_serving.paper_lab import GridRunner
    from lcsm_serving.paper_lab.cli import run_evidence
    from lcsm_serving.paper_lab.runner import stored_results
    tiny = plan_of("parameterization", seq_lens=(16,), kv_pairs=2, d_model=8, expand_dim=8, steps=3, batch_size=4)
    plan = dataclasses.replace(tiny, budget_cpu_s=stage_costs(tiny)["stage 1"] * 1.01)
    runner = GridRunner(tmp_path / "ev.sqlite", workers=1)
    line = run_evidence(plan, runner)
    assert line["outcome"] == NOT_TESTED and "budget ran out" in line["why"] and line["stage_left"] == "stage 2"
    assert "budget" in capsys.readouterr().err
    results = stored_results(plan, runner.db_path)
    assert len(results) == 3 * 4 * 2 and spent_s(plan, results) <= plan.budget_cpu_s
    again = run_evidence(plan, runner)
    assert again == line and len(RunStore(runner.db_path).list_runs()) == 3 * 4 * 2


def test_cost_only_prints_each_budget_before_anything_runs(tmp_path, capsys):
    from lcsm_serving import RunStore
    from lcsm_serving.paper_lab.cli import main
    db = tmp_path / "ev.sqlite"
    assert main(["--evidence", "all", "--cost-only", "--db", str(db)]) == 0
    err = capsys.readouterr().err
    for name in EVIDENCE_PLANS:
        assert f"evidence {name}: budget " in err
    assert "stage 1" in err and "beyond the budget: not tested" in err
    assert "what is left of the budget: ≈" in err and "on this machine" in err
    assert main(["--evidence", "tau", "--ship-stored", "--db", str(db)]) == 0      # nothing stored: nothing written
    assert "wrote" not in capsys.readouterr().err and RunStore(db).list_runs() == []


def test_the_cli_runs_stage_three_a_seed_at_a_time_and_stops_when_the_rest_cannot_matter(monkeypatch):
    """The driver's loop with the store and the grid runner stood in for: stage 3 runs seed 5 for every entry, and
    with sigmoid at 2/6 and 1-1-1-1 at 4/6 no seeds 6–9 could decide the claim: no more of stage 3 runs. The
    confirmation then tests sigmoid against 1-1-1-1 (the other entry furthest ahead) four seeds at a time, and stops
    once 1-1-1-1 learning every fresh seed and sigmoid none has decided it whatever the rest would show."""
    from lcsm_serving.paper_lab import cli
    plan = plan_of("activation", budget_cpu_h=10)
    wins = {"1-1-1-2": (0, 2), "1-1-1-1": (0, 1, 2, 3, *CONFIRM_SEEDS)}
    stored: list = []
    calls: list = []

    def fake_run_grid(spec, runner, out=None, have=frozenset()):
        ran = [c for c in cells(spec) if c.key not in have]
        calls.append((spec.seeds, sorted({c.seed for c in ran})))
        stored.extend(CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                                 LEARNED if c.seed in wins.get(c.label, ()) else STUCK, 1.0, "live") for c in ran)
    monkeypatch.setattr(cli, "run_grid", fake_run_grid)
    monkeypatch.setattr(cli, "stored_results", lambda plan, db, **kw: list(stored))
    runner = type("Runner", (), {"db_path": "unused", "where": "a test"})()
    line = cli.run_evidence(plan, runner, out=open(__import__("os").devnull, "w"))
    third = [ran for seeds, ran in calls if seeds == STAGE3_SEEDS]
    assert third == [[5]]
    rounds = [ran for seeds, ran in calls if seeds == CONFIRM_SEEDS]
    assert rounds[0] == [10, 11, 12, 13] and all(len(r) == 4 for r in rounds) and 2 < len(rounds) < 10
    assert line["outcome"] == NOT_HELD and "stage 3 stopped after 24 of its 120 runs" in line["detail"]
    assert "the confirmation (40 fresh seeds" in line["detail"] and "1-1-1-2 below 1-1-1-1" in line["detail"]
    assert f"it stopped after {8 * len(rounds)} of its 80 runs" in line["detail"]


def run_in_chunks(plan, acc, results=()):
    """The CLI's order: `next_chunk` until the search is complete or settled; returns every result."""
    results = list(results)
    while (chunk := next_chunk(plan, results)) is not None:
        assert chunk.cells
        results += [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                               acc(c.label, c.seq_len, c.lr, c.seed), 1.0, "live") for c in chunk.cells]
    return results


def run_whole(plan, acc):
    """Every stage to its end, nothing settled early: the verdict an early stop must agree with."""
    results = []
    while (stage := next_stage(plan, results, settle=False)) is not None:
        results += [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                               acc(c.label, c.seq_len, c.lr, c.seed), 1.0, "live") for c in stage.cells]
    return results


def test_one_comparison_that_must_end_below_settles_the_claim_before_stage_one_ends():
    """Data dependence: at T = 256, 1-0-1-0 stays on the plateau while 1-1-1-0 learns. Once their two entries have
    stage 2's five seeds, 1-0-1-0 is below 1-1-1-0 whatever the rest show: the claim did not hold, the rest is not
    run, and the whole search would say the same."""
    plan = plan_of("data_dependence", seq_lens=(32, 128, 256), budget_cpu_h=100)

    def acc(label, T, lr, seed):
        learns = label == "1-1-1-0" or (label == "1-0-1-0" and T < 256)
        return LEARNED + 0.01 * seed if learns and lr in (3.2e-3, 1e-2) else STUCK
    first = next_chunk(plan, [])                                # nothing known: the cheapest comparison, T = 32
    assert first.name == "stage 1" and {T for c in first.cells for T in [c.seq_len]} == {32}
    assert len({c.label for c in first.cells} & {"1-0-1-0", "1-1-1-0"}) == 1 and len(first.cells) == 2 * 4 * 2
    winners_256 = [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                              acc(c.label, c.seq_len, c.lr, c.seed), 1.0, "live")
                   for c in next_stage(plan, []).cells if c.seq_len == 256 and c.label in ("1-0-1-0", "1-1-1-0")]
    second = next_chunk(plan, winners_256)                      # their stage-1 seeds lean against the claim: first
    assert second.name == "stage 2" and {(c.label, c.seq_len) for c in second.cells} == {("1-0-1-0", 256),
                                                                                         ("1-1-1-0", 256)}
    results = run_in_chunks(plan, acc, winners_256)
    whole = run_whole(plan, acc)
    found, full = evidence_verdict(plan, results), evidence_verdict(plan, whole)
    assert found.outcome == full.outcome == NOT_HELD and next_stage(plan, results) is None
    assert len(results) == len(winners_256) + len(second.cells) < len(whole) / 10
    assert settled_early(plan, results) == NOT_HELD and early_outcomes(plan, results) == {NOT_HELD}
    assert "the search stopped" in found.detail and "T=256: 1-0-1-0 below 1-1-1-0" in found.detail
    assert not found.why and found.decided
    assert {(s.label, s.seq_len) for s in found.entries if s.best is None}        # some entries never ran stage 1


def test_stage_one_and_two_settle_nothing_while_a_comparison_could_still_go_either_way():
    plan = plan_of("activation")
    results = run(plan, learns_at({"1-1-1-2"}), stages=1)
    assert settled_early(plan, results) is None and early_outcomes(plan, results) >= {HELD, INCONCLUSIVE}
    results = run_in_chunks(plan, learns_at({"1-1-1-2"}))
    assert evidence_verdict(plan, results).outcome == HELD and {r.seed for r in results} == set(STAGE2_SEEDS)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["1-1-1-0", "1-0-1-0", "1-1-0-0", "0-1-1-0"]),
                       st.tuples(st.frozensets(st.integers(0, 9)), st.sampled_from([1e-3, 3.2e-3, 1e-2, 3.2e-2]),
                                 st.sampled_from([32, 256])), max_size=4))
def test_an_early_stop_gives_the_verdict_the_whole_search_would(behaviour):
    """Whatever entries learn (at which seeds, from which rate up, up to which length), running in `next_chunk`'s
    order and stopping when settled gives the outcome stages 1–3 give with every stage run to its end. (The
    confirmation that may follow reads its question from the seeds stages 1–3 ran, an early stop's included: it is
    left out here; tests/training/test_paper_lab_confirm.py holds its own stop to the whole of it.)"""
    from lcsm_core.paper_lab import confirm
    plan = plan_of("data_dependence", seq_lens=(32, 256), budget_cpu_h=100)

    def acc(label, T, lr, seed):
        seeds, from_lr, up_to = behaviour.get(label, (frozenset(), 1.0, 0))
        return LEARNED + 0.01 * seed if seed in seeds and lr >= from_lr and T <= up_to else STUCK
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(confirm, "question", lambda plan, results: None)
        assert evidence_verdict(plan, run_in_chunks(plan, acc)).outcome == \
            evidence_verdict(plan, run_whole(plan, acc)).outcome


def test_the_cli_runs_the_leaning_comparison_first_and_stops_once_it_settles_the_claim(monkeypatch):
    """The driver's loop with the store and the runner stood in for: with the two T = 256 winners' stage 1 stored
    and leaning against the claim, it runs their stage 2 (18 runs), finds the claim settled and stops."""
    from lcsm_serving.paper_lab import cli
    plan = plan_of("data_dependence", seq_lens=(32, 128, 256), budget_cpu_h=8)

    def acc(label, T, lr, seed):
        return LEARNED + 0.01 * seed if label == "1-1-1-0" and lr in (3.2e-3, 1e-2) else STUCK
    stored = [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                         acc(c.label, c.seq_len, c.lr, c.seed), 1.0, "live")
              for c in next_stage(plan, []).cells if c.seq_len == 256 and c.label in ("1-0-1-0", "1-1-1-0")]
    ran: list = []

    def fake_run_grid(spec, runner, out=None, have=frozenset()):
        now = [c for c in cells(spec) if c.key not in have]
        ran.extend(now)
        stored.extend(CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                                 acc(c.label, c.seq_len, c.lr, c.seed), 1.0, "live") for c in now)
    monkeypatch.setattr(cli, "run_grid", fake_run_grid)
    monkeypatch.setattr(cli, "stored_results", lambda plan, db, **kw: list(stored))
    runner = type("Runner", (), {"db_path": "unused", "where": "a test"})()
    line = cli.run_evidence(plan, runner, out=open(__import__("os").devnull, "w"))
    assert {(c.label, c.seq_len, c.seed) for c in ran} == {(label, 256, seed) for label in ("1-0-1-0", "1-1-1-0")
                                                          for seed in (2, 3, 4)} and len(ran) == 18
    assert line["outcome"] == NOT_HELD and not line["running"] and "the search stopped" in line["detail"]


def test_a_running_claim_says_which_verdicts_its_seeds_already_rule_out():
    """Sigmoid (the claimed winner) stays on the plateau in stage 1 while 1-1-1-1 and 1-1-1-7 learn: even with
    stage 3's five more seeds it could not end above either, and the confirmation tests one comparison only, so
    "held" is out of reach and the running verdict says so. (Against one learner alone, the confirmation's forty
    fresh seeds could still part them either way.)"""
    plan = plan_of("activation")
    learners = learns_at({"1-1-1-1", "1-1-1-7"})
    results = run(plan, learners, stages=1)
    found = evidence_verdict(plan, results)
    assert found.outcome == RUNNING and "can end only as" in found.why and "“held”" not in found.why
    assert HELD not in reachable_outcomes(plan, results) and NOT_HELD in reachable_outcomes(plan, results)
    whole = run_whole(plan, learners)
    assert evidence_verdict(plan, whole).outcome in reachable_outcomes(plan, results)
    one = run(plan, learns_at({"1-1-1-1"}), stages=1)
    assert HELD in reachable_outcomes(plan, one)
    stuck = run(plan, lambda *cell: STUCK, stages=1)           # everyone on the plateau so far: anything can happen
    assert reachable_outcomes(plan, stuck) == {HELD, NOT_HELD, INCONCLUSIVE, NOT_TESTED}
    assert "can end only as" not in evidence_verdict(plan, stuck).why
    lottery = run(plan, lambda label, T, lr, seed: LEARNED if seed == 0 else STUCK, stages=1)
    assert NOT_TESTED not in reachable_outcomes(plan, lottery)   # every entry has left once: never "neither"

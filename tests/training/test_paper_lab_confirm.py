"""The confirmation (confirm.py) on synthetic results: the question is read from seeds 0–9 and holds still, its
cells are forty fresh seeds at each entry's best rate, it decides either way (a lead short of the margin too) or
leaves the claim open for a second round, and stopping once the rest cannot matter gives what the whole
confirmation would."""
from hypothesis import given, settings
from hypothesis import strategies as st

from lcsm_core.paper_lab import CellResult
from lcsm_core.paper_lab.confirm import confirmed, margin_of, next_confirmation, question, wanted
from lcsm_core.paper_lab.evidence import ABOVE, BELOW, HELD, INCONCLUSIVE, MARGIN, NOT_HELD
from lcsm_core.paper_lab.search import (
    CONFIRM_ROUNDS,
    CONFIRM_SEEDS,
    EVIDENCE_PLANS,
    RUNNING,
    evidence_verdict,
    next_stage,
    plan_of,
    searches,
)

STUCK, LEARNED = 0.27, 0.85


def results_of(stage, acc) -> list:
    return [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                       acc(c.label, c.seq_len, c.lr, c.seed), 1.0, "live") for c in stage.cells]


def through_stage_three(plan, acc) -> list:
    results = []
    while (stage := next_stage(plan, results)) is not None and stage.name != "confirmation":
        results += results_of(stage, acc)
    return results


def lottery(wins: dict):
    """Accuracy by who learns which seed (at every rate)."""
    return lambda label, T, lr, seed: LEARNED + 0.001 * seed if seed in wins.get(label, ()) else STUCK


PLAN = plan_of("activation", budget_cpu_h=10)
# Sigmoid (the claimed winner) learns 2 of seeds 0–4, 1-1-1-1 four, then one of seed 5: open, leaning against
AGAINST = {"1-1-1-2": (0, 2), "1-1-1-1": (0, 1, 2, 3, 5)}


def test_the_question_is_the_open_comparison_that_leans_furthest_and_would_decide_alone():
    results = through_stage_three(PLAN, lottery(AGAINST))
    q = question(PLAN, results)
    assert (q.winners, q.others, q.lean, q.decides) == (("1-1-1-2",), ("1-1-1-1",), BELOW, NOT_HELD)
    best = {s.label: s.best for s in searches(PLAN, results)}
    assert q.rates == {"1-1-1-2": best["1-1-1-2"], "1-1-1-1": best["1-1-1-1"]}
    stage = next_stage(PLAN, results)
    assert stage.name == "confirmation" and len(stage.cells) == 2 * len(CONFIRM_SEEDS) == 80
    assert {c.seed for c in stage.cells} == set(CONFIRM_SEEDS) == set(range(10, 50))
    assert all(c.lr == q.rates[c.label] for c in stage.cells)
    half = results + results_of(stage, lottery({"1-1-1-1": range(10, 30)}))[:40]
    assert question(PLAN, half) == q                              # its own seeds do not move the question
    assert evidence_verdict(PLAN, results).outcome == RUNNING
    running = confirmed(PLAN, half)                              # half run, not stopped: its words say no stop
    assert (running.ran, running.left, running.stopped) == (40, 40, False) and "stopped" not in running.said()


def test_no_confirmation_where_no_single_comparison_could_decide_the_claim():
    """Sigmoid learns 3 of 10 seeds and nobody else any: every comparison is open and sigmoid ahead in each, so
    "held" would need all of them won; one comparison cannot do it."""
    results = through_stage_three(PLAN, lottery({"1-1-1-2": (0, 2, 4)}))
    assert question(PLAN, results) is None and next_stage(PLAN, results) is None
    assert evidence_verdict(PLAN, results).outcome == INCONCLUSIVE


def test_a_confirmation_can_decide_held_when_it_is_the_last_open_comparison():
    """Sigmoid learns every seed; 1-1-1-1 six of ten (open), every other none (below sigmoid): the question leans
    for the claim, and forty fresh seeds part them."""
    wins = {"1-1-1-2": range(50), "1-1-1-1": (0, 1, 3, 5, 7, 9, *range(10, 50, 3))}
    results = through_stage_three(PLAN, lottery(wins))
    q = question(PLAN, results)
    assert (q.others, q.lean, q.decides) == (("1-1-1-1",), ABOVE, HELD)
    while (stage := next_stage(PLAN, results)) is not None:
        results += results_of(stage, lottery(wins))
    found = evidence_verdict(PLAN, results)
    assert found.outcome == HELD and found.detail.startswith("decided on fresh seeds by the confirmation (40 fresh "
                                                             "seeds, 10–49")


def test_a_lead_short_of_the_margin_on_fresh_seeds_decides_did_not_hold():
    """10/40 vs 10/40: neither ahead, and the lead's interval (±0.19) lies below the margin."""
    wins = {**AGAINST, "1-1-1-2": (0, 2, *range(10, 50, 4)), "1-1-1-1": (*AGAINST["1-1-1-1"], *range(11, 50, 4))}
    results = run_all(wins)
    found = evidence_verdict(PLAN, results)
    assert found.outcome == NOT_HELD and found.confirmation.round == 1
    assert ("1-1-1-2 no better than 1-1-1-1 (10/40 vs 10/40 left the plateau: 1-1-1-2's lead is +0.00, with 95 % "
            f"confidence at most +0.19, short of the {MARGIN:g} a finding needs)") in found.detail
    assert not any(r.seed in CONFIRM_ROUNDS[1] for r in results)


def test_an_open_round_gets_a_second_and_an_undecided_one_says_how_far_apart_the_shares_could_be():
    """20/40 vs 14/40 in each round: the intervals overlap and the lead could still be a finding."""
    fresh = CONFIRM_ROUNDS[0] + CONFIRM_ROUNDS[1]
    wins = {"1-1-1-2": (0, 2, *(s for s in fresh if s % 2 == 0)),
            "1-1-1-1": (*AGAINST["1-1-1-1"], *(s for s in fresh if s % 20 in (1, 3, 5, 7, 9, 11, 13)))}
    results = run_all(wins)
    found = evidence_verdict(PLAN, results)
    assert found.outcome == INCONCLUSIVE and found.confirmation.round == 2
    assert [r.comparison.kind for r in found.confirmation.rounds()] == ["open", "open"]
    assert "the second confirmation (40 fresh seeds, 50–89" in found.detail
    assert "1-1-1-2 not told apart from 1-1-1-1 (20/40 vs 14/40" in found.why
    assert "1-1-1-2's lead over 1-1-1-1 in the share off the plateau: +0.15 (95 % interval " in found.why


def test_a_second_round_can_decide_and_its_words_come_first():
    """Round 1: 20/40 vs 14/40 (open); round 2: 10/40 vs 10/40 (short of the margin)."""
    first, second = CONFIRM_ROUNDS
    wins = {"1-1-1-2": (0, 2, *(s for s in first if s % 2 == 0), *second[::4]),
            "1-1-1-1": (*AGAINST["1-1-1-1"], *(s for s in first if s % 20 in (1, 3, 5, 7, 9, 11, 13)),
                        *second[1::4])}
    found = evidence_verdict(PLAN, run_all(wins))
    assert found.outcome == NOT_HELD and found.confirmation.round == 2
    assert found.detail.startswith("decided on fresh seeds by the second confirmation (40 fresh seeds, 50–89")
    assert "(10/40 vs 10/40 left the plateau" in found.detail
    assert "; before it, the confirmation (40 fresh seeds, 10–49" in found.detail


def test_the_margin_reads_every_round_but_oscillations_first():
    """Oscillation's first round was read before the margin joined the rule: it keeps its reading."""
    assert margin_of(EVIDENCE_PLANS["oscillation"], 1) is None and margin_of(EVIDENCE_PLANS["oscillation"], 2) == MARGIN
    assert margin_of(EVIDENCE_PLANS["tau"], 1) == margin_of(PLAN, 2) == MARGIN


def run_all(wins) -> list:
    results = through_stage_three(PLAN, lottery(wins))
    while (stage := next_stage(PLAN, results)) is not None:
        results += results_of(stage, lottery(wins))
    return results


@settings(max_examples=12, deadline=None)
@given(st.lists(st.booleans(), min_size=80, max_size=80), st.lists(st.booleans(), min_size=80, max_size=80))
def test_stopping_the_confirmation_early_gives_the_whole_confirmations_verdict(sigmoid, other):
    fresh = CONFIRM_ROUNDS[0] + CONFIRM_ROUNDS[1]
    wins = {"1-1-1-2": (0, 2, *(s for s, x in zip(fresh, sigmoid) if x)),
            "1-1-1-1": (0, 1, 2, 3, 5, *(s for s, x in zip(fresh, other) if x))}
    acc = lottery(wins)
    results = through_stage_three(PLAN, acc)
    whole = list(results)
    while (stage := next_confirmation(PLAN, whole, settle=False)) is not None:   # every run of each round it needs
        whole += results_of(stage, acc)
    while (stage := next_stage(PLAN, results)) is not None:      # four seeds of each a round, as the CLI runs it
        first = sorted({c.seed for c in stage.cells})[:4]
        results += [r for r in results_of(stage, acc) if r.seed in first]
    early, full = confirmed(PLAN, results), confirmed(PLAN, whole)
    assert early.outcome == full.outcome and evidence_verdict(PLAN, results).outcome == full.outcome
    assert early.round == full.round and full.left == 0
    assert early.ran + early.left == 80 and (early.left == 0) == (early.ran == 80) and early.stopped == bool(early.left)
    assert len(wanted(PLAN, early.question, early.round)) == 80

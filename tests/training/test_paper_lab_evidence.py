"""The evidence statistic and rule on synthetic seeds (no training): bimodal seeds (plateau vs learned), shares with
Wilson intervals, too few seeds, all-learned arms compared by accuracy, and the claim's outcome from comparisons."""
import pytest

from lcsm_core.paper_lab.evidence import (
    ABOVE,
    BELOW,
    EQUAL,
    HELD,
    INCONCLUSIVE,
    NEITHER,
    NOT_HELD,
    NOT_TESTED,
    OPEN,
    Arm,
    combined,
    compare,
    outcome_of,
    plateau_threshold,
    wilson,
    withheld,
)

T = plateau_threshold(4)                     # 0.35
STUCK, LEARNED = 0.27, 0.8


def arm(name, *values):
    return Arm(name, tuple(values), T)


def test_threshold_and_wilson():
    assert T == pytest.approx(0.35)
    lo, hi = wilson(5, 5)
    assert hi == 1.0 and 0.56 < lo < 0.57
    lo, hi = wilson(0, 5)
    assert lo == 0.0 and 0.43 < hi < 0.44
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(3, 6)
    assert lo < 0.5 < hi and hi - 0.5 == pytest.approx(0.5 - lo)


def test_bimodal_seeds_read_as_a_share_not_a_mean():
    a = arm("a", STUCK, LEARNED, LEARNED, 0.9, STUCK)
    assert a.left == 3 and a.share == 0.6 and a.median == LEARNED
    assert "3/5 seeds left the plateau" in str(a)


def test_all_learned_against_all_stuck_separates_at_five_seeds():
    win, lose = arm("a", *[LEARNED] * 5), arm("b", *[STUCK] * 5)
    assert compare(win, lose).kind == ABOVE
    assert compare(lose, win).kind == BELOW
    assert compare(arm("a", *[LEARNED] * 4), arm("b", *[STUCK] * 4)).kind == OPEN     # 4 seeds: too few
    assert "≥ 5" in compare(arm("a", *[LEARNED] * 4), arm("b", *[STUCK] * 4)).why


def test_one_stuck_seed_of_five_keeps_it_open_but_more_seeds_decide():
    """4/5 vs 0/5: the intervals overlap; 9/10 vs 0/10 they do not — more seeds narrow a share's interval,
    where a min–max range would only widen."""
    assert compare(arm("a", STUCK, *[LEARNED] * 4), arm("b", *[STUCK] * 5)).kind == OPEN
    assert compare(arm("a", STUCK, *[LEARNED] * 9), arm("b", *[STUCK] * 10)).kind == ABOVE


def test_both_learned_compared_by_accuracy():
    high, low = arm("a", 0.95, 0.93, 0.96, 0.94, 0.95), arm("b", 0.7, 0.75, 0.72, 0.8, 0.78)
    assert compare(high, low).kind == ABOVE and "every seed left" in compare(high, low).why
    assert compare(low, high).kind == BELOW
    same = arm("c", 0.94, 0.95, 0.93, 0.96, 0.95)
    assert compare(same, high).kind == EQUAL and compare(same, high).sign == -1
    wide = arm("d", 0.6, 0.97, 0.7, 0.99, 0.65)
    assert compare(wide, high).kind == OPEN


def test_neither_left_is_not_tested():
    assert compare(arm("a", *[STUCK] * 5), arm("b", *[0.26] * 5)).kind == NEITHER


def test_outcome_of_comparisons():
    up = compare(arm("a", *[LEARNED] * 5), arm("b", *[STUCK] * 5))
    down = compare(arm("a", *[STUCK] * 5), arm("b", *[LEARNED] * 5))
    open_ = compare(arm("a", STUCK, *[LEARNED] * 4), arm("b", *[STUCK] * 5))
    neither = compare(arm("a", *[STUCK] * 5), arm("b", *[STUCK] * 5))
    assert outcome_of([up, up]) == HELD
    assert outcome_of([up, down]) == NOT_HELD
    assert outcome_of([up, open_]) == INCONCLUSIVE
    assert outcome_of([up, neither]) == NOT_TESTED
    assert outcome_of([up, withheld(up.winner, up.other, "best rate at an edge")]) == NOT_TESTED
    assert outcome_of([neither, down]) == NOT_HELD                # a loss is a loss whatever else is open
    assert outcome_of([]) == NOT_TESTED
    assert combined([HELD, HELD]) == HELD and combined([HELD, NOT_HELD]) == INCONCLUSIVE


def test_the_lead_interval_is_newcombes_hybrid_score_interval():
    """Newcombe (1998), Statistics in Medicine 17:873, Table II, example (a): 56/70 vs 48/80, method 10:
    0.0524 to 0.3339 around a difference of 0.2; an interval around a lead of nothing straddles 0."""
    from lcsm_core.paper_lab.evidence import lead_interval
    lead, low, high = lead_interval(56, 70, 48, 80)
    assert (round(lead, 4), round(low, 4), round(high, 4)) == (0.2, 0.0524, 0.3339)
    lead, low, high = lead_interval(8, 32, 8, 32)
    assert lead == 0 and low == -high and 0.15 < high < 0.3


def test_a_lead_short_of_the_margin_goes_against_the_claim_only_where_asked():
    """10/40 vs 10/40: the lead's upper bound (+0.19) is below the margin; 20/40 vs 14/40: it is not (+0.35).
    Without `lead_margin` (stages 1–3) the first stays open; neither off the plateau stays "neither"."""
    from lcsm_core.paper_lab.evidence import MARGIN

    def shares(name, left, n):
        return arm(name, *[LEARNED] * left, *[STUCK] * (n - left))
    even = compare(shares("a", 10, 40), shares("b", 10, 40), lead_margin=MARGIN)
    assert even.kind == EQUAL and even.sign == -1 and outcome_of([even]) == NOT_HELD
    assert "a's lead is +0.00, with 95 % confidence at most +0.19, short of the 0.25 a finding needs" in even.why
    assert compare(shares("a", 10, 40), shares("b", 10, 40)).kind == OPEN
    assert compare(shares("a", 20, 40), shares("b", 14, 40), lead_margin=MARGIN).kind == OPEN
    assert compare(shares("a", 0, 40), shares("b", 0, 40), lead_margin=MARGIN).kind == NEITHER
    assert compare(shares("a", 2, 4), shares("b", 2, 4), lead_margin=MARGIN).kind == OPEN    # too few seeds

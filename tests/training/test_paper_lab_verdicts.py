"""The paper lab's verdicts on synthetic results (no training): each claim reads seed ranges and comes out held,
did not hold or inconclusive; it encodes the paper's per-length findings (Fig. 4: at 256 only 1-0-1-0); fewer
than 3 seeds decide nothing; the learning-rate sweep says when a cell's best rate is at its edge."""
import pytest

from lcsm_core.paper_lab import ABLATIONS, CellResult, GridSpec, cells, verdict
from lcsm_core.paper_lab.ablations import HELD, INCONCLUSIVE, NOT_HELD
from lcsm_core.paper_lab.results import lr_edges, lr_note, spreads
from lcsm_core.paper_lab.spread import Spread, above, group

SEEDS = (0, 1, 2)
# Who the paper says comes out on top, per ablation (at every length of these grids)
WINNERS = {"parameterization": ("0 as DSS", "0 as selective SSM"), "data_dependence": ("1-0-1-0", "1-1-1-0"),
           "oscillation": ("1-11-1-0",), "activation": ("1-1-1-2",), "tau": ("τ = 16", "τ = 32", "τ = 64")}


def grid_results(spec: GridSpec, acc) -> list[CellResult]:
    """A result for every cell, accuracy acc(label, seq_len, seed) (the same at every learning rate)."""
    return [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                       acc(c.label, c.seq_len, c.seed), 1.0, "live") for c in cells(spec)]


def spec_of(ablation: str, seeds=SEEDS, seq_lens=(32, 64)) -> GridSpec:
    return GridSpec(ablation=ablation, seq_lens=seq_lens, seeds=seeds, lrs=(1e-2,))


def clear_win(winners):
    return lambda label, T, seed: (0.85 if label in winners else 0.3) + 0.02 * seed


def clear_loss(winners):
    return lambda label, T, seed: (0.2 if label in winners else 0.6) + 0.02 * seed


def overlapping(winners):
    """The winners' seeds spread 0.3…0.9, the others' 0.4…0.6: the winners' mean is higher, their range overlaps."""
    return lambda label, T, seed: (0.3 + 0.3 * seed) if label in winners else 0.4 + 0.1 * seed


@pytest.mark.parametrize("ablation", list(ABLATIONS))
@pytest.mark.parametrize("shape,outcome", [(clear_win, HELD), (clear_loss, NOT_HELD), (overlapping, INCONCLUSIVE)])
def test_each_claim_has_three_outcomes(ablation, shape, outcome):
    spec = spec_of(ablation)
    found = verdict(spec, grid_results(spec, shape(WINNERS[ablation])))
    assert found.outcome == outcome, found.detail
    assert found.held == (outcome == HELD) and found.seeds == 3
    assert "[" in found.detail and "–" in found.detail                 # the spread is shown, not a bare mean


@pytest.mark.parametrize("ablation", list(ABLATIONS))
def test_fewer_than_three_seeds_decide_nothing(ablation):
    spec = spec_of(ablation, seeds=(0, 1))
    found = verdict(spec, grid_results(spec, clear_win(WINNERS[ablation])))
    assert found.outcome == INCONCLUSIVE and "≥ 3" in found.detail and "would read 'held'" in found.detail


def test_data_dependence_encodes_the_papers_256_finding():
    """Fig. 4: 1-0-1-0 and 1-1-1-0 recall well up to 128, at 256 only 1-0-1-0 converged."""
    spec = spec_of("data_dependence", seq_lens=(32, 128, 256))

    def paper_like(label, T, seed):
        good = ("1-0-1-0",) if T == 256 else ("1-0-1-0", "1-1-1-0")
        return (0.9 if label in good else 0.3) + 0.01 * seed
    found = verdict(spec, grid_results(spec, paper_like))
    assert found.outcome == HELD, found.detail
    assert "T=256: (paper: only 1-0-1-0)" in found.detail

    def both_good_at_256(label, T, seed):           # what the old check demanded: it contradicts the paper
        return (0.9 if label in ("1-0-1-0", "1-1-1-0") else 0.3) + 0.01 * seed
    assert verdict(spec, grid_results(spec, both_good_at_256)).outcome == INCONCLUSIVE

    def one_good_code_beaten_at_128(label, T, seed):
        if label == "1-1-1-0" and T == 128:
            return 0.1 + 0.01 * seed                # below every other code's range
        return paper_like(label, T, seed)
    found = verdict(spec, grid_results(spec, one_good_code_beaten_at_128))
    assert found.outcome == NOT_HELD and "T=128" in found.detail


def test_the_two_readings_of_code_0_are_named_and_can_disagree():
    spec = spec_of("parameterization")
    level = {"0 as DSS": 0.2, "1-1-1-0": 0.5, "0 as selective SSM": 0.9}
    found = verdict(spec, grid_results(spec, lambda label, T, seed: level[label] + 0.01 * seed))
    assert found.outcome == INCONCLUSIVE and "disagree" in found.detail
    assert [(name.split(" (")[0], outcome) for name, outcome, _ in found.readings] == [
        ("DSS bank", NOT_HELD), ("Mamba-style selective SSM", HELD)]
    assert {c.config.model.variant for c in cells(spec) if c.label == "0 as selective SSM"} == {"mamba"}
    assert {c.config.model.code for c in cells(spec) if c.label == "0 as DSS"} == {"0"}


def test_spreads_keep_the_best_rate_per_seed():
    spec = GridSpec(ablation="tau", seq_lens=(32,), seeds=SEEDS, lrs=(1e-3, 3e-3, 1e-2))
    results = grid_results(spec, lambda label, T, seed: 0.5)
    results = [r if r.lr != 3e-3 else CellResult(r.label, r.code, r.tau, r.seq_len, r.lr, r.seed, r.status, r.steps,
                                                  0.6 + 0.1 * r.seed, r.wall_s, r.source) for r in results]
    s = spreads(spec, results)["τ = 1"][32]
    assert s.values == pytest.approx((0.6, 0.7, 0.8)) and (s.low, s.high) == pytest.approx((0.6, 0.8))
    assert lr_edges(spec, results) == [] and lr_note(spec, results) == ""


def test_the_sweep_says_when_the_best_rate_is_at_its_edge():
    spec = GridSpec(ablation="parameterization", seq_lens=(32,), seeds=SEEDS, lrs=(1e-3, 3e-3, 1e-2))
    results = grid_results(spec, lambda label, T, seed: 0.5)
    results = [r if r.lr != 1e-2 else CellResult(r.label, r.code, r.tau, r.seq_len, r.lr, r.seed, r.status, r.steps,
                                                  0.9, r.wall_s, r.source) for r in results]
    assert len(lr_edges(spec, results)) == 9
    assert "edge of the sweep in 9 of 9" in lr_note(spec, results) and "highest 0.01" in lr_note(spec, results)
    assert "cannot show" in lr_note(GridSpec(lrs=(3e-3, 1e-2)), results)


def test_ranges_compare_only_when_they_do_not_overlap():
    assert above(Spread((0.8, 0.9)), Spread((0.1, 0.7))) == 1
    assert above(Spread((0.1, 0.7)), Spread((0.8, 0.9))) == -1
    assert above(Spread((0.1, 0.9)), Spread((0.5,))) == 0
    assert group([Spread((0.2, 0.4)), Spread((0.6, 0.8))]).values == pytest.approx((0.4, 0.6))
    assert str(Spread((0.2, 0.4, 0.3))) == "0.30 [0.20–0.40]"


def test_ranges_closer_than_one_evaluations_error_are_not_told_apart():
    """The first 3-seed parameterization grid: 1-1-1-0's lowest seed 0.2725 above the DSS's highest 0.2705 — two
    answers in 1024, both on the plateau — once read "did not hold"."""
    assert above(Spread((0.7637, 0.2754, 0.2725)), Spread((0.2598, 0.2598, 0.2705))) == 0
    assert above(Spread((0.7637, 0.2754, 0.2725)), Spread((0.1436, 0.1592, 0.1846))) == 1
    spec = spec_of("activation", seq_lens=(32,))
    close = verdict(spec, grid_results(spec, lambda label, T, seed: (0.29 if label == "1-1-1-2" else 0.27)
                                       + 0.001 * seed))                   # 0.018 apart: within one test set's error
    assert close.outcome == INCONCLUSIVE, close.detail


def test_a_verdict_is_one_of_three_outcomes():
    from lcsm_core.paper_lab.ablations import Verdict
    assert Verdict(True, "x").outcome == HELD and Verdict(False, "x").outcome == NOT_HELD   # the older bool form
    assert not Verdict(INCONCLUSIVE, "x").held
    with pytest.raises(ValueError, match="inconclusive"):
        Verdict("maybe", "x")

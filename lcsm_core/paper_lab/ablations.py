"""The ablations of LCSM §3.2 (MQAR), each with the paper's claim as a check on measured accuracies.

An ablation is a list of entries (label, model code, τ) and a claim. A claim reads the grid's
accuracy table — `acc[label][seq_len]`, the best test accuracy over the learning-rate sweep, averaged
over seeds — and says whether the paper's finding held, and why, in numbers.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Accuracy = dict[str, dict[int, float]]        # label -> sequence length -> accuracy
RECALLS = 0.9                                 # "recalled well": the bar the claims use
CHANCE_MARGIN = 0.2                           # "near chance": below this test accuracy


@dataclass(frozen=True)
class Verdict:
    held: bool
    detail: str                               # the numbers behind the verdict


@dataclass(frozen=True)
class Ablation:
    name: str
    title: str
    question: str
    entries: tuple                            # (label, model code, tau)
    paper_finding: str                        # what the paper reports, in our words
    claim: str                                # the part of it a grid can check
    check: Callable[[Accuracy], Verdict]

    @property
    def labels(self) -> list[str]:
        return [label for label, _, _ in self.entries]


def _codes(codes, tau=16.0):
    return tuple((code, code, tau) for code in codes)


def _fmt(acc: Accuracy, label: str) -> str:
    return f"{label}: " + ", ".join(f"T={T} {a:.2f}" for T, a in sorted(acc[label].items()))


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


def _check_parameterization(acc: Accuracy) -> Verdict:
    ssm, naive = _mean(acc["0"].values()), _mean(acc["1-1-1-0"].values())
    return Verdict(ssm > naive, f"mean over lengths: SSM \"0\" {ssm:.2f}, naive 1-1-1-0 {naive:.2f}")


def _check_data_dependence(acc: Accuracy) -> Verdict:
    good = ("1-0-1-0", "1-1-1-0")
    others = [label for label in acc if label not in good]
    lengths = sorted(next(iter(acc.values())))
    rows = []
    held = True
    for T in lengths:
        best_other = max(others, key=lambda label: acc[label][T])
        worst_good = min(good, key=lambda label: acc[label][T])
        held &= acc[worst_good][T] > acc[best_other][T]
        rows.append(f"T={T}: worse of 1-0-1/1-1-1 {acc[worst_good][T]:.2f} vs best other "
                    f"{best_other} {acc[best_other][T]:.2f}")
    return Verdict(held, "; ".join(rows))


def _check_best(winner: str, what: str) -> Callable[[Accuracy], Verdict]:
    def check(acc: Accuracy) -> Verdict:
        means = {label: _mean(row.values()) for label, row in acc.items()}
        best = max(means, key=means.get)
        runner_up = max((label for label in means if label != winner), key=means.get)
        return Verdict(best == winner, f"{what} {winner} {means[winner]:.2f} (mean over lengths); best other "
                                       f"{runner_up} {means[runner_up]:.2f}")
    return check


def _check_activation(acc: Accuracy) -> Verdict:
    none = _mean(acc["1-1-1-0"].values())
    with_act = _mean(_mean(row.values()) for label, row in acc.items() if label != "1-1-1-0")
    best = _check_best("1-1-1-2", "sigmoid")(acc)
    return Verdict(with_act > none and best.held,
                   f"no activation {none:.2f}, mean with an activation {with_act:.2f}; {best.detail}")


def _check_tau(acc: Accuracy) -> Verdict:
    labels = list(acc)                         # in order of increasing τ
    means = [_mean(acc[label].values()) for label in labels]
    half = len(means) // 2
    small, large = _mean(means[:half]), _mean(means[-half:])
    return Verdict(large > small,
                   f"mean accuracy of the {half} smallest τ {small:.2f}, of the {half} largest {large:.2f}")


ABLATIONS = {a.name: a for a in (
    Ablation("parameterization", "Parameterization (Fig. 3)",
             "SSM parameterization (code 0) or the naive one (1-1-1-0)?", _codes(["0", "1-1-1-0"]),
             "The naive parameterization was inferior on MQAR (Fig. 3).",
             "the SSM parameterization \"0\" beats the naive 1-1-1-0 (mean over lengths)",
             _check_parameterization),
    Ablation("data_dependence", "Data dependence (Fig. 4)",
             "Which of e, o, s must depend on the input?",
             _codes([f"{e}-{o}-{s}-0" for e in (0, 1) for o in (0, 1) for s in (0, 1)]),
             "Most codes did poorly; only 1-0-1 and 1-1-1 recalled well up to length 128, and at 256 only "
             "1-0-1-0 converged (Fig. 4).",
             "1-0-1-0 and 1-1-1-0 both beat every other code at every length",
             _check_data_dependence),
    Ablation("oscillation", "Oscillation types (Fig. 5)", "How should the oscillation state be built?",
             _codes([f"1-{o}-1-0" for o in range(12)]),
             "On MQAR the complex oscillation 1-11-1-0 stood out, well ahead of the others (Fig. 5).",
             "the complex oscillation 1-11-1-0 has the best mean accuracy",
             _check_best("1-11-1-0", "complex")),
    Ablation("activation", "Activations (Fig. 6)", "Which activation for the expand and shrink states?",
             _codes([f"1-1-1-{a}" for a in range(8)]),
             "Activations improved accuracy, most at longer sequences; sigmoid (1-1-1-2) was the best (Fig. 6).",
             "codes with an activation beat 1-1-1-0 on average, and sigmoid 1-1-1-2 is the best",
             _check_activation),
    Ablation("tau", "τ of the data-dependent oscillation (Fig. 7)",
             "How fast may sigmoid(Wx)^(1/τ) forget?",
             tuple((f"τ = {t:g}", "1-1-1-0", float(t)) for t in (1, 2, 4, 8, 16, 32, 64)),
             "A larger τ (an oscillation nearer 1, slower forgetting) gave better MQAR accuracy (Fig. 7).",
             "the larger half of the τ values beats the smaller half on average",
             _check_tau),
)}

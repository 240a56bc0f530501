"""The ablations of LCSM §3.2 (MQAR), each with the paper's claim as a check on measured accuracies.

An ablation is a list of entries (label, model, τ) and a claim. A model is an e-o-s-a code, or
"variant:<name>" for a named layer (the parameterization test's second reading of code "0", a Mamba-style
selective SSM). A claim reads the grid's spreads — `spreads[label][seq_len]`, per seed the best test
accuracy over the learning-rate sweep (spread.py) — and says in numbers whether the paper's finding held,
did not hold, or whether this grid cannot tell (seed ranges overlap or lie within spread.SEPARATION, or
fewer than 3 seeds).

Each claim encodes what the paper reports *per length*: e.g. data dependence (Fig. 4) says 1-0-1-0 and
1-1-1-0 recall well up to length 128 but only 1-0-1-0 converges at 256, so at 256 the check expects
1-0-1-0 above every other code, 1-1-1-0 included. (§3.2 prints the first two as three-field codes, "1-0-1
and 1-1-1"; a code reads e-o-s-a, four fields, and this test holds the activation at 0.)
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .spread import MIN_SEEDS, Spread, Spreads, above, group

HELD, NOT_HELD, INCONCLUSIVE = "held", "did not hold", "inconclusive"
LONG_FROM = 129                               # Fig. 4: "up to 128" recall well; at 256 only 1-0-1-0 converged
VARIANT_PREFIX = "variant:"                   # an entry whose model is a named layer, not an e-o-s-a code
SELECTIVE_SSM = VARIANT_PREFIX + "mamba"


@dataclass(frozen=True)
class Verdict:
    outcome: str                              # HELD, NOT_HELD or INCONCLUSIVE
    detail: str                               # the numbers behind the verdict
    seeds: int = 0                            # the fewest seeds of any cell the verdict read
    readings: tuple = ()                      # (reading, outcome, detail) when a claim is tested more than one way

    def __post_init__(self):
        if isinstance(self.outcome, bool):    # Verdict(held: bool, detail), as callers wrote it before "inconclusive"
            object.__setattr__(self, "outcome", HELD if self.outcome else NOT_HELD)
        if self.outcome not in (HELD, NOT_HELD, INCONCLUSIVE):
            raise ValueError(f"a verdict is {HELD!r}, {NOT_HELD!r} or {INCONCLUSIVE!r}, got {self.outcome!r}")

    @property
    def held(self) -> bool:
        return self.outcome == HELD


@dataclass(frozen=True)
class Ablation:
    name: str
    title: str
    question: str
    entries: tuple                            # (label, model code or "variant:<name>", tau)
    paper_finding: str                        # what the paper reports, in our words
    claim: str                                # the part of it a grid can check
    check: Callable[[Spreads], Verdict]

    @property
    def labels(self) -> list[str]:
        return [label for label, _, _ in self.entries]

    def judge(self, spreads: Spreads) -> Verdict:
        """The claim on these spreads; never decided either way on fewer than MIN_SEEDS seeds per cell."""
        found = self.check(spreads)
        seeds = min(s.n for row in spreads.values() for s in row.values())
        if seeds < MIN_SEEDS and found.outcome != INCONCLUSIVE:
            return Verdict(INCONCLUSIVE, f"{seeds} seed(s) per cell, a verdict needs ≥ {MIN_SEEDS} (these numbers "
                                         f"alone would read '{found.outcome}'): {found.detail}", seeds, found.readings)
        return Verdict(found.outcome, found.detail, seeds, found.readings)


def entry_meaning(code: str) -> str:
    """What an entry's model is, in words (an e-o-s-a code's own description, or the named layer's)."""
    if code == SELECTIVE_SSM:
        return ("SSM parameterization read as Mamba: a selective SSM whose Δ_t, B_t and C_t are computed from the "
                "input (A_t = exp(Δ_t A))")
    from ..codes import parse_code
    return parse_code(code).describe()


def outcome_of(signs) -> str:
    """All +1: held; any −1: did not hold; otherwise (some overlap) inconclusive."""
    signs = list(signs)
    if signs and all(s > 0 for s in signs):
        return HELD
    return NOT_HELD if any(s < 0 for s in signs) else INCONCLUSIVE


def _beats_all(row: dict[str, Spread], winner: str, others) -> tuple[int, str]:
    """Does `winner`'s range lie above every other's? (+1 yes, −1 one lies above it, 0 overlap), in words."""
    signs = {other: above(row[winner], row[other]) for other in others}
    closest = max(others, key=lambda other: row[other].high)
    sign = 1 if all(s > 0 for s in signs.values()) else (-1 if any(s < 0 for s in signs.values()) else 0)
    return sign, f"{winner} {row[winner]} vs best other {closest} {row[closest]}"


def _per_length(spreads: Spreads, judge_length: Callable[[int], tuple[int, str]]) -> Verdict:
    lengths = sorted(next(iter(spreads.values())))
    judged = [(T, *judge_length(T)) for T in lengths]
    return Verdict(outcome_of(sign for _, sign, _ in judged),
                   "; ".join(f"T={T}: {words}" for T, _, words in judged))


def _codes(codes, tau=16.0):
    return tuple((code, code, tau) for code in codes)


# --- the claims ---------------------------------------------------------------------------------------
PARAMETERIZATION_READINGS = (("0 as DSS", "DSS bank (Δ, B, C fixed per channel)"),
                             ("0 as selective SSM", "Mamba-style selective SSM (Δ_t, B_t, C_t from the input)"))


def _check_parameterization(spreads: Spreads) -> Verdict:
    readings = []
    for label, name in PARAMETERIZATION_READINGS:
        found = _per_length(spreads, lambda T, label=label: _beats_all(spreads_at(spreads, T), label, ["1-1-1-0"]))
        readings.append((name, found.outcome, found.detail))
    outcomes = {outcome for _, outcome, _ in readings}
    detail = " | ".join(f"“0” read as {name}: {outcome} ({detail})" for name, outcome, detail in readings)
    if len(outcomes) == 1:
        return Verdict(outcomes.pop(), detail, readings=tuple(readings))
    return Verdict(INCONCLUSIVE, f"the two readings of “0” disagree: {detail}", readings=tuple(readings))


def spreads_at(spreads: Spreads, T: int) -> dict[str, Spread]:
    return {label: row[T] for label, row in spreads.items()}


def _check_data_dependence(spreads: Spreads) -> Verdict:
    good = ("1-0-1-0", "1-1-1-0")

    def at(T):
        row = spreads_at(spreads, T)
        if T >= LONG_FROM:                   # the paper: at 256 only 1-0-1-0 converged (1-1-1-0 failed too)
            sign, words = _beats_all(row, "1-0-1-0", [label for label in row if label != "1-0-1-0"])
            return sign, f"(paper: only 1-0-1-0) {words}"
        others = [label for label in row if label not in good]
        judged = [_beats_all(row, winner, others) for winner in good]
        signs = [s for s, _ in judged]
        sign = 1 if all(s > 0 for s in signs) else (-1 if any(s < 0 for s in signs) else 0)
        return sign, " and ".join(words for _, words in judged)
    return _per_length(spreads, at)


def _check_best(winner: str) -> Callable[[Spreads], Verdict]:
    def check(spreads: Spreads) -> Verdict:
        return _per_length(spreads, lambda T: _beats_all(spreads_at(spreads, T), winner,
                                                         [label for label in spreads if label != winner]))
    return check


def _check_tau(spreads: Spreads) -> Verdict:
    labels = list(spreads)                   # in order of increasing τ
    half = len(labels) // 2

    def at(T):
        small = group([spreads[label][T] for label in labels[:half]])
        large = group([spreads[label][T] for label in labels[-half:]])
        return above(large, small), f"the {half} largest τ {large} vs the {half} smallest {small}"
    return _per_length(spreads, at)


ABLATIONS = {a.name: a for a in (
    Ablation("parameterization", "Parameterization (Fig. 3)",
             "SSM parameterization (code 0) or the naive one (1-1-1-0)?",
             (("0 as DSS", "0", 16.0), ("0 as selective SSM", SELECTIVE_SSM, 16.0), ("1-1-1-0", "1-1-1-0", 16.0)),
             "The naive parameterization was inferior on MQAR (Fig. 3). The paper's code 0 covers 'SSM "
             "parameterization methods like Mamba, and S4'; it does not say which it trained.",
             "the SSM parameterization \"0\" beats the naive 1-1-1-0 at every length, under both readings of "
             "\"0\" (a DSS bank; a Mamba-style selective SSM)",
             _check_parameterization),
    Ablation("data_dependence", "Data dependence (Fig. 4)",
             "Which of e, o, s must depend on the input?",
             _codes([f"{e}-{o}-{s}-0" for e in (0, 1) for o in (0, 1) for s in (0, 1)]),
             "Most codes did poorly; only 1-0-1-0 and 1-1-1-0 (printed as “1-0-1 and 1-1-1”: e-o-s codes without "
             "the activation field) recalled well up to length 128, and at 256 only 1-0-1-0 converged (Fig. 4).",
             "up to length 128, 1-0-1-0 and 1-1-1-0 each beat every other code; from 256 on, 1-0-1-0 beats every "
             "other code, 1-1-1-0 included",
             _check_data_dependence),
    Ablation("oscillation", "Oscillation types (Fig. 5)", "How should the oscillation state be built?",
             _codes([f"1-{o}-1-0" for o in range(12)]),
             "On MQAR the complex oscillation 1-11-1-0 stood out, well ahead of the others (Fig. 5).",
             "the complex oscillation 1-11-1-0 beats every other oscillation at every length",
             _check_best("1-11-1-0")),
    Ablation("activation", "Activations (Fig. 6)", "Which activation for the expand and shrink states?",
             _codes([f"1-1-1-{a}" for a in range(8)]),
             "Activations improved accuracy, most at longer sequences; sigmoid (1-1-1-2) was the best (Fig. 6).",
             "sigmoid 1-1-1-2 beats no activation (1-1-1-0) and every other activation at every length",
             _check_best("1-1-1-2")),
    Ablation("tau", "τ of the data-dependent oscillation (Fig. 7)",
             "How fast may sigmoid(Wx)^(1/τ) forget?",
             tuple((f"τ = {t:g}", "1-1-1-0", float(t)) for t in (1, 2, 4, 8, 16, 32, 64)),
             "A larger τ (an oscillation nearer 1, slower forgetting) gave better MQAR accuracy (Fig. 7).",
             "the larger half of the τ values beats the smaller half at every length (per seed, the mean over "
             "each half)",
             _check_tau),
)}

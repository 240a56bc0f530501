"""The statistic an evidence verdict rests on, and the rule that turns it into held / did not hold / inconclusive /
not tested at this scale. Pure: numbers in, words out (no training, no store).

MQAR seeds are bimodal: a run either stays on the plateau (test accuracy ≈ 1/pairs, a value guessed among the
pairs seen: 0.25 with 4 pairs) or leaves it (0.6–0.96 at the shipped scale). A mean or a min–max range over such
seeds only widens as seeds are added. So an arm (one entry, or a pooled group of entries, at one length) is read as

- the share of its seeds that LEFT THE PLATEAU: best test accuracy above 1/pairs + LEFT_BY, with its 95 % Wilson
  interval (an interval for a proportion that stays inside [0, 1] and is honest at a handful of trials), and
- its median best accuracy (shown; and, when every seed of two arms left the plateau, their accuracies are
  compared directly: no plateau lottery is left to hide a difference).

The rule, for the claim "arm A beats arm B" at one length:

- A above (+1): A's Wilson interval lies wholly above B's; or every seed of both left the plateau and A's lowest
  seed lies above B's highest by more than SEPARATION;
- B above (−1): the same the other way round;
- equal: every seed of both left the plateau and their medians lie within SEPARATION (A does not beat B);
- neither: no seed of either left the plateau (this budget does not reach the task: the claim is not tested);
- short (read only where the caller asks for it: a confirmation's fresh seeds, confirm.py): A's lead over B in
  the share that left the plateau is, with 95 % confidence, below MARGIN (the upper end of its Newcombe interval,
  `lead_interval`): A is not ahead by as much as a finding needs. It counts as "equal" does (A does not beat B);
- open (0): anything else — including fewer than MIN_SEEDS seeds in either arm.

A claim is several such comparisons (the winner against each other entry, at each length). It *held* when every
comparison is "A above"; it *did not hold* when any is "B above" or "equal"; it is *not tested at this scale* when
any is "neither" or was withheld (the learning-rate search's best rate at an edge, the budget run out: search.py);
otherwise it is *inconclusive* (more seeds could decide it).
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

HELD, NOT_HELD, INCONCLUSIVE, NOT_TESTED = "held", "did not hold", "inconclusive", "not tested at this scale"
OUTCOMES = (HELD, NOT_HELD, INCONCLUSIVE, NOT_TESTED)
LEFT_BY = 0.1                 # "left the plateau": best accuracy above 1/pairs by more than this
MIN_SEEDS = 5                 # an arm with fewer seeds decides no comparison
Z95 = 1.959964                # the normal quantile of a two-sided 95 % interval
# Accuracies closer than this are not told apart: two standard errors of one evaluation on 1024 test answers
# (256 examples × 4 queries) are 2·√(p(1−p)/1024) ≤ 0.031 (spread.SEPARATION, the same number).
SEPARATION = 0.03
# The smallest lead in the share of seeds off the plateau that counts as a finding. The paper's claims rest on
# figures of a few runs per entry ("stood out, well ahead", "gave better accuracy"); a lead a handful of runs makes
# visible is a large one, and a quarter of the seeds is the least of those. It is also about what the confirmation
# can rule out: at shares near 0.3, forty seeds a side give the lead an interval of about ±0.2.
MARGIN = 0.25

ABOVE, BELOW, EQUAL, NEITHER, OPEN, WITHHELD = "above", "below", "equal", "neither", "open", "withheld"


def plateau_threshold(kv_pairs: int) -> float:
    """The accuracy a seed must beat to count as having left MQAR's plateau (1/pairs + LEFT_BY)."""
    return 1 / kv_pairs + LEFT_BY


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (successes of trials); (0, 1) for no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def lead_interval(a_left: int, a_n: int, b_left: int, b_n: int, z: float = Z95) -> tuple[float, float, float]:
    """A's lead over B in the share of seeds off the plateau, with its 95 % interval: (lead, low, high) by
    Newcombe's hybrid score method (his method 10, from the two Wilson intervals). Reported beside an undecided
    comparison as how far apart the two shares could be; the verdict's rule does not read it."""
    pa, pb = a_left / a_n, b_left / b_n
    (la, ua), (lb, ub) = wilson(a_left, a_n, z), wilson(b_left, b_n, z)
    lead = pa - pb
    return lead, lead - math.hypot(pa - la, ub - pb), lead + math.hypot(ua - pa, pb - lb)


@dataclass(frozen=True)
class Arm:
    """One side of a comparison: per seed, the best test accuracy (over the rates the search kept), and the
    accuracy a seed must beat to have left the plateau."""

    name: str
    values: tuple[float, ...]
    threshold: float

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def left(self) -> int:
        """Seeds that left the plateau."""
        return sum(v > self.threshold for v in self.values)

    @property
    def share(self) -> float:
        return self.left / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.left, self.n)

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else 0.0

    def __str__(self) -> str:
        lo, hi = self.interval
        return (f"{self.name}: {self.left}/{self.n} seeds left the plateau (95 % CI {lo:.2f}–{hi:.2f}), "
                f"median {self.median:.2f}")


@dataclass(frozen=True)
class Comparison:
    """"`winner` beats `other`", read by the rule: kind is ABOVE, BELOW, EQUAL, NEITHER, OPEN or WITHHELD."""

    winner: Arm
    other: Arm
    kind: str
    why: str = ""

    @property
    def sign(self) -> int:
        return {ABOVE: 1, BELOW: -1, EQUAL: -1}.get(self.kind, 0)

    def __str__(self) -> str:
        said = {ABOVE: "above", BELOW: "below", EQUAL: "no better than", NEITHER: "neither left the plateau vs",
                OPEN: "not told apart from", WITHHELD: "withheld vs"}[self.kind]
        why = f" ({self.why})" if self.why else ""
        return f"{self.winner.name} {said} {self.other.name}{why}"


def compare(a: Arm, b: Arm, min_seeds: int = MIN_SEEDS, margin: float = SEPARATION,
            lead_margin: float | None = None) -> Comparison:
    """The rule for "a beats b" (module docstring); with `lead_margin`, "short" is read too (as EQUAL)."""
    if min(a.n, b.n) < min_seeds:
        return Comparison(a, b, OPEN, f"{min(a.n, b.n)} seed(s), a decision needs ≥ {min_seeds} per arm")
    (a_lo, a_hi), (b_lo, b_hi) = a.interval, b.interval
    shares = f"{a.left}/{a.n} vs {b.left}/{b.n} left the plateau"
    if a_lo > b_hi:
        return Comparison(a, b, ABOVE, f"{shares}: the 95 % intervals lie apart")
    if b_lo > a_hi:
        return Comparison(a, b, BELOW, f"{shares}: the 95 % intervals lie apart")
    if a.left == a.n and b.left == b.n:
        accs = f"every seed left the plateau; accuracies {min(a.values):.2f}–{max(a.values):.2f} vs " \
               f"{min(b.values):.2f}–{max(b.values):.2f}"
        if min(a.values) - max(b.values) > margin:
            return Comparison(a, b, ABOVE, accs)
        if min(b.values) - max(a.values) > margin:
            return Comparison(a, b, BELOW, accs)
        if abs(a.median - b.median) <= margin:
            return Comparison(a, b, EQUAL, f"{accs}, medians within {margin:g}")
        return Comparison(a, b, OPEN, accs)
    if a.left == 0 and b.left == 0:
        return Comparison(a, b, NEITHER, f"0/{a.n} and 0/{b.n} left the plateau")
    if lead_margin is not None:
        lead, _, high = lead_interval(a.left, a.n, b.left, b.n)
        if high < lead_margin:
            return Comparison(a, b, EQUAL, f"{shares}: {a.name}'s lead is {signed(lead)}, with 95 % confidence at "
                                           f"most {signed(high)}, short of the {lead_margin:g} a finding needs")
    return Comparison(a, b, OPEN, f"{shares}: the 95 % intervals overlap")


def signed(x: float) -> str:
    """A number with its sign, a minus sign for a minus ("+0.05", "−0.03")."""
    return f"{x:+.2f}".replace("-", "−")


def withheld(a: Arm, b: Arm, why: str) -> Comparison:
    """A comparison the search could not make fairly (search.py: a best rate at an edge, a budget run out)."""
    return Comparison(a, b, WITHHELD, why)


def outcome_of(comparisons: list[Comparison]) -> str:
    """The claim's outcome from its comparisons (module docstring)."""
    kinds = {c.kind for c in comparisons}
    if not comparisons:
        return NOT_TESTED
    if kinds & {BELOW, EQUAL}:
        return NOT_HELD
    if kinds == {ABOVE}:
        return HELD
    if kinds & {NEITHER, WITHHELD}:
        return NOT_TESTED
    return INCONCLUSIVE


def combined(outcomes: list[str]) -> str:
    """One outcome from several readings of a claim: theirs when they agree, else inconclusive."""
    return outcomes[0] if len(set(outcomes)) == 1 else INCONCLUSIVE


RULE = (f"Each seed's best test accuracy either stays on MQAR's plateau (≈ 1/pairs) or leaves it; a seed left it "
        f"when it beat 1/pairs + {LEFT_BY:g}. Per entry: the share of seeds that left, with its 95 % Wilson interval, "
        f"and the median. “A beats B” when A's interval lies wholly above B's (or, when every seed of both left, A's "
        f"lowest seed beats B's highest by more than {SEPARATION:g}); a decision needs ≥ {MIN_SEEDS} seeds per entry. "
        f"The claim *held* when the paper's winner beats every entry it is compared with, at every length; it *did "
        f"not hold* when one beats it or matches it (every seed of both left, medians within {SEPARATION:g}), or when "
        f"on a confirmation's fresh seeds its lead in the share that left is, with 95 % confidence, below "
        f"{MARGIN:g}; it is "
        f"*not tested at this scale* when neither of a pair left the plateau, a best learning rate sat at the edge "
        f"of the search, or the budget ran out; otherwise *inconclusive*.")

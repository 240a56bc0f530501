"""What a cell's seeds say together: the mean and the min–max range of its accuracies over seeds, and when
one range lies wholly above another.

A claim compares ranges, never bare means: two entries whose seed ranges overlap, or lie closer than
SEPARATION, are not told apart by this grid, whatever their means say (the outcome is then "inconclusive").
With at most a handful of seeds, min–max is the honest interval: a bootstrap interval of three numbers is no
narrower than their range.
"""
from __future__ import annotations

from dataclasses import dataclass

MIN_SEEDS = 3                                 # fewer seeds than this: no claim can be decided either way
# Two ranges closer than this are not told apart: one evaluation's sampling error. A default test set is 256
# examples × 4 queries = 1024 answers, and two standard errors of an accuracy p on it are 2·√(p(1−p)/1024)
# ≤ 0.031. (The first 3-seed parameterization grid separated 1-1-1-0's lowest seed from the DSS's highest by
# 0.002 — two answers in 1024 — with both on the plateau: not a finding.)
SEPARATION = 0.03


@dataclass(frozen=True)
class Spread:
    """A cell's accuracy over seeds (each the best over the learning-rate sweep)."""

    values: tuple[float, ...]

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values)

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    def __str__(self) -> str:
        if self.n == 1:
            return f"{self.mean:.2f} (1 seed)"
        return f"{self.mean:.2f} [{self.low:.2f}–{self.high:.2f}]"


Spreads = dict[str, dict[int, Spread]]       # label -> sequence length -> spread over seeds


def above(a: Spread, b: Spread, margin: float = SEPARATION) -> int:
    """+1 when a's range lies wholly above b's by more than `margin`, −1 when wholly below by more than it, 0 when
    they overlap or lie closer than that."""
    if a.low - b.high > margin:
        return 1
    if b.low - a.high > margin:
        return -1
    return 0


def group(spreads: list[Spread]) -> Spread:
    """The spread of a group of entries: per seed, the mean over the group (seeds matched by position)."""
    n = min(s.n for s in spreads)
    return Spread(tuple(sum(s.values[i] for s in spreads) / len(spreads) for i in range(n)))

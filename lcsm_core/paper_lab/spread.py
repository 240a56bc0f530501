"""What a cell's seeds say together: the mean and the min–max range of its accuracies over seeds, and when
one range lies wholly above another.

A claim compares ranges, never bare means: two entries whose seed ranges overlap are not told apart by this
grid, whatever their means say (the outcome is then "inconclusive"). With at most a handful of seeds, min–max
is the honest interval: a bootstrap interval of three numbers is no narrower than their range.
"""
from __future__ import annotations

from dataclasses import dataclass

MIN_SEEDS = 3                                 # fewer seeds than this: no claim can be decided either way


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


def above(a: Spread, b: Spread) -> int:
    """+1 when a's range lies wholly above b's, −1 when wholly below, 0 when they overlap."""
    if a.low > b.high:
        return 1
    if a.high < b.low:
        return -1
    return 0


def group(spreads: list[Spread]) -> Spread:
    """The spread of a group of entries: per seed, the mean over the group (seeds matched by position)."""
    n = min(s.n for s in spreads)
    return Spread(tuple(sum(s.values[i] for s in spreads) / len(spreads) for i in range(n)))

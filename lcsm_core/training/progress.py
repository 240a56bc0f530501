"""How far a run is, and how long it has left: a run ends at its step budget or its time budget, whichever comes
first (it may also end early, at its target accuracy, which no bar can foresee)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunProgress:
    fraction: float               # 0…1: the larger of steps ÷ max_steps and seconds ÷ max_seconds
    seconds_left: float | None    # at the pace measured so far; None before a step was timed
    steps_per_s: float | None


def run_progress(steps: int, wall_s: float, max_steps: int, max_seconds: float | None) -> RunProgress:
    by_steps = steps / max_steps if max_steps > 0 else 0.0
    by_time = wall_s / max_seconds if max_seconds else 0.0
    fraction = min(1.0, max(by_steps, by_time, 0.0))
    pace = steps / wall_s if steps > 0 and wall_s > 0 else None
    left = None
    if pace is not None:
        left = max(0.0, (max_steps - steps) / pace)
        if max_seconds:
            left = min(left, max(0.0, max_seconds - wall_s))
    return RunProgress(fraction, left, pace)


@dataclass(frozen=True)
class GridProgress:
    done: int                     # runs of the grid that ended (finished, diverged, failed or stopped)
    total: int                    # runs the grid launched
    seconds_left: float | None    # at the grid's pace so far (its workers together); None before a run ended

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0

    def words(self) -> str:
        """"12 of 36 runs done · about 3 min left"."""
        said = f"{self.done} of {self.total} runs done"
        if self.seconds_left is None:
            return said + " · the time left shows once a run has finished"
        return said + f" · {duration_words(self.seconds_left)} left"


def grid_progress(done: int, total: int, started_at: float | None, now: float) -> GridProgress:
    """How far a grid is: runs ended out of runs launched, and the time left at its measured pace (runs ended per
    second since its first run started, which counts its workers running side by side)."""
    left = None
    if started_at is not None and 0 < done < total and now > started_at:
        left = (total - done) * (now - started_at) / done
    elif total and done >= total:
        left = 0.0
    return GridProgress(done, total, left)


def amount_words(seconds: float) -> str:
    """A duration in the unit a reader takes in: "40 s", "3 min", "1.5 h"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def duration_words(seconds: float) -> str:
    """"about 40 s", "about 3 min", "about 1.5 h" (never "about 0 s")."""
    return f"about {amount_words(max(1.0, seconds))}"

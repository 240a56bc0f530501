"""Lesson 1 in one call: the spring under a forcing, simulated through the EOS core."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..divergence import DIVERGENCE_BOUND, first_divergence, stop_index
from .discretize import discretize
from .eos_bridge import eos_response
from .forcing import forcing_signal
from .spring import SpringRegime, spring_energy, spring_mass_damper, spring_regime


@dataclass(frozen=True)
class SpringSimulation:
    """Trajectories (T,) on t, cut at the first step where |x| or |v| passes `bound`; sampled every `dt`."""

    t: np.ndarray
    force: np.ndarray
    x: np.ndarray
    v: np.ndarray
    energy: np.ndarray
    regime: SpringRegime
    diverged_at: float | None   # time (s) where the response left ±bound, None if it stayed
    bound: float
    diverged_in: str | None = None   # which state passed the bound first there: "x" (position) or "v" (velocity)
    dt: float = 0.05                 # the sample step used (finer than asked when a pole is fast)

    @property
    def energy_growth(self) -> float:
        """Energy at the end over the energy just after the first step (1 when none is lost or gained)."""
        start = float(self.energy[min(1, len(self.energy) - 1)])
        return float(self.energy[-1]) / start if start > 0 else math.inf


SAMPLES_PER_TIME_CONSTANT = 5   # the fastest pole p is sampled at least this often per 1/|p| (smooth curves)


def sample_step(m: float, c: float, k: float, dt: float) -> float:
    """dt, or finer when a pole is fast: a stiff, heavily damped spring (m = k = 0.1, c = 5 has a pole at −50)
    sampled every 0.05 s jumps to rest in three samples, and its phase portrait is a triangle."""
    return step_for_poles(spring_regime(m, c, k).poles, dt)


def step_for_poles(poles: np.ndarray, dt: float) -> float:
    """`sample_step` from the spring's poles."""
    fastest = float(np.max(np.abs(poles)))
    return min(dt, 1.0 / (SAMPLES_PER_TIME_CONSTANT * fastest)) if fastest > 0 else dt


def simulate_spring(m: float, c: float, k: float, forcing: str = "impulse", *, horizon: float = 30.0,
                    dt: float = 0.05, frequency: float = 1.0, period: float = 5.0,
                    bound: float = DIVERGENCE_BOUND) -> SpringSimulation:
    """Start at rest, apply f(t), sample every dt, or finer for a fast pole (ZOH is exact for the held samples)."""
    dt = sample_step(m, c, k, dt)
    t = np.arange(int(round(horizon / dt)) + 1) * dt
    f = forcing_signal(forcing, t, frequency=frequency, period=period)
    _, states = eos_response(discretize(spring_mass_damper(m, c, k), dt, "zoh"), f)   # (T, 2)
    hit = first_divergence(states, bound)
    keep = stop_index(states, bound)
    x, v = states[:keep, 0], states[:keep, 1]
    which = None if hit is None else ("x" if not abs(states[hit, 0]) <= bound else "v")
    return SpringSimulation(t=t[:keep], force=f[:keep], x=x, v=v, energy=spring_energy(x, v, m, k),
                            regime=spring_regime(m, c, k), diverged_at=None if hit is None else float(t[hit]),
                            bound=bound, diverged_in=which, dt=dt)

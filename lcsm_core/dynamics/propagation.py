"""Lesson 5 in one call: can a linear system tell "aa" from "ab"?

Tokens a = +1 and b = -1 arrive as pulses `gap` steps apart; `length` steps after the
second pulse we compare the two final states. By linearity the difference is the
response to a single pulse of size 2 — it survives only if the system neither
forgets (|λ|^length → 0) nor explodes (|λ| > 1 swamps everything).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .discretize import discretize
from .divergence import DISPLAY_BOUND, stop_index
from .eigen_responses import mode_trajectories
from .eos_bridge import eos_response
from .spring import spring_mass_damper

SPRING_DT = 0.1                       # s per step for the spring systems
SPRING_CASES = {"low damping": 0.1, "high damping": 3.0, "negative damping": -0.2}   # c, with m = k = 1
FORGET_BELOW = 1e-3                   # final-state distance under this: the first token is forgotten
EXPLODE_ABOVE = DISPLAY_BOUND         # final-state size above this: the system exploded
NU_GRID = np.linspace(-0.05, 0.3, 36)
THETA_GRID = np.radians(np.arange(0, 181, 5))   # the page's θ slider steps


@dataclass(frozen=True)
class PropagationTrace:
    """One system fed "aa" and "ab": readouts (T_kept,), cut where they left ±bound."""

    name: str
    t: np.ndarray
    y_aa: np.ndarray
    y_ab: np.ndarray
    distance: np.ndarray        # (T_kept,) ‖state_aa − state_ab‖
    final_distance: float       # at the last kept step
    exploded: bool              # stopped at the display bound
    growing: bool               # the state at the end is larger than right after the second token


@dataclass(frozen=True)
class DistinguishabilityGrid:
    """|h_aa − h_ab| and max(|h_aa|, |h_ab|) for LRU eigenvalues λ = exp(-ν + iθ), after each step."""

    nu: np.ndarray              # (Nν,)
    theta: np.ndarray           # (Nθ,) radians
    lengths: np.ndarray         # (L+1,) steps after the second pulse: 0..length
    distance: np.ndarray        # (Nν, Nθ, L+1)
    size: np.ndarray            # (Nν, Nθ, L+1)

    def theta_index(self, theta: float) -> int:
        return int(np.argmin(np.abs(self.theta - theta)))

    def by_length(self, theta: float):
        """(distance, size), each (Nν, L+1), at the grid θ nearest to `theta`."""
        j = self.theta_index(theta)
        return self.distance[:, j, :], self.size[:, j, :]

    def by_theta(self, length: int):
        """(distance, size), each (Nν, Nθ), `length` steps after the second pulse."""
        L = int(np.clip(length, 0, len(self.lengths) - 1))
        return self.distance[:, :, L], self.size[:, :, L]


@dataclass(frozen=True)
class PropagationExperiment:
    traces: list                # PropagationTrace per system (springs, then the LRU eigenvalue)
    grid: DistinguishabilityGrid
    gap: int
    length: int


def token_pulses(gap: int, length: int) -> np.ndarray:
    """(2, T) inputs for "aa" and "ab", T = gap + length + 1: +1 at step 0, ±1 at step gap."""
    u = np.zeros((2, gap + length + 1))
    u[:, 0] = 1.0
    u[0, gap], u[1, gap] = 1.0, -1.0
    return u


def _trace(name, t, y_aa, y_ab, states_aa, states_ab, bound) -> PropagationTrace:
    both = np.concatenate([states_aa.reshape(len(t), -1), states_ab.reshape(len(t), -1)], axis=1)
    keep = stop_index(both, bound)
    dist = np.linalg.norm((states_aa - states_ab).reshape(len(t), -1), axis=1)[:keep]
    size = np.linalg.norm(both, axis=1)
    return PropagationTrace(name=name, t=t[:keep], y_aa=y_aa[:keep], y_ab=y_ab[:keep], distance=dist,
                            final_distance=float(dist[-1]), exploded=keep < len(t),
                            growing=bool(size[keep - 1] > 1.01 * size[gap_index(t, dist)]))


def gap_index(t: np.ndarray, distance: np.ndarray) -> int:
    """First step where the two sequences differ (the second token), 0 if they never do."""
    hits = np.flatnonzero(distance > 0)
    return int(hits[0]) if hits.size else 0


def spring_traces(gap: int, length: int, bound: float = DISPLAY_BOUND) -> list[PropagationTrace]:
    """The three springs (m = k = 1, ZOH at SPRING_DT), tokens as unit-area force pulses."""
    pulses = token_pulses(gap, length) / SPRING_DT
    t = np.arange(pulses.shape[1]) * SPRING_DT
    traces = []
    for name, c in SPRING_CASES.items():
        sysd = discretize(spring_mass_damper(1.0, c, 1.0), SPRING_DT, "zoh")
        (y_aa, x_aa), (y_ab, x_ab) = (eos_response(sysd, u) for u in pulses)
        traces.append(_trace(f"{name} (c = {c:g})", t, y_aa[:, 0], y_ab[:, 0], x_aa, x_ab, bound))
    return traces


def distinguishability_grid(gap: int, length: int) -> DistinguishabilityGrid:
    """One batched EOS scan over every (ν, θ) grid eigenvalue, both sequences."""
    lam = np.exp(-NU_GRID[:, None] + 1j * THETA_GRID[None, :]).ravel()              # (Nν·Nθ,)
    h = mode_trajectories(lam, token_pulses(gap, length))                            # (2, P, T)
    h = h.reshape(2, len(NU_GRID), len(THETA_GRID), -1)[..., gap:]                   # from the 2nd pulse on
    return DistinguishabilityGrid(nu=NU_GRID, theta=THETA_GRID, lengths=np.arange(h.shape[-1]),
                                  distance=np.abs(h[0] - h[1]), size=np.maximum(np.abs(h[0]), np.abs(h[1])))


def lru_trace(gap: int, length: int, nu: float, theta: float, bound: float = DISPLAY_BOUND) -> PropagationTrace:
    """One LRU eigenvalue λ = exp(-ν + iθ) fed "aa"/"ab" (tokens ±1 straight into h)."""
    h = mode_trajectories(np.array([np.exp(-nu + 1j * theta)]), token_pulses(gap, length))[:, 0, :]  # (2, T)
    steps = np.arange(h.shape[1], dtype=float)
    return _trace(f"LRU eigenvalue (ν = {nu:g}, θ = {np.degrees(theta):.0f}°)", steps, h[0].real, h[1].real,
                  h[0], h[1], bound)


def propagation_experiment(gap: int, length: int, nu: float, theta: float,
                           bound: float = DISPLAY_BOUND) -> PropagationExperiment:
    """Springs and one LRU eigenvalue fed "aa"/"ab", plus the (ν, θ, length) distance grid."""
    traces = spring_traces(gap, length, bound) + [lru_trace(gap, length, nu, theta, bound)]
    return PropagationExperiment(traces=traces, grid=distinguishability_grid(gap, length), gap=gap, length=length)

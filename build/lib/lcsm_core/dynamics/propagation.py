"""Lesson 5 in one call: can a linear system tell "aa" from "ab"?

Tokens a = +1 and b = -1 arrive as pulses `gap` steps apart; `length` steps after the
second pulse we compare the two final states. By linearity the difference is the
response to a single pulse of size 2 — it survives only if the system neither
forgets (|λ|^length → 0) nor explodes (|λ| > 1 swamps everything).

The LRU eigenvalue λ = exp(−ν + iθ) takes θ in degrees (the lesson's unit); `lru_exponent` is the
one place it becomes radians.

Two ways to the same numbers: feed the two token sequences to the EOS scan (`spring_traces`,
`distinguishability_grid`: the readable reference), or scan a single unit pulse once, over the longest
horizon a page allows (`token_responses`), and add it to itself shifted by `gap` steps — the superposition
the lesson is about. The second makes every (gap, length) cost a slice and an addition instead of a scan;
they agree to rounding (tests/dynamics/test_propagation_superposition.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..divergence import DIVERGENCE_BOUND, stop_index
from .discretize import discretize
from .eigen_responses import mode_trajectories
from .eos_bridge import eos_response, eos_responses
from .spring import spring_mass_damper

SPRING_DT = 0.1                       # s per step for the spring systems
SPRING_CASES = {"low damping": 0.1, "high damping": 3.0, "negative damping": -0.2}   # c, with m = k = 1
FORGET_BELOW = 1e-3                   # final distance under this: the second token (the one that differs) is lost
EXPLODE_ABOVE = DIVERGENCE_BOUND      # state size above this: the system exploded
NU_GRID = np.linspace(-0.05, 0.3, 36)
THETA_DEG_GRID = np.arange(0, 181, 5)             # the page's θ slider steps (degrees)


@dataclass(frozen=True)
class PropagationTrace:
    """One system fed "aa" and "ab": readouts (T_kept,), cut where they left ±bound."""

    name: str
    t: np.ndarray
    y_aa: np.ndarray
    y_ab: np.ndarray
    distance: np.ndarray        # (T_kept,) ‖state_aa − state_ab‖
    final_distance: float       # at the last kept step
    exploded: bool              # stopped at the divergence bound
    growing: bool               # the state at the end is larger than right after the second token

    @property
    def verdict(self) -> str:
        """"exploded", "growing", "forgot" (final distance under FORGET_BELOW) or "remembers"."""
        if self.exploded:
            return "exploded"
        if self.growing:
            return "growing"
        return "forgot" if self.final_distance < FORGET_BELOW else "remembers"


@dataclass(frozen=True)
class DistinguishabilityGrid:
    """|h_aa − h_ab| and max(|h_aa|, |h_ab|) for LRU eigenvalues λ = exp(-ν + iθ), after each step."""

    nu: np.ndarray              # (Nν,)
    theta_deg: np.ndarray       # (Nθ,) degrees
    lengths: np.ndarray         # (L+1,) steps after the second pulse: 0..length
    distance: np.ndarray        # (Nν, Nθ, L+1)
    size: np.ndarray            # (Nν, Nθ, L+1)

    def theta_index(self, theta_deg: float) -> int:
        return int(np.argmin(np.abs(self.theta_deg - theta_deg)))

    def by_length(self, theta_deg: float):
        """(distance, size), each (Nν, L+1), at the grid θ nearest to `theta_deg`."""
        j = self.theta_index(theta_deg)
        return self.distance[:, j, :], self.size[:, j, :]

    def by_theta(self, length: int):
        """(distance, size), each (Nν, Nθ), `length` steps after the second pulse."""
        L = int(np.clip(length, 0, len(self.lengths) - 1))
        return self.distance[:, :, L], self.size[:, :, L]

    # The maps are copies: a page keeps them (cached) without holding on to the whole grid.
    def length_map(self, theta_deg: float) -> DistanceMap:
        """The (ν, steps after the second token) map at the grid θ nearest to `theta_deg`."""
        return DistanceMap(self.nu, self.lengths, *(a.copy() for a in self.by_length(theta_deg)))

    def theta_map(self, length: int) -> DistanceMap:
        """The (ν, θ in degrees) map `length` steps after the second token."""
        return DistanceMap(self.nu, self.theta_deg, *(a.copy() for a in self.by_theta(length)))


@dataclass(frozen=True)
class DistanceMap:
    """One cut through the grid, a heatmap: rows are the damping ν, columns another axis."""

    nu: np.ndarray              # (Nν,)
    x: np.ndarray               # (Nx,) steps after the second token, or θ in degrees
    distance: np.ndarray        # (Nν, Nx) |h_aa − h_ab|
    size: np.ndarray            # (Nν, Nx) max(|h_aa|, |h_ab|)


@dataclass(frozen=True)
class PropagationExperiment:
    """Everything the lesson shows for one setting — small: the grid enters only as its two cuts."""

    traces: list                # PropagationTrace per system (springs, then the LRU eigenvalue)
    by_length: DistanceMap      # (ν, length) at this θ
    by_theta: DistanceMap       # (ν, θ) at this length
    gap: int
    length: int
    nu: float
    theta_deg: float

    @property
    def exponent(self) -> complex:
        """−ν + iθ (θ in radians): λ = e^{exponent}."""
        return complex(lru_exponent(self.nu, self.theta_deg))

    @property
    def eigenvalue(self) -> complex:
        return complex(np.exp(self.exponent))

    @property
    def predicted_distance(self) -> float:
        """2|λ|^length: the LRU state distance the linearity argument predicts (before any explosion)."""
        return 2.0 * float(np.exp(-self.nu * self.length))


def lru_exponent(nu, theta_deg):
    """−ν + iθ with θ turned from degrees into radians (scalars or broadcasting arrays)."""
    return -np.asarray(nu) + 1j * np.radians(theta_deg)


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


def spring_traces(gap: int, length: int, bound: float = DIVERGENCE_BOUND) -> list[PropagationTrace]:
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
    lam = np.exp(lru_exponent(NU_GRID[:, None], THETA_DEG_GRID[None, :])).ravel()    # (Nν·Nθ,)
    h = mode_trajectories(lam, token_pulses(gap, length))                            # (2, P, T)
    h = h.reshape(2, len(NU_GRID), len(THETA_DEG_GRID), -1)[..., gap:]               # from the 2nd pulse on
    return DistinguishabilityGrid(nu=NU_GRID, theta_deg=THETA_DEG_GRID, lengths=np.arange(h.shape[-1]),
                                  distance=np.abs(h[0] - h[1]), size=np.maximum(np.abs(h[0]), np.abs(h[1])))


def lru_trace(gap: int, length: int, nu: float, theta_deg: float,
              bound: float = DIVERGENCE_BOUND) -> PropagationTrace:
    """One LRU eigenvalue λ = exp(-ν + iθ), θ in degrees, fed "aa"/"ab" (tokens ±1 straight into h)."""
    lam = np.exp(np.atleast_1d(lru_exponent(nu, theta_deg)))
    # chunked: the trace is recomputed on every move of the ν and θ sliders, and one mode does not
    # amortize the recurrent form's loop over T
    h = mode_trajectories(lam, token_pulses(gap, length), form="chunked")[:, 0, :]   # (2, T)
    steps = np.arange(h.shape[1], dtype=float)
    return _trace(f"LRU eigenvalue (ν = {nu:g}, θ = {theta_deg:.0f}°)", steps, h[0].real, h[1].real,
                  h[0], h[1], bound)


@dataclass(frozen=True)
class TokenResponses:
    """Each system's response to one unit token at step 0, over `steps` steps (the EOS scan's, computed once):
    what every "aa" / "ab" pair with gap + length + 1 ≤ steps is made of (`superposed`)."""

    steps: int
    springs: dict               # spring name → (y (steps,), states (steps, 2)): response to a unit-area force pulse
    grid: np.ndarray            # (Nν, Nθ, steps) complex: λ^t of every grid eigenvalue (NU_GRID × THETA_DEG_GRID)

    def covers(self, gap: int, length: int) -> bool:
        return gap + length + 1 <= self.steps


def token_responses(steps: int) -> TokenResponses:
    """One EOS scan per spring and one batched scan over the grid eigenvalues, of a single pulse at step 0."""
    pulse = np.zeros(steps)
    pulse[0] = 1.0
    systems = [discretize(spring_mass_damper(1.0, c, 1.0), SPRING_DT, "zoh") for c in SPRING_CASES.values()]
    springs = {f"{name} (c = {c:g})": (y[:, 0], x)                          # the three springs share one scan
               for (name, c), (y, x) in zip(SPRING_CASES.items(), eos_responses(systems, pulse / SPRING_DT))}
    lam = np.exp(lru_exponent(NU_GRID[:, None], THETA_DEG_GRID[None, :])).ravel()
    grid = mode_trajectories(lam, pulse).reshape(len(NU_GRID), len(THETA_DEG_GRID), steps)
    return TokenResponses(steps=steps, springs=springs, grid=grid)


def superposed(response: np.ndarray, gap: int, T: int) -> tuple[np.ndarray, np.ndarray]:
    """The responses to "aa" (+1 at 0 and at gap) and "ab" (+1 at 0, −1 at gap), T steps along the last axis of
    `response` (a unit token's, at least T long) — by linearity: r(t) ± r(t − gap)."""
    first = response[..., :T]
    second = np.zeros_like(first)
    second[..., gap:] = response[..., :T - gap]
    return first + second, first - second


def superposed_spring_traces(responses: TokenResponses, gap: int, length: int,
                             bound: float = DIVERGENCE_BOUND) -> list[PropagationTrace]:
    """`spring_traces(gap, length, bound)` from the springs' single-pulse responses."""
    T = gap + length + 1
    t = np.arange(T) * SPRING_DT
    traces = []
    for name, (y, x) in responses.springs.items():
        (y_aa, y_ab), (x_aa, x_ab) = superposed(y, gap, T), superposed(x.T, gap, T)
        traces.append(_trace(name, t, y_aa, y_ab, x_aa.T, x_ab.T, bound))
    return traces


def superposed_distance_maps(responses: TokenResponses, gap: int, length: int,
                             theta_deg: float) -> tuple[DistanceMap, DistanceMap]:
    """`distinguishability_grid(gap, length)`'s two cuts (`length_map(theta_deg)`, `theta_map(length)`), from the
    grid's single-pulse responses: after L more steps h = λ^{gap+L} ± λ^L — only the cells the cuts show."""
    lengths = np.arange(length + 1)
    j = int(np.argmin(np.abs(THETA_DEG_GRID - theta_deg)))

    def cut(second_token: np.ndarray, first_token: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        aa, ab = first_token + second_token, first_token - second_token
        return np.abs(aa - ab), np.maximum(np.abs(aa), np.abs(ab))

    by_length = cut(responses.grid[:, j, :length + 1], responses.grid[:, j, gap:gap + length + 1])
    by_theta = cut(responses.grid[:, :, length], responses.grid[:, :, gap + length])
    return (DistanceMap(NU_GRID, lengths, *by_length), DistanceMap(NU_GRID, THETA_DEG_GRID, *by_theta))


def setting_parts(gap: int, length: int, theta_deg: float, bound: float, responses: TokenResponses | None
                  ) -> tuple[list, DistanceMap, DistanceMap]:
    """What a propagation experiment shares across ν: the spring traces and the distance grid's two cuts (sums of
    shifted single-pulse responses when `responses` covers the run, else new scans)."""
    if responses is not None and responses.covers(gap, length):
        return (superposed_spring_traces(responses, gap, length, bound),
                *superposed_distance_maps(responses, gap, length, theta_deg))
    grid = distinguishability_grid(gap, length)
    return spring_traces(gap, length, bound), grid.length_map(theta_deg), grid.theta_map(length)


def propagation_experiment(gap: int, length: int, nu: float, theta_deg: float, bound: float = DIVERGENCE_BOUND,
                           *, responses: TokenResponses | None = None) -> PropagationExperiment:
    """Springs and one LRU eigenvalue fed "aa"/"ab", plus the (ν, θ, length) distance grid's cuts; θ in degrees.

    responses: `token_responses(steps)` with steps ≥ gap + length + 1, when the caller keeps one (it depends on
    no setting): the springs and the grid are then sums of shifted single-pulse responses, not new scans.
    """
    springs, by_length, by_theta = setting_parts(gap, length, theta_deg, bound, responses)
    return PropagationExperiment(traces=springs + [lru_trace(gap, length, nu, theta_deg, bound)],
                                 by_length=by_length, by_theta=by_theta,
                                 gap=gap, length=length, nu=nu, theta_deg=theta_deg)

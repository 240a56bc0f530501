"""The spring–mass–damper  m x'' + c x' + k x = f(t)  as a python-control state space.

State X = [x, v] (position, velocity), input f, output x:

    A = [[0, 1], [-k/m, -c/m]],   B = [0, 1/m]ᵀ,   C = [1, 0],   D = 0
    poles (-c ± sqrt(c² - 4mk)) / 2m,   ωn = sqrt(k/m),   ζ = c / (2 sqrt(mk))
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import control
import numpy as np

CRITICAL_TOL = 1e-9  # |ζ - 1| below this counts as critically damped (exact arithmetic only)


def check_spring(m: float, k: float) -> None:
    """ValueError unless m > 0 and k ≥ 0 (what every spring here needs)."""
    if not m > 0:
        raise ValueError(f"mass m must be positive, got {m!r}")
    if not k >= 0:
        raise ValueError(f"spring constant k must be non-negative, got {k!r}")


def spring_matrices(m, c, k) -> tuple[np.ndarray, np.ndarray]:
    """The spring's A (..., 2, 2) and B (..., 2, 1), the one place they are written: m, c, k are scalars or arrays,
    broadcast against each other (a family's members stack along the leading axis). Does not check m and k."""
    m, c, k = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (m, c, k)))
    A = np.zeros(m.shape + (2, 2))
    A[..., 0, 1], A[..., 1, 0], A[..., 1, 1] = 1.0, -k / m, -c / m
    B = np.zeros(m.shape + (2, 1))
    B[..., 1, 0] = 1.0 / m
    return A, B


def spring_mass_damper(m: float, c: float, k: float) -> control.StateSpace:
    """Continuous state space of the spring (2 states, 1 input f, 1 output x). Needs m > 0, k ≥ 0."""
    check_spring(m, k)
    A, B = spring_matrices(m, c, k)
    return control.ss(A, B, [[1.0, 0.0]], [[0.0]])


@dataclass(frozen=True)
class SpringRegime:
    """What the poles say. Times are in seconds; `inf` where the system does not decay."""

    name: str            # "underdamped" | "critically damped" | "overdamped" | "undamped" | "unstable"
    zeta: float          # damping ratio c / (2 sqrt(mk)); inf when k = 0
    omega_n: float       # natural frequency sqrt(k/m)
    poles: np.ndarray    # (2,) complex, from control.poles
    decay_rate: float    # σ = -max Re(p); negative when the system grows
    time_constant: float  # 1/σ of the slowest mode (inf when σ ≤ 0)
    half_life: float     # ln 2 / σ (inf when σ ≤ 0)
    doubling_time: float  # ln 2 / (-σ) when the system grows, else inf
    critical_damping: float  # c = 2 sqrt(mk): the damping at which ζ = 1
    resonance_amplitude: float  # steady amplitude 1/(c ωn) under a unit sine at ωn (inf when c ≤ 0)

    @property
    def stable(self) -> bool:
        return self.decay_rate > 0


def spring_regime(m: float, c: float, k: float, poles: np.ndarray | None = None) -> SpringRegime:
    """Classify the spring from its poles (python-control's: the eigenvalues of A) and its ζ, ωn.

    poles: those eigenvalues when the caller has them already (a family computes them for all its members in one
    batched `eigvals`, which is what `control.poles` calls per system); the caller has checked m and k then."""
    if poles is None:
        poles = control.poles(spring_mass_damper(m, c, k))
    poles = np.sort_complex(np.asarray(poles, dtype=complex))
    omega_n = math.sqrt(k / m)
    zeta = c / (2.0 * math.sqrt(m * k)) if k > 0 else math.copysign(math.inf, c) if c != 0 else 0.0
    sigma = float(-np.max(poles.real))
    if c < 0:
        name = "unstable"
    elif c == 0:
        name = "undamped"
    elif abs(zeta - 1.0) <= CRITICAL_TOL:
        name = "critically damped"
    elif zeta > 1:
        name = "overdamped"
    else:
        name = "underdamped"
    grows = sigma < 0
    return SpringRegime(
        name=name, zeta=float(zeta), omega_n=omega_n, poles=poles, decay_rate=sigma,
        time_constant=1.0 / sigma if sigma > 0 else math.inf,
        half_life=math.log(2) / sigma if sigma > 0 else math.inf,
        doubling_time=math.log(2) / -sigma if grows else math.inf,
        critical_damping=2.0 * math.sqrt(m * k),
        resonance_amplitude=1.0 / (c * omega_n) if c > 0 and omega_n > 0 else math.inf,
    )


def spring_energy(x: np.ndarray, v: np.ndarray, m: float, k: float) -> np.ndarray:
    """Mechanical energy ½ m v² + ½ k x², same shape as x."""
    return 0.5 * m * np.square(v) + 0.5 * k * np.square(x)

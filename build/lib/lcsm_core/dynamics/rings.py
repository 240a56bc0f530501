"""Lesson 3 in one call: an LRU ring initialization and what its eigenvalues remember."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .eigen_responses import impulse_responses
from .lru_init import RingInit, lru_ring_init, memory_horizon

MIN_STEPS, MAX_STEPS = 60, 3000
DENSITY_POINTS = 100


@dataclass(frozen=True)
class RingStudy:
    init: RingInit
    eigenvalues: np.ndarray     # (n,) complex
    radii: np.ndarray           # (n,) |λ|
    horizons: np.ndarray        # (n,) 1 / (1 - |λ|) steps
    gammas: np.ndarray          # (n,) input normalization γ = sqrt(1 - |λ|²) = exp(γ_log)
    picked: np.ndarray          # (P,) indices: the fastest-decaying, the median and the slowest eigenvalue
    picked_labels: tuple
    impulse: np.ndarray         # (P, steps) complex λ^t via eos_scan
    r_min: float
    r_max: float
    max_phase: float            # radians
    density_radii: np.ndarray   # (G,) radii from r_min to r_max (empty when r_min = r_max) ...
    density: np.ndarray         # (G,) ... and the density of |λ| there for uniform-in-area: 2r / (r_max² − r_min²)


def ring_study(n: int, r_min: float, r_max: float, max_phase: float, seed: int = 0) -> RingStudy:
    """Ring init (r_min > r_max is swapped), horizons, and λ^t for three picked eigenvalues.

    The impulse responses run for about twice the slowest picked horizon (clipped to [60, 3000]).
    """
    parts, steps = ring_parts(n, r_min, r_max, max_phase, seed)
    return RingStudy(**parts, impulse=impulse_responses(parts["eigenvalues"][parts["picked"]], steps))


def ring_parts(n: int, r_min: float, r_max: float, max_phase: float, seed: int) -> tuple[dict, int]:
    """Every field of the `RingStudy` but its impulse responses, and how many steps those run."""
    r_min, r_max = sorted((r_min, r_max))
    init = lru_ring_init(n, r_min, r_max, max_phase, seed)
    lam = init.eigenvalues
    radii = np.abs(lam)
    order = np.argsort(radii)
    picked = np.array([order[0], order[len(order) // 2], order[-1]])
    horizons = memory_horizon(lam)
    steps = int(np.clip(2 * np.max(horizons[picked]), MIN_STEPS, MAX_STEPS))
    grid = np.linspace(r_min, r_max, DENSITY_POINTS) if r_max > r_min else np.zeros(0)
    return dict(init=init, eigenvalues=lam, radii=radii, horizons=horizons, gammas=np.exp(init.gamma_log),
                picked=picked, picked_labels=("smallest |λ|", "median |λ|", "largest |λ|"), r_min=r_min,
                r_max=r_max, max_phase=max_phase, density_radii=grid,
                density=uniform_in_area_density(grid, r_min, r_max)), steps


def uniform_in_area_density(r: np.ndarray, r_min: float, r_max: float) -> np.ndarray:
    """Probability density of |λ| at r for eigenvalues uniform in area on r_min ≤ |λ| ≤ r_max: it rises like r."""
    return 2 * np.asarray(r, dtype=float) / (r_max**2 - r_min**2)

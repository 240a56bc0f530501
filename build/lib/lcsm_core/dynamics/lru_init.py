"""LRU ring initialization and the exponential parameterization (Orvieto et al., 2023).

    λ = exp(-exp(ν_log) + i exp(θ_log))      — |λ| = exp(-exp(ν_log)) < 1 for every real ν_log
    u₁, u₂ ~ U(0, 1):   |λ|² = u₁ (r_max² - r_min²) + r_min²   (uniform in area on the ring)
                        θ = max_phase · u₂
    ν_log = log(-½ log |λ|²),   θ_log = log θ,   γ_log = log sqrt(1 - |λ|²)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RingInit:
    """Parameters of n LRU eigenvalues, each (n,) float."""

    nu_log: np.ndarray
    theta_log: np.ndarray
    gamma_log: np.ndarray

    @property
    def eigenvalues(self) -> np.ndarray:
        return lru_eigenvalues(self.nu_log, self.theta_log)


def lru_ring_init(n: int, r_min: float, r_max: float, max_phase: float, seed: int = 0) -> RingInit:
    """n eigenvalues uniform (in area) on the ring r_min ≤ |λ| ≤ r_max, phase in [0, max_phase].

    Needs 0 ≤ r_min ≤ r_max < 1 and max_phase > 0 (the page keeps its sliders there).
    """
    if not (0 <= r_min <= r_max < 1):
        raise ValueError(f"need 0 ≤ r_min ≤ r_max < 1, got r_min={r_min}, r_max={r_max}")
    if not max_phase > 0:
        raise ValueError(f"max_phase must be positive, got {max_phase}")
    rng = np.random.default_rng(seed)
    u1, u2 = rng.uniform(size=n), rng.uniform(size=n)
    radius_sq = u1 * (r_max**2 - r_min**2) + r_min**2
    radius_sq = np.maximum(radius_sq, np.finfo(float).tiny)            # r_min = 0 and u₁ = 0
    nu_log = np.log(-0.5 * np.log(radius_sq))
    theta_log = np.log(max_phase * np.maximum(u2, np.finfo(float).tiny))
    gamma_log = np.log(np.sqrt(1.0 - np.abs(lru_eigenvalues(nu_log, theta_log)) ** 2))
    return RingInit(nu_log=nu_log, theta_log=theta_log, gamma_log=gamma_log)


def lru_eigenvalues(nu_log: np.ndarray, theta_log: np.ndarray) -> np.ndarray:
    """λ = exp(-exp(ν_log) + i exp(θ_log)), (n,) complex."""
    return np.exp(-np.exp(nu_log) + 1j * np.exp(theta_log))


def memory_horizon(eigenvalues: np.ndarray) -> np.ndarray:
    """1 / (1 - |λ|) in steps, elementwise; inf where |λ| ≥ 1."""
    r = np.abs(np.asarray(eigenvalues))
    with np.errstate(divide="ignore"):
        return np.where(r < 1, 1.0 / np.maximum(1.0 - r, 1e-300), np.inf)

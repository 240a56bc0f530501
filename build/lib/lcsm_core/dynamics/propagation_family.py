"""Lesson 5's preview family in one call: `propagation_experiment` at many dampings ν, one EOS scan for all.

Of an experiment only the LRU eigenvalue's trace moves with ν: the springs and the distance maps depend on the
gap, the length and θ alone, so they are computed once and shared by every member. The members' traces come
from the closed form of a single mode's response to one token, λᵗ (`impulse_powers`), added to itself shifted by
the gap (`superposed`: the superposition the lesson is about) — where `lru_trace` scans "aa" and "ab" for each ν.
A member equals `propagation_experiment` at its ν to rounding (tests/dynamics/test_families.py).
"""
from __future__ import annotations

import numpy as np

from ..divergence import DIVERGENCE_BOUND
from .eigen_responses import impulse_powers
from .propagation import (
    PropagationExperiment,
    TokenResponses,
    _trace,
    lru_exponent,
    setting_parts,
    superposed,
)


def lru_traces(gap: int, length: int, nus, theta_deg: float, bound: float = DIVERGENCE_BOUND) -> list:
    """[`lru_trace(gap, length, ν, theta_deg, bound)` for ν in nus], from λᵗ in closed form."""
    nus = [float(nu) for nu in nus]
    T = gap + length + 1
    aa, ab = superposed(impulse_powers(np.exp(lru_exponent(np.asarray(nus), theta_deg)), T), gap, T)   # (P, T)
    steps = np.arange(T, dtype=float)
    return [_trace(f"LRU eigenvalue (ν = {nu:g}, θ = {theta_deg:.0f}°)", steps, aa[j].real, ab[j].real, aa[j], ab[j],
                   bound) for j, nu in enumerate(nus)]


def propagation_family(gap: int, length: int, nus, theta_deg: float, bound: float = DIVERGENCE_BOUND, *,
                       responses: TokenResponses | None = None) -> list[PropagationExperiment]:
    """[`propagation_experiment(gap, length, ν, theta_deg, bound, responses=responses)` for ν in nus]."""
    springs, by_length, by_theta = setting_parts(gap, length, theta_deg, bound, responses)
    return [PropagationExperiment(traces=springs + [trace], by_length=by_length, by_theta=by_theta, gap=gap,
                                  length=length, nu=float(nu), theta_deg=theta_deg)
            for nu, trace in zip(nus, lru_traces(gap, length, nus, theta_deg, bound))]

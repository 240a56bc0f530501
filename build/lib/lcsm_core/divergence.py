"""The one divergence policy of the explorer: a value diverged once it is not finite or its size passes
DIVERGENCE_BOUND. Simulations stop there, training runs stop there, and every page says so and draws
nothing past it — so no page ever plots a NaN or an axis that reaches 1e300.

Every signal the pages feed in has unit scale (unit impulses, ±1 tokens, unit-variance inputs,
normalized losses), so one bound serves them all: 10⁶ is far beyond any stable response and a few
dozen steps of growth away from an unstable one.
"""
from __future__ import annotations

import math

import numpy as np

DIVERGENCE_BOUND = 1e6


def is_diverged(value: float, bound: float = DIVERGENCE_BOUND) -> bool:
    """Whether one number (a loss, a norm) counts as diverged."""
    return not math.isfinite(value) or abs(value) > bound


def first_divergence(values: np.ndarray, bound: float = DIVERGENCE_BOUND) -> int | None:
    """Index of the first time step (axis 0) where any |value| > bound or is non-finite; None if never.

    values: (T,) or (T, ...) real or complex.
    """
    v = np.abs(np.asarray(values)).reshape(len(values), -1)
    bad = ~np.isfinite(v).all(axis=1) | (np.nan_to_num(v, nan=np.inf) > bound).any(axis=1)
    hits = np.flatnonzero(bad)
    return int(hits[0]) if hits.size else None


def stop_index(values: np.ndarray, bound: float = DIVERGENCE_BOUND) -> int:
    """How many leading steps to keep: all of them, or up to and including the first divergent one."""
    return kept_steps(len(values), first_divergence(values, bound))


def kept_steps(length: int, hit: int | None) -> int:
    """`stop_index` from a search already made (`hit`: `first_divergence`'s answer for `length` steps)."""
    return length if hit is None else hit + 1


def clip_to_bound(values: np.ndarray, bound: float = DIVERGENCE_BOUND) -> np.ndarray:
    """Values held inside ±bound for drawing (NaN → 0, ±inf → ±bound)."""
    return np.clip(np.nan_to_num(np.asarray(values, dtype=float), nan=0.0, posinf=bound, neginf=-bound), -bound, bound)

"""Where a growing response leaves the plotted range, so pages can stop there and say so."""
from __future__ import annotations

import numpy as np

DISPLAY_BOUND = 1e3  # |value| above this (or non-finite) counts as diverged for display


def first_divergence(values: np.ndarray, bound: float = DISPLAY_BOUND) -> int | None:
    """Index of the first time step (axis 0) where any |value| > bound or is non-finite; None if never.

    values: (T,) or (T, ...) real or complex.
    """
    v = np.abs(np.asarray(values)).reshape(len(values), -1)
    bad = ~np.isfinite(v).all(axis=1) | (np.nan_to_num(v, nan=np.inf) > bound).any(axis=1)
    hits = np.flatnonzero(bad)
    return int(hits[0]) if hits.size else None


def stop_index(values: np.ndarray, bound: float = DISPLAY_BOUND) -> int:
    """How many leading steps to keep: all of them, or up to and including the first divergent one."""
    hit = first_divergence(values, bound)
    return len(values) if hit is None else hit + 1

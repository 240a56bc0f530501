"""Continuous → discrete with python-control's `sample_system`.

ZOH maps every pole p to z = e^{pΔ} (stable ↔ inside the unit circle); bilinear
(Tustin) maps z = (1 + pΔ/2)/(1 - pΔ/2), which keeps the left half-plane inside the
disk for every Δ; forward Euler maps z = 1 + pΔ, stable only while Δ < 2|Re p|/|p|².
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields

import control
import numpy as np

METHODS = ("zoh", "bilinear", "euler")


def discretize(sys: control.StateSpace, dt: float, method: str) -> control.StateSpace:
    """Discrete-time version of `sys` with sample time dt (python-control `sample_system`)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if not dt > 0:
        raise ValueError(f"sample time dt must be positive, got {dt!r}")
    return control.sample_system(sys, dt, method=method)


def euler_stability_limit(poles: np.ndarray) -> float:
    """Largest Δ for which forward Euler keeps every pole inside the unit disk.

    |1 + pΔ| < 1  ⇔  Δ < -2 Re(p) / |p|².  0.0 if some pole is already unstable
    (Re p ≥ 0, p ≠ 0 never fits), inf if there are no nonzero poles.
    """
    limits = []
    for p in np.asarray(poles, dtype=complex).ravel():
        if p == 0:
            continue
        if p.real >= 0:
            return 0.0
        limits.append(-2.0 * p.real / abs(p) ** 2)
    return min(limits) if limits else math.inf


def exact_pole_map(s: np.ndarray, dt: float) -> np.ndarray:
    """z = e^{sΔ}, elementwise: where ZOH sends a continuous pole s."""
    return np.exp(np.asarray(s, dtype=complex) * dt)


def mapped_poles(s: np.ndarray, dt: float, method: str) -> np.ndarray:
    """Where each continuous pole s goes under `method`, elementwise and in the same order.

    zoh: e^{sΔ};  bilinear: (1 + sΔ/2)/(1 − sΔ/2);  euler: 1 + sΔ. (The discretized system's
    eigenvalues are these, but unordered; this keeps each z next to the p it came from.)
    """
    s = np.asarray(s, dtype=complex)
    if method == "zoh":
        return exact_pole_map(s, dt)
    if method == "bilinear":
        return (1 + s * dt / 2) / (1 - s * dt / 2)
    if method == "euler":
        return 1 + s * dt
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def pole_map_grid(dt: float, sigmas: np.ndarray, omegas: np.ndarray, points: int = 120):
    """Grid lines of the s-plane and their images under z = e^{sΔ}.

    Returns a list of (s_line, z_line), each (points,) complex: a vertical line Re s = σ
    (|Im s| ≤ π/Δ, one turn of the circle) per σ, and a horizontal line Im s = ω
    (min σ ≤ Re s ≤ 0) per ω.
    """
    w = np.linspace(-np.pi / dt, np.pi / dt, points)
    x = np.linspace(float(np.min(sigmas)), 0.0, points)
    s = np.concatenate([np.asarray(sigmas, dtype=float)[:, None] + 1j * w,       # all lines in one array: made on
                        x + 1j * np.asarray(omegas, dtype=float)[:, None]])     # every draw (`PoleMap.lines`)
    return list(zip(s, exact_pole_map(s, dt)))


def euler_stability_circle(dt: float, points: int = 200) -> np.ndarray:
    """Boundary of Euler's stable region in the s-plane, |1 + sΔ| = 1: circle at -1/Δ, radius 1/Δ."""
    phi = np.linspace(0, 2 * np.pi, points)
    return (-1.0 + np.exp(1j * phi)) / dt


@dataclass(frozen=True)
class PoleMap:
    """What the s-plane and z-plane pictures draw besides the poles, kept as the few numbers that fix it: the grid
    lines are made at their first use (both planes draw them) and kept, but never pickled
    (`__getstate__`), and Euler's disk is made on each use. A comparison then travels between processes (the
    preview worker sends a family's results to the web process, pickled) as a few numbers of grid here, not thousands of
    points, and a cache that measures it counts what it holds."""

    dt: float
    sigmas: np.ndarray            # Re s of the vertical grid lines
    omegas: np.ndarray            # Im s of the horizontal grid lines

    @functools.cached_property
    def lines(self) -> list:
        """[(s_line, z_line)]: s-plane grid lines and their images e^{sΔ}, each (points,) (`pole_map_grid`)."""
        return pole_map_grid(self.dt, self.sigmas, self.omegas)

    def __getstate__(self) -> dict:
        """The fields alone: the lines are made again after a trip, not sent."""
        return {field.name: getattr(self, field.name) for field in fields(self)}

    @property
    def euler_circle(self) -> np.ndarray:
        """(points,) boundary of Euler's stable disk |1 + sΔ| < 1 in the s-plane."""
        return euler_stability_circle(self.dt)


def pole_map_around(s_poles: np.ndarray, dt: float) -> PoleMap:
    """A grid that covers the poles: 5 vertical lines from 1.5 × the leftmost Re p (at least −0.75) to 0,
    and 9 horizontal lines over one turn of the circle, |Im s| ≤ π/Δ."""
    sigma_min = 1.5 * min(float(np.min(np.real(s_poles))), -0.5)
    sigmas = np.linspace(sigma_min, 0.0, 5)
    omegas = np.linspace(-np.pi / dt, np.pi / dt, 9)
    return PoleMap(dt=float(dt), sigmas=sigmas, omegas=omegas)

"""Lesson 2's preview family in one call: `compare_discretizations` at many sample steps Δ, one EOS scan for all.

Per Δ, four systems: the exact one (the spring with the signal generator of its input, ZOH: exact at every Δ)
and the spring discretized by ZOH, bilinear and Euler. Here every method's system is made autonomous too: its
input u is the exact generator's output, so the method runs beside the generator,

    [x; w]_t = [[A_m, B_m C_w], [0, A_w]] [x; w]_{t-1}        (A_w: the generator's exact ZOH)

which gives the method's response to the sampled input, as `eos_responses` computes it from u. Then all
4 × (number of Δ) systems, each with its own length, run as one batched scan (`lti_batch.state_readouts`).
A member equals `compare_discretizations` at its Δ to rounding (tests/dynamics/test_families.py).
"""
from __future__ import annotations

import control
import numpy as np

from ..divergence import DIVERGENCE_BOUND, first_divergence, kept_steps
from .discretize import METHODS, euler_stability_limit, mapped_poles, pole_map_around
from .discretize_comparison import DiscretizationComparison, MethodResult, _exosystem
from .lti_batch import gbt_many, state_readouts, zoh_many
from .spring import spring_mass_damper

GBT_ALPHA = {"bilinear": 0.5, "euler": 0.0}    # scipy's cont2discrete: Tustin is α = ½, forward Euler α = 0


def compare_discretizations_family(m: float, c: float, k: float, dts, *, input_kind: str = "release",
                                   frequency: float = 1.0, horizon: float = 20.0,
                                   bound: float = DIVERGENCE_BOUND) -> list[DiscretizationComparison]:
    """[`compare_discretizations(m, c, k, dt, ...)` for dt in dts]. Raises ValueError as it does."""
    sys = spring_mass_damper(m, c, k)
    dts = np.asarray(dts, dtype=float)
    if not np.all(dts > 0):
        raise ValueError(f"sample time dt must be positive, got {dts!r}")
    A, B, C = (np.asarray(M, dtype=float) for M in (sys.A, sys.B, sys.C))
    Aw, Cw, w0 = _exosystem(input_kind, frequency)
    n, nw, N = A.shape[0], Aw.shape[0], len(dts)
    lengths = [int(np.floor(horizon / dt)) + 1 for dt in dts]
    grids = [np.arange(T) * dt for T, dt in zip(lengths, dts)]
    x0 = np.array([1.0, 0.0]) if input_kind == "release" else np.zeros(2)

    # the exact system: spring + generator, ZOH (autonomous: no input column)
    A_aug = np.block([[A, B @ Cw], [np.zeros((nw, n)), Aw]])
    exact, _ = zoh_many(np.broadcast_to(A_aug, (N, n + nw, n + nw)), np.zeros((N, n + nw, 1)), dts)
    generator = exact[:, n:, n:]                                            # the generator's own exact step
    # the three methods, each beside the generator
    stack = dict(A=np.broadcast_to(A, (N, n, n)), B=np.broadcast_to(B, (N, n, 1)), C=np.broadcast_to(C, (N, 1, n)))
    discrete = {"zoh": (*zoh_many(stack["A"], stack["B"], dts), stack["C"], np.zeros((N, 1, 1)))}
    for method, alpha in GBT_ALPHA.items():
        discrete[method] = gbt_many(stack["A"], stack["B"], stack["C"], np.zeros((N, 1, 1)), dts, alpha)
    systems, readouts = [exact], [np.concatenate([np.broadcast_to(C, (N, 1, n)), np.zeros((N, 1, nw))], -1)]
    for method in METHODS:
        A_d, B_d, C_d, D_d = discrete[method]
        systems.append(np.block([[A_d, B_d @ Cw], [np.zeros((N, nw, n)), generator]]))
        readouts.append(np.concatenate([C_d, D_d @ Cw], -1))                # y = C_d x + D_d u, u = C_w w
    systems.append(exact)                                                   # once more, read for its input u
    readouts.append(np.broadcast_to(np.concatenate([np.zeros((1, n)), Cw], -1), (N, 1, n + nw)))
    T, size = max(lengths), n + nw
    out = state_readouts(np.concatenate(systems), np.zeros((5 * N, size)), np.zeros((5 * N, T)),
                         np.tile(np.concatenate([x0, w0]), (5 * N, 1)), np.concatenate(readouts)[None, :, 0, :],
                         np.tile(lengths, 5))[0].reshape(5, N, T)
    y, u = out[:4], out[4]                                                  # y: exact, zoh, bilinear, euler

    s_poles = np.sort_complex(np.asarray(control.poles(sys), dtype=complex))
    euler_limit = euler_stability_limit(s_poles)
    poles_by_method = {method: np.linalg.eigvals(discrete[method][0]).astype(complex) for method in METHODS}  # (N, n)
    family = []
    for j, (dt, t) in enumerate(zip(dts, grids)):
        T_j = len(t)
        y_exact = y[0, j, :T_j].copy()
        methods = {}
        for row, method in enumerate(METHODS, start=1):
            y_m = y[row, j, :T_j]
            hit = first_divergence(y_m, bound)
            keep = kept_steps(len(y_m), hit)
            poles = poles_by_method[method][j]
            radius = float(np.max(np.abs(poles)))
            methods[method] = MethodResult(
                method=method, poles=poles, mapped=mapped_poles(s_poles, dt, method), radius=radius,
                stable=radius < 1, y=y_m[:keep].copy(), error=np.abs(y_m[:keep] - y_exact[:keep]),
                diverged_at=None if hit is None else float(t[hit]))
        family.append(DiscretizationComparison(
            dt=float(dt), t=t, u=u[j, :T_j].copy(), y_exact=y_exact, s_poles=s_poles,
            z_exact=mapped_poles(s_poles, dt, "zoh"), methods=methods, euler_limit=euler_limit,
            pole_map=pole_map_around(s_poles, dt), bound=bound,
            precision=T_j * float(np.finfo(float).eps) * max(float(np.abs(y_exact).max()), 1e-300)))
    return family

"""Lesson 1's preview family in one call: `simulate_spring` at many (m, c, k), one EOS scan for all of them.

Each member keeps its own sample step (`sample_step`: finer when a pole is fast) and so its own time grid and
forcing; the scan runs them side by side as a batch (`lti_batch.state_readouts`), the shorter ones padded with
zero input past their end, which is cut off again. Everything else is `simulate_spring`'s own code per member,
so a member equals `simulate_spring` at its settings to rounding (tests/dynamics/test_families.py).
"""
from __future__ import annotations

import numpy as np

from ..divergence import DIVERGENCE_BOUND, first_divergence, kept_steps
from .forcing import forcing_signal
from .lti_batch import state_readouts, zoh_many
from .spring import check_spring, spring_energy, spring_matrices, spring_regime
from .spring_simulation import SpringSimulation, step_for_poles


def simulate_spring_family(m, c, k, forcing: str = "impulse", *, horizon: float = 30.0, dt: float = 0.05,
                           frequency: float = 1.0, period: float = 5.0,
                           bound: float = DIVERGENCE_BOUND) -> list[SpringSimulation]:
    """[`simulate_spring(m_j, c_j, k_j, forcing, ...)` for each j]: m, c, k are scalars or sequences, broadcast
    against each other (one of them is usually the swept setting). Raises ValueError as `simulate_spring` does
    (m ≤ 0, k < 0, an unknown forcing)."""
    ms, cs, ks = (np.atleast_1d(np.asarray(x, dtype=float)) for x in np.broadcast_arrays(m, c, k))
    for m_j, k_j in zip(ms, ks):
        check_spring(m_j, k_j)
    N = len(ms)
    A, B = spring_matrices(ms, cs, ks)
    regimes = [spring_regime(*params, poles=poles) for params, poles in zip(zip(ms, cs, ks), np.linalg.eigvals(A))]
    steps = np.array([step_for_poles(regime.poles, dt) for regime in regimes])
    lengths = [int(round(horizon / step)) + 1 for step in steps]
    grids = [np.arange(T) * step for T, step in zip(lengths, steps)]
    forces = [forcing_signal(forcing, t, frequency=frequency, period=period) for t in grids]
    u = np.zeros((N, max(lengths)))
    for j, f in enumerate(forces):
        u[j, :len(f)] = f
    A_d, B_d = zoh_many(A, B, steps)
    x_and_v = state_readouts(A_d, B_d[..., 0], u, np.zeros((N, 2)), np.broadcast_to(np.eye(2)[:, None], (2, N, 2)),
                             lengths)
    family = []
    for j, (t, f, regime) in enumerate(zip(grids, forces, regimes)):
        states = x_and_v[:, j, :len(t)].T                                            # (T_j, 2)
        hit = first_divergence(states, bound)
        keep = kept_steps(len(states), hit)
        x, v = states[:keep, 0], states[:keep, 1]
        which = None if hit is None else ("x" if not abs(states[hit, 0]) <= bound else "v")
        family.append(SpringSimulation(t=t[:keep], force=f[:keep], x=x.copy(), v=v.copy(),
                                       energy=spring_energy(x, v, ms[j], ks[j]), regime=regime,
                                       diverged_at=None if hit is None else float(t[hit]), bound=bound,
                                       diverged_in=which, dt=float(steps[j])))
    return family

"""A discrete LTI system run as an EOS layer.

    x_{t+1} = A x_t + B u_t,   y_t = C x_t + D u_t        (python-control's convention)

Diagonalize A = V Λ V⁻¹ and let z = V⁻¹ x. Each mode is then one EOS memory row with a
data-independent complex oscillation o = λ:

    m_t = λ ⊙ m_{t-1} + e_t i_tᵀ,   y_t = Re(m_tᵀ s_t)

with m_t = z_t, e = V⁻¹B (input column), i_t = u_{t-1}, s = (C V)ᵀ. Step 0 loads the
initial state (e_0 = V⁻¹x_0, i_0 = 1). A defective A (e.g. exact critical damping, a
Jordan block) has no eigenvector basis; it runs as a Type-2 EOS layer instead
(psi="matrix", o = A). Either way `eos_scan` computes the response.
"""
from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np
import torch

from ..scan import eos_scan

MAX_EIGVEC_CONDITION = 1e6  # above this, V is too ill-conditioned to trust (near-defective A)


@dataclass(frozen=True)
class DiagonalSystem:
    """A = V diag(eigenvalues) V⁻¹ for an n-state discrete system with m inputs, p outputs."""

    eigenvalues: np.ndarray   # (n,) complex, the EOS oscillation o
    eigvecs: np.ndarray       # (n, n) complex V
    input_map: np.ndarray     # (n, m) complex V⁻¹ B  (the expand state per input)
    output_map: np.ndarray    # (p, n) complex C V    (the shrink state per output)
    feedthrough: np.ndarray   # (p, m) real D


def diagonalize(sysd: control.StateSpace) -> DiagonalSystem | None:
    """Eigendecomposition of a discrete system, or None when A is (near) defective."""
    A, B, C, D = (np.asarray(M, dtype=float) for M in (sysd.A, sysd.B, sysd.C, sysd.D))
    lam, V = np.linalg.eig(A)
    if not np.all(np.isfinite(V)) or np.linalg.cond(V) > MAX_EIGVEC_CONDITION:
        return None
    Vinv = np.linalg.inv(V)
    return DiagonalSystem(eigenvalues=lam.astype(complex), eigvecs=V.astype(complex),
                          input_map=(Vinv @ B).astype(complex), output_map=(C @ V).astype(complex),
                          feedthrough=D)


def eos_response(sysd: control.StateSpace, u: np.ndarray, x0: np.ndarray | None = None, *, form: str = "auto"):
    """Forced response of a discrete system, computed by `eos_scan`.

    Parameters
    ----------
    sysd : discrete control.StateSpace with n states, m inputs, p outputs.
    u : (T,) or (T, m) input samples.
    x0 : optional (n,) initial state.
    form : eos_scan form: "recurrent", "chunked", or "auto" (the core's chooser, `lcsm_core.scan.choose`: the
        chunked scan for a long sequence of a few stable modes, the step-by-step reference otherwise).

    Returns
    -------
    y : (T, p) outputs, x : (T, n) states — equal to `control.forced_response(sysd, U=u.T, X0=x0)`.
    """
    A, B, C, D = (np.asarray(M, dtype=float) for M in (sysd.A, sysd.B, sysd.C, sysd.D))
    n, p = A.shape[0], C.shape[0]
    u = np.asarray(u, dtype=float).reshape(len(u), -1)                      # (T, m)
    T, m = u.shape
    x0 = np.zeros(n) if x0 is None else np.asarray(x0, dtype=float)
    readout = np.vstack([C, np.eye(n)])                                     # (p + n, n): y and every state
    diag = diagonalize(sysd)
    if diag is not None:
        Vinv = np.linalg.inv(diag.eigvecs)
        o, psi = torch.from_numpy(diag.eigenvalues[:, None]), "elementwise"  # (n, 1)
        expand_cols, load, shrink = diag.input_map, Vinv @ x0, readout @ diag.eigvecs
    else:
        o, psi = torch.from_numpy(A.astype(complex)), "matrix"               # (n, n)
        expand_cols, load, shrink = B.astype(complex), x0.astype(complex), readout.astype(complex)

    # batch over inputs j (superposition): e (m, T, n), i (m, T, 1)
    e = np.zeros((m, T, n), dtype=complex)
    e[:, 1:, :] = expand_cols.T[:, None, :]
    e[0, 0, :] = load
    i = np.zeros((m, T, 1))
    i[:, 1:, 0] = u[:-1].T
    i[0, 0, 0] = 1.0
    s = np.broadcast_to(shrink[:, None, None, :], (shrink.shape[0], 1, T, n))  # (p + n, 1, T, n)
    y = eos_scan(torch.from_numpy(i), torch.from_numpy(e), o, torch.from_numpy(np.ascontiguousarray(s)),
                 psi=psi, form=form)                                         # (p + n, m, T, 1)
    out = y[..., 0].sum(1).numpy().T                                        # (T, p + n)
    return out[:, :p] + u @ D.T, out[:, p:]


SIDE_BY_SIDE_GROWTH = 400.0   # ln of the largest |λ|^T a system may reach and still share a layer (e^400 ≈ 1e174)


def eos_responses(systems: list[control.StateSpace], u: np.ndarray, x0s: list | None = None, *,
                  form: str = "auto") -> list[tuple[np.ndarray, np.ndarray]]:
    """`eos_response` of several discrete systems driven by the same input, in one scan where it can.

    The diagonalizable systems run as one EOS layer: their modes side by side in one memory, each system's
    readout zero on the others' rows — the recurrent scan's cost is its loop over T, not the modes, so three
    systems cost about one. A defective system, or one whose modes grow past e^SIDE_BY_SIDE_GROWTH over T
    (an inf there would meet the others' zero readouts as NaN), runs alone.

    Parameters
    ----------
    systems : discrete control.StateSpace, each with the same number m of inputs.
    u : (T,) or (T, m) input samples, shared.
    x0s : optional initial state per system (each (n_j,) or None).

    Returns
    -------
    [(y (T, p_j), x (T, n_j))] in the order of `systems`, equal to `eos_response(systems[j], u, x0s[j])`.
    """
    u = np.asarray(u, dtype=float).reshape(len(u), -1)                      # (T, m)
    T, m = u.shape
    x0s = [None] * len(systems) if x0s is None else list(x0s)
    results: list = [None] * len(systems)
    shared = []
    for j, (sysd, x0) in enumerate(zip(systems, x0s)):
        diag = diagonalize(sysd)
        growth = T * np.log(max(float(np.max(np.abs(diag.eigenvalues))), 1e-300)) if diag is not None else np.inf
        if diag is None or growth > SIDE_BY_SIDE_GROWTH:
            results[j] = eos_response(sysd, u, x0, form=form)
        else:
            shared.append((j, sysd, diag, np.zeros(len(diag.eigenvalues)) if x0 is None else np.asarray(x0, float)))
    if not shared:
        return results
    sizes = [len(diag.eigenvalues) for _, _, diag, _ in shared]                      # n_j modes
    outputs = [np.asarray(sysd.C).shape[0] for _, sysd, _, _ in shared]             # p_j
    lam = np.concatenate([diag.eigenvalues for _, _, diag, _ in shared])            # (N,)
    N, R = len(lam), sum(p + n for p, n in zip(outputs, sizes))
    e = np.zeros((m, T, N), dtype=complex)
    e[:, 1:, :] = np.concatenate([diag.input_map for _, _, diag, _ in shared]).T[:, None, :]
    e[0, 0, :] = np.concatenate([np.linalg.inv(diag.eigvecs) @ x0 for _, _, diag, x0 in shared])
    i = np.zeros((m, T, 1))
    i[:, 1:, 0] = u[:-1].T
    i[0, 0, 0] = 1.0
    shrink = np.zeros((R, N), dtype=complex)                                        # block diagonal: exact zeros
    row = col = 0
    for (_, sysd, diag, _), p, n in zip(shared, outputs, sizes):
        readout = np.vstack([np.asarray(sysd.C, dtype=float), np.eye(n)])          # (p + n, n): y and each state
        shrink[row:row + p + n, col:col + n] = readout @ diag.eigvecs
        row, col = row + p + n, col + n
    s = np.broadcast_to(shrink[:, None, None, :], (R, 1, T, N))
    y = eos_scan(torch.from_numpy(i), torch.from_numpy(e), torch.from_numpy(lam[:, None]),
                 torch.from_numpy(np.ascontiguousarray(s)), form=form)
    out = y[..., 0].sum(1).numpy().T                                                # (T, R)
    row = 0
    for (j, sysd, _, _), p, n in zip(shared, outputs, sizes):
        block = out[:, row:row + p + n]
        results[j] = (block[:, :p] + u @ np.asarray(sysd.D, dtype=float).T, block[:, p:])
        row += p + n
    return results


def reference_response(sysd: control.StateSpace, u: np.ndarray, x0: np.ndarray | None = None):
    """The same response by `control.forced_response` (the oracle in tests): y (T, p), x (T, n)."""
    u = np.asarray(u, dtype=float).reshape(len(u), -1)
    T = np.arange(len(u)) * sysd.dt
    res = control.forced_response(sysd, T, u.T, X0=0 if x0 is None else x0, return_x=True)
    return np.atleast_2d(res.outputs).reshape(-1, len(u)).T, np.atleast_2d(res.states).T

"""Many small discrete LTI systems run at once: one EOS scan with a batch dimension over the systems.

The preview families of lessons 1 and 2 need the same few-state system at 15–25 values of one setting. Run one
at a time (`eos_bridge.eos_response`), each costs a scan's loop over T and a python-control discretization; here
the N systems are stacked and run as one Type-2 EOS layer (psi="matrix", o = A_d of each system):

    m_t = A_d m_{t-1} + e_t i_tᵀ,   e = B_d (input column), i_t = u_{t-1};   step 0 loads x_0 (e_0 = x_0, i_0 = 1)

so that m_t = x_t, the state, exactly as `eos_response` defines it, and each readout row r gives y_t = r · x_t.
The matrix form needs no eigendecomposition, so a defective A (exact critical damping) needs no second path.
Systems of different sizes are padded with zero states (rows and columns of zeros: they stay zero), and
sequences of different lengths with zero input (the caller cuts each system's own length back off).

The EOS scan is the reference here; a preview family runs the same block sums as the scan's chunked form in
numpy (`lti_blocks.block_states`, form="blocks": A is fixed, so a block's powers and impulse response serve
every block), several times faster than the scan — most of what a family's scan cost the preview worker.

The discretizations are python-control's (scipy's `cont2discrete`) written out for a stack of matrices:
ZOH by one batched matrix exponential, bilinear and Euler by the generalized bilinear transform. They equal
`discretize.discretize` to rounding (tests/dynamics/test_families.py).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
import torch

from ..scan import eos_scan
from .lti_blocks import block_states

MIN_CHUNK = 16  # the chunked matrix form's block: measured fastest for 2–4 states over 10²–10³ steps on a CPU; longer
                # scans use about √T (its cost is a loop over the block's steps plus one over the blocks)
GROUP_RATIO = 4   # systems whose lengths differ by more than this share no scan (padding would be most of it)


def zoh_many(A: np.ndarray, B: np.ndarray, dt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ZOH of N continuous systems: A (N, n, n), B (N, n, m), dt (N,) → A_d (N, n, n), B_d (N, n, m).

    exp([[A, B], [0, 0]] Δ) = [[A_d, B_d], [0, I]] (scipy's `cont2discrete`, one batched `expm`)."""
    N, n, m = B.shape
    block = np.zeros((N, n + m, n + m))
    block[:, :n, :n], block[:, :n, n:] = A, B
    E = scipy.linalg.expm(block * np.asarray(dt, dtype=float)[:, None, None])
    return E[:, :n, :n], E[:, :n, n:]


def gbt_many(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray, dt: np.ndarray, alpha: float):
    """The generalized bilinear transform of N systems (alpha 0: forward Euler, ½: bilinear/Tustin), as scipy's
    `cont2discrete` writes it: (A_d, B_d, C_d, D_d). Bilinear changes C and D too."""
    N, n, _ = A.shape
    dt = np.asarray(dt, dtype=float)[:, None, None]
    eye = np.broadcast_to(np.eye(n), A.shape)
    ima = eye - alpha * dt * A
    A_d = np.linalg.solve(ima, eye + (1.0 - alpha) * dt * A)
    B_d = np.linalg.solve(ima, dt * B)
    C_d = np.swapaxes(np.linalg.solve(np.swapaxes(ima, -1, -2), np.swapaxes(C, -1, -2)), -1, -2)
    D_d = D + alpha * (C @ B_d)
    return A_d, B_d, C_d, D_d


def length_groups(lengths, ratio: float = GROUP_RATIO) -> list[np.ndarray]:
    """Indices of the systems in groups of similar length (longest ≤ ratio × shortest), longest first: each group
    is one scan, padded only to its own longest (Δ from 0.02 to 2 s is 1001 to 11 steps)."""
    order = np.argsort(-np.asarray(lengths), kind="stable")
    groups, start = [], 0
    for n in range(1, len(order) + 1):
        if n == len(order) or lengths[order[start]] > ratio * lengths[order[n]]:
            groups.append(order[start:n])
            start = n
    return groups


def state_readouts(A_d: np.ndarray, B_d: np.ndarray, u: np.ndarray, x0: np.ndarray, readouts: np.ndarray,
                   lengths=None, *, form: str = "blocks") -> np.ndarray:
    """Readouts of N discrete systems' states, all in one `eos_scan`.

    Parameters
    ----------
    A_d : (N, n, n), B_d : (N, n) the input column of each system (one input).
    u : (N, T) each system's input samples; x0 : (N, n) initial states.
    readouts : (R, N, n): row r of system j reads r · x_t (e.g. C for the output, eye rows for the states).
    lengths : (N,) how many steps of each system are wanted (default all T): systems of very different lengths
        then run in a few scans (`length_groups`) instead of all padded to the longest.
    form : "blocks" (`lti_blocks.block_states`: the chunked scan's sums in numpy, the fast one here), or an
        `eos_scan` form: "chunked" (blocks of about √T steps side by side) or "recurrent" (the reference).

    Returns
    -------
    (R, N, T): readout r of system j's state x_t, t = 0..T-1, with x_t = A_d x_{t-1} + B_d u_{t-1}, x_0 given
    (`eos_bridge.eos_response`'s convention); zero past a system's `lengths`.
    """
    if lengths is None:
        return scan_states(A_d, B_d, u, x0, readouts, form)
    out = np.zeros((readouts.shape[0], *u.shape))
    for group in length_groups(lengths):
        T = int(max(lengths[j] for j in group))
        out[:, group, :T] = scan_states(A_d[group], B_d[group], u[group, :T], x0[group], readouts[:, group], form)
    np.copyto(out, 0.0, where=np.arange(u.shape[1]) >= np.asarray(lengths)[:, None])    # past each one's end
    return out


def scan_states(A_d, B_d, u, x0, readouts, form: str) -> np.ndarray:
    """`state_readouts` of systems that share one scan (padded to the longest)."""
    if form == "blocks":
        return np.einsum("rnk,ntk->rnt", readouts, block_states(A_d, B_d, u, x0))
    N, T = u.shape
    e = np.zeros((N, T, A_d.shape[-1]))
    e[:, 1:, :] = B_d[:, None, :]
    e[:, 0, :] = x0
    i = np.zeros((N, T, 1))
    i[:, 1:, 0] = u[:, :-1]
    i[:, 0, 0] = 1.0
    s = np.broadcast_to(readouts[:, :, None, :], (*readouts.shape[:2], T, readouts.shape[-1]))   # (R, N, T, n)
    y = eos_scan(torch.from_numpy(i), torch.from_numpy(e), torch.from_numpy(np.ascontiguousarray(A_d[:, None])),
                 torch.from_numpy(np.ascontiguousarray(s)), psi="matrix", form=form,
                 chunk_size=max(MIN_CHUNK, int(np.sqrt(T))))
    return y[..., 0].numpy()                                                 # (R, N, T)

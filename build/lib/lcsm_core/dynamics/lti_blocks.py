"""The states of many small discrete LTI systems, in blocks of about √T steps, by a few batched matrix products.

A preview family's systems all have a fixed A (time-invariant), so their states need no general scan: with
x_t = A x_{t-1} + b u_{t-1}, block k of L steps starting from its state c_k = x_{kL} is

    x_{kL+s} = A^s c_k + Σ_{r<s} A^{s-1-r} b u_{kL+r},      s = 0..L,

the powers A^0..A^L and the impulse response h_r = A^r b shared by every block of a system. Every block's
second (zero-state) part is one matrix product with the lower-triangular Toeplitz matrix of h over all blocks at
once; the blocks' starts follow one another, c_{k+1} = A^L c_k + (that part at s = L): a loop over about √T
blocks; then every state is one more product. This is the chunked EOS scan's arithmetic (`lcsm_core.scan`,
form="chunked") written in numpy for small n: the same sums, without the scan's general inputs (a time-varying A,
a batch of heads, autograd) — several times faster per scan of a preview family (benchmarks/family_cost.py).

`recurrent_states` beside it is the readable reference, one step at a time; tests/dynamics/test_lti_blocks.py
compares the two in fp64 (defective, unstable and input-free systems, lengths from 1 step on).
A block's sums never read another block's values, so a system that overflows past its wanted length (a padded
tail) leaves its earlier states finite, and one system never touches another's.
"""
from __future__ import annotations

import math

import numpy as np


def block_states(A: np.ndarray, b: np.ndarray, u: np.ndarray, x0: np.ndarray, block: int | None = None) -> np.ndarray:
    """States of N systems: A (N, n, n), b (N, n) the input column, u (N, T) inputs, x0 (N, n) → x (N, T, n) with
    x_0 = x0 and x_t = A x_{t-1} + b u_{t-1} (`eos_bridge.eos_response`'s convention). `block`: the block length
    (default ⌈√T⌉)."""
    N, T = u.shape
    n = A.shape[-1]
    L = block or math.isqrt(max(T, 1) - 1) + 1                          # ⌈√T⌉
    blocks = -(-T // L)
    powers = matrix_powers(A, L)                                            # (N, L + 1, n, n): A^0..A^L
    with np.errstate(over="ignore", invalid="ignore"):                      # a runaway system's padded tail
        forced = zero_state_parts(powers, b, u, L, blocks)                 # (N, blocks, L + 1, n) or None
        starts = np.empty((N, blocks, n))
        starts[:, 0] = x0
        for k in range(1, blocks):
            starts[:, k] = np.einsum("nij,nj->ni", powers[:, L], starts[:, k - 1])
            if forced is not None:
                starts[:, k] += forced[:, k - 1, L]
        # x_{kL+s} = A^s c_k: (N, L·n, n) @ (N, n, blocks) → (N, L, n, blocks)
        free = (powers[:, :L].reshape(N, L * n, n) @ starts.transpose(0, 2, 1)).reshape(N, L, n, blocks)
        x = free.transpose(0, 3, 1, 2)                                      # (N, blocks, L, n)
        if forced is not None:
            x = x + forced[:, :, :L]
    return x.reshape(N, blocks * L, n)[:, :T]


def matrix_powers(A: np.ndarray, L: int) -> np.ndarray:
    """(N, L + 1, n, n): A^0..A^L of each system, by doubling (A^{m+j} = A^j A^m)."""
    N, n, _ = A.shape
    powers = np.broadcast_to(np.eye(n), (N, 1, n, n))
    with np.errstate(over="ignore", invalid="ignore"):
        while powers.shape[1] < L + 1:
            top = powers[:, -1] @ A                                         # A^m, m = how many there are
            powers = np.concatenate([powers, powers @ top[:, None]], axis=1)
    return powers[:, :L + 1]


def zero_state_parts(powers: np.ndarray, b: np.ndarray, u: np.ndarray, L: int, blocks: int):
    """(N, blocks, L + 1, n): Σ_{r<s} A^{s-1-r} b u_{kL+r} per block k and step s (its start at zero), or None
    when no system has an input (a released or autonomous system: the states are A^s c_k alone)."""
    if not u.any():
        return None
    N, T = u.shape
    n = powers.shape[-1]
    h = (powers[:, :L] @ b[:, None, :, None])[..., 0]                       # (N, L, n): h_r = A^r b
    s, r = np.arange(L + 1)[:, None], np.arange(L)[None, :]
    lag = s - 1 - r                                                         # (L + 1, L): which h meets u_r at s
    toeplitz = np.where((lag >= 0)[None, :, :, None], h[:, np.clip(lag, 0, L - 1)], 0.0)  # (N, L+1, L, n)
    padded = np.zeros((N, blocks * L))
    padded[:, :T] = u
    # (N, (L+1)·n, L) @ (N, L, blocks): every block's sums in one product per system
    parts = toeplitz.transpose(0, 1, 3, 2).reshape(N, (L + 1) * n, L) @ padded.reshape(N, blocks, L).transpose(0, 2, 1)
    return parts.reshape(N, L + 1, n, blocks).transpose(0, 3, 1, 2)


def recurrent_states(A: np.ndarray, b: np.ndarray, u: np.ndarray, x0: np.ndarray) -> np.ndarray:
    """The reference: `block_states` one step at a time."""
    N, T = u.shape
    x = np.empty((N, T, A.shape[-1]))
    x[:, 0] = x0
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(1, T):
            x[:, t] = np.einsum("nij,nj->ni", A, x[:, t - 1]) + b * u[:, t - 1, None]
    return x

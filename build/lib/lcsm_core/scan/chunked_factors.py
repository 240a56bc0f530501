"""The chunked form of an elementwise oscillation given by its factors: o_t = r_t c_tᵀ with r_t a k-vector (or 1)
and c_t a d-vector (or 1). Covers a plain k-vector (c = 1), a d-vector (r = 1) and `Outer(k_part, d_part)`, and
never builds a (T, k, d) decay.

With cumulative log-decays from the block start, Lr_t = Σ_{u≤t} log r_u and Lc_t likewise, the decay from step
s to t is exp(Lr_t − Lr_s) exp(Lc_t − Lc_s)ᵀ, so inside a block

    y_t = e^{Lc_t} ⊙ Σ_{s≤t} A[t, s] (e^{−Lc_s} ⊙ i_s),   A[t, s] = (s_t ⊙ e^{Lr_t}) · (e_s ⊙ e^{−Lr_s})

(two matmuls over the block), the block adds U = Σ_s (e_s ⊙ e^{Lr_C − Lr_s})(i_s ⊙ e^{Lc_C − Lc_s})ᵀ and its
entering memory m0 reaches y_t as e^{Lc_t} ⊙ ((s_t ⊙ e^{Lr_t})ᵀ m0).

exp(−L) must stay in floating range: the block is halved until every |L| within a block is under the dtype's
limit (a row that forgets fast — an ALiBi rate near 1 per step, as the codes' gates start at k = 128 — fills
60 nats of float32 in ~63 steps, and a fixed 64-step block used to fall back to the exact O(C²·k) decays,
~19.5 s per training step at d = k = 128, T = 256, batch 64). Zeros and negative reals (log undefined) and
blocks that would need fewer than MIN_BLOCK steps return None: the caller runs the exact path.
"""
from __future__ import annotations

import torch

from .blocks import join_blocks, split_blocks

# |cumulative log-decay| within one block beyond which exp(−L) could overflow.
LOG_PATH_LIMIT = {torch.float16: 8.0, torch.bfloat16: 30.0, torch.float32: 60.0, torch.float64: 600.0,
                  torch.complex64: 60.0, torch.complex128: 600.0}
MIN_BLOCK = 4


def in_range(L: torch.Tensor | None) -> bool:
    """Every |Re L| under the limit; NaN (log of a negative real: max and min propagate it) and −inf (log 0) fail
    the comparison. Two reductions, no temporary the size of L."""
    if L is None or not L.numel():
        return True
    limit = LOG_PATH_LIMIT.get(L.dtype, 60.0)
    real = L.real
    return bool(real.amax() <= limit) and bool(real.amin() >= -limit)


def block_log_decays(log_r, log_c, T: int, chunk_size: int):
    """The largest block C ≤ chunk_size (halving) whose cumulative log-decays stay in range, and those decays
    (..., N, C, kr), (..., N, C, dc) (None for an absent factor); None when no C ≥ MIN_BLOCK does."""
    C = min(chunk_size, T)
    while True:
        Lr = None if log_r is None else torch.cumsum(split_blocks(log_r, C, -2, 0.0), dim=-2)
        Lc = None if log_c is None else torch.cumsum(split_blocks(log_c, C, -2, 0.0), dim=-2)
        if in_range(Lr) and in_range(Lc):
            return C, Lr, Lc
        if C <= MIN_BLOCK:
            return None
        C = max(MIN_BLOCK, C // 2)


def scan_chunked_factors(i, e, s, rows, cols, m, T: int, chunk_size: int):
    """i (..., T, d), e and s (..., T, k), rows (..., T, kr) or None, cols (..., T, dc) or None (kr ∈ {1, k},
    dc ∈ {1, d}), all in the state dtype and expanded to the batch; m (..., k, d) the entering memory.
    Returns (y (..., T, d), m_T), or None when the log path is unsafe (see the module docstring)."""
    log = lambda x: None if x is None else torch.log(x)
    found = block_log_decays(log(rows), log(cols), T, chunk_size)
    if found is None:
        return None
    C, Lr, Lc = found
    ib, eb, sb = (split_blocks(x, C, -2, 0.0) for x in (i, e, s))          # (..., N, C, .)
    causal = torch.ones(C, C, dtype=torch.bool, device=i.device).tril()
    reader, keys, to_end_r = sb, eb, None
    if Lr is not None:
        reader = sb * torch.exp(Lr)                                          # s_t ⊙ e^{Lr_t}
        keys = eb * torch.exp(-Lr)                                           # e_s ⊙ e^{−Lr_s}
        to_end_r = torch.exp(Lr[..., -1:, :] - Lr)                           # e^{Lr_C − Lr_s}
    values, gain, to_end_c = ib, None, None
    if Lc is not None:
        gain = torch.exp(Lc)                                                 # e^{Lc_t}
        values = ib * torch.exp(-Lc)
        to_end_c = torch.exp(Lc[..., -1:, :] - Lc)
    scores = (reader @ keys.transpose(-1, -2)).masked_fill(~causal, 0)
    y = scores @ values
    added = (eb if to_end_r is None else eb * to_end_r).transpose(-1, -2) @ (ib if to_end_c is None else ib * to_end_c)
    block_decay = 1.0
    if Lr is not None:
        block_decay = torch.exp(Lr[..., -1, :]).unsqueeze(-1)                # (..., N, kr, 1)
    if Lc is not None:
        block_decay = block_decay * torch.exp(Lc[..., -1, :]).unsqueeze(-2)  # (..., N, kr|1, dc)
    starts = []
    # unbind once: indexing block n of a tensor N times would make autograd zero-fill its full gradient per block
    decays = [1.0] * ib.shape[-3] if isinstance(block_decay, float) else block_decay.unbind(-3)
    for decay, add in zip(decays, added.unbind(-3)):                          # the only sequential loop: T / C steps
        starts.append(m)
        m = decay * m + add
    y = y + reader @ torch.stack(starts, dim=-3)                             # the memory entering each block
    if gain is not None:
        y = gain * y
    return join_blocks(y, T), m

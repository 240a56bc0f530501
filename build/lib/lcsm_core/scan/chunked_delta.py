"""The chunked form of the delta rule, o_t = I − β_t k_t k_tᵀ (`DeltaRule`), in WY/UT form: no k×k matrix.

Step by step, m_t = m_{t−1} − k_t u_tᵀ + e_t i_tᵀ with u_t = β_t m_{t−1}ᵀ k_t. Inside a block of C steps entering
with memory m0, m_{t−1} = m0 + Σ_{r<t} (e_r i_rᵀ − k_r u_rᵀ), so the rows u_t of U (C × d) satisfy

    (I + diag(β) tril₋₁(K Kᵀ)) U = diag(β) K m0 + diag(β) tril₋₁(K Eᵀ) I          (unit lower triangular)

One triangular solve per block gives U = W m0 + V with W = T⁻¹ diag(β) K (C × k) and V = T⁻¹ diag(β) tril₋₁(KEᵀ) I
(the UT transform: W and V are the block's WY factors), all blocks at once. Then

    y (C × d) = (S − tril(S Kᵀ) W) m0 + tril(S Eᵀ) I − tril(S Kᵀ) V
    m_C       = m0 − Kᵀ (W m0) + Eᵀ I − Kᵀ V

and only the last line runs block after block (T / C steps of k × d work). K, E, S (C × k), I (C × d); tril
keeps the diagonal, tril₋₁ does not. Padding steps have k = e = i = 0, β = 0: they leave the memory as it is.
fla's chunk_delta_rule has the same shape (there e = β k, the EOS form lets e be any k-vector).
"""
from __future__ import annotations

import torch

from .blocks import join_blocks, split_blocks


def scan_chunked_delta(i, e, s, keys, beta, m, T: int, chunk_size: int):
    """i (..., T, d); e, s, keys (..., T, k); beta (..., T, 1); m (..., k, d) the entering memory; all in the
    state dtype, expanded to the batch. Returns y (..., T, d), m_T."""
    C = min(chunk_size, T)
    ib, eb, sb, kb, bb = (split_blocks(x, C, -2, 0.0) for x in (i, e, s, keys, beta))    # (..., N, C, .)
    ones = torch.ones(C, C, dtype=torch.bool, device=i.device)
    strict, causal = ones.tril(-1), ones.tril()
    kkT = (kb @ kb.transpose(-1, -2)).masked_fill(~strict, 0)
    solve_matrix = torch.eye(C, dtype=kb.dtype, device=kb.device) + bb * kkT
    keT = (kb @ eb.transpose(-1, -2)).masked_fill(~strict, 0)
    rhs = torch.cat([bb * kb, bb * (keT @ ib)], dim=-1)                   # [diag(β) K | diag(β) tril₋₁(KEᵀ) I]
    solved = torch.linalg.solve_triangular(solve_matrix, rhs, upper=False, unitriangular=True)
    k = kb.shape[-1]
    W, V = solved[..., :k], solved[..., k:]
    sk = (sb @ kb.transpose(-1, -2)).masked_fill(~causal, 0)
    se = (sb @ eb.transpose(-1, -2)).masked_fill(~causal, 0)
    y = se @ ib - sk @ V
    reader = sb - sk @ W                                                   # reads the entering memory
    added = eb.transpose(-1, -2) @ ib - kb.transpose(-1, -2) @ V
    starts = []
    # unbind once: indexing block n N times would make autograd zero-fill a full-size gradient per block
    for keys_n, W_n, add in zip(kb.transpose(-1, -2).unbind(-3), W.unbind(-3), added.unbind(-3)):   # T / C steps
        starts.append(m)
        m = m - keys_n @ (W_n @ m) + add
    y = y + reader @ torch.stack(starts, dim=-3)
    return join_blocks(y, T), m

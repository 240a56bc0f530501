"""The attention-like form of one block of the elementwise EOS recurrence.

Inside a block of C steps that starts from memory m0:

    m_t = P_t ⊙ m0 + Σ_{s≤t} D[t, s] ⊙ e_s i_sᵀ,   P_t = Π_{r≤t} o_r,   D[t, s] = Π_{s<r≤t} o_r

so y_t = m_tᵀ s_t is a masked, decay-weighted attention over the block. The
parallel form is one block of length T; the chunked form is many blocks joined by
the recurrence on m0. Decays are built by cumulative products (not exp of
cumulative logs) so zero, negative and complex oscillations stay exact.
"""
from __future__ import annotations

import torch


def decay_matrix(o: torch.Tensor) -> torch.Tensor:
    """o (..., C, ko, do) -> D (..., C, C, ko, do), D[t, s] = Π_{s<r≤t} o_r for s ≤ t, else 0."""
    C = o.shape[-3]
    idx = torch.arange(C, device=o.device)
    later = (idx[:, None] > idx[None, :])                       # (C t, C s): r = t contributes when t > s
    o_ts = torch.where(later[..., None, None], o.unsqueeze(-3), torch.ones((), dtype=o.dtype, device=o.device))
    D = torch.cumprod(o_ts, dim=-4)                              # product over t of the (t, s) column
    keep = (idx[:, None] >= idx[None, :])[..., None, None]
    return D * keep


def block_outputs(i, e, o, s, D):
    """Intra-block outputs. i (..., C, d), e/s (..., C, k), o (..., C, ko, do), D from decay_matrix.

    Returns y (..., C, d) for a block that starts from zero memory.
    """
    ko, do = o.shape[-2], o.shape[-1]
    if do == 1:      # decay along k only: scores A[t, s] = Σ_n s_t[n] D[t,s,n] e_s[n], then A @ i
        A = torch.einsum("...tn,...tsn,...sn->...ts", s, D[..., 0], e)
        return A @ i
    if ko == 1:      # decay along d only: y_t[c] = Σ_s (s_t·e_s) D[t,s,c] i_s[c]
        G = s @ e.transpose(-1, -2)                               # (..., C, C)
        return torch.einsum("...ts,...tsc,...sc->...tc", G, D[..., 0, :], i)
    return torch.einsum("...tn,...tsnc,...sn,...sc->...tc", s, D, e, i)


def block_final_expand(i, e, D_last):
    """Σ_s D[C-1, s] ⊙ e_s i_sᵀ: what a block adds to the memory. D_last (..., C, ko, do) -> (..., k, d)."""
    if D_last.shape[-1] == 1:
        return (e * D_last[..., 0]).transpose(-1, -2) @ i
    return (D_last * e.unsqueeze(-1) * i.unsqueeze(-2)).sum(-3)


def carried_outputs(s, P, m0):
    """Contribution of the entering memory: y_t[c] = Σ_n s_t[n] P_t[n,c] m0[n,c].

    s (..., C, k), P (..., C, ko, do), m0 (..., k, d) -> (..., C, d)."""
    if P.shape[-1] == 1:
        return (s * P[..., 0]) @ m0
    if P.shape[-2] == 1:
        return P[..., 0, :] * (s @ m0)
    return torch.einsum("...tn,...tnc,...nc->...tc", s, P, m0)


def split_blocks(x: torch.Tensor, C: int, time_dim: int, pad: torch.Tensor | float) -> torch.Tensor:
    """Pad the time axis to a multiple of C and split it: (..., T, *rest) -> (..., N, C, *rest)."""
    T = x.shape[time_dim]
    n_pad = (-T) % C
    if n_pad:
        shape = list(x.shape)
        shape[time_dim] = n_pad
        filler = torch.as_tensor(pad, dtype=x.dtype, device=x.device).expand(shape)
        x = torch.cat([x, filler], dim=time_dim)
    new_shape = list(x.shape)
    new_shape[time_dim:time_dim + 1] = [x.shape[time_dim] // C, C]
    return x.reshape(new_shape)


def join_blocks(y: torch.Tensor, T: int) -> torch.Tensor:
    """(..., N, C, d) -> (..., T, d)."""
    # Sizes spelled out, not -1: reshape cannot infer a size when the batch is empty.
    return y.reshape(*y.shape[:-3], y.shape[-3] * y.shape[-2], y.shape[-1])[..., :T, :]

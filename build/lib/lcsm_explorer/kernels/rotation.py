"""Complex k-vector oscillation (LRPE, Cosformer, LRU: o_t = r_t e^{iθ_t} 1ᵀ, r > 0) on the tensor-core chunk
kernel: the rotation moves into the expand and shrink states, leaving a real decay over 2k rows.

Unrolled, m_t = Σ_{j≤t} diag(o_{j+1} ⋯ o_t) e_j i_jᵀ + diag(o_1 ⋯ o_t) m_0. With the phase φ_t = Σ_{τ≤t} θ_τ
the complex part of o_{j+1} ⋯ o_t is e^{i(φ_t − φ_j)}, so with q_t = s_t e^{iφ_t} and u_j = e_j e^{−iφ_j}

    y_t = Re(m_tᵀ s_t) = Σ_j (Re q_tᵀ D_tj Re u_j − Im q_tᵀ D_tj Im u_j) i_j + (the m_0 term alike),

D_tj = diag(r_{j+1} ⋯ r_t) real: a real scan with decay r on 2k rows,

    s' = [Re q, −Im q],   e' = [Re u, Im u],   g' = [r, r],   m_0' = [Re m_0, Im m_0],

whose memory M' gives back the complex one: m_T = e^{iφ_T} ⊙ (M'[:k] + i M'[k:]). This is the cos/sin
reweighting of Cosformer and LRPE, done for any r, per-step or static θ, and complex e, s (LRU's B and C).
The input i must be real (it is for all three). Everything around the chunk kernel is elementwise torch, so
autograd gives every gradient (through |o| and angle(o)); the phase is summed in fp64 and reduced mod 2π, so
long sequences keep their angles to fp32 precision.
"""
from __future__ import annotations

import math

import torch

from .chunk import run_chunk
from .utils import Flat


def rotation_eligible(flat: Flat) -> bool:
    """A complex k-vector or scalar o (decays along k only) with no zero entry, and a real input i.
    (Reads o's values: one device sync on CUDA.)"""
    o = flat.o
    return (o.is_complex() and o.shape[-1] == 1 and not flat.i.is_complex() and bool((o.abs() > 0).all()))


def _phase(o: torch.Tensor, B: int, T: int, K: int) -> torch.Tensor:
    """φ (B, T, k): the running sum of angle(o) over time, fp64 then mod 2π, in fp32."""
    theta = torch.angle(o).squeeze(-1).double()                   # (Bo, T|1, k|1)
    if theta.shape[1] == 1:                                        # static: φ_t = t θ
        steps = torch.arange(1, T + 1, dtype=torch.float64, device=o.device)[None, :, None]
        phi = steps * theta
    else:
        phi = theta.cumsum(1)
    return torch.remainder(phi, 2 * math.pi).float().expand(B, T, K)


def run_rotation(flat: Flat):
    """Flattened states with a complex o (Bo, T|1, k|1, 1) and real i → fp32 y (B, T, d), complex64 m_T (B, k, d)."""
    B, T, _ = flat.i.shape
    K = flat.e.shape[-1]
    phi = _phase(flat.o, B, T, K)
    turn = torch.polar(torch.ones_like(phi), phi)                  # e^{iφ}
    q = flat.s * turn
    u = flat.e * turn.conj()
    s2 = torch.cat([q.real, -q.imag], -1)
    e2 = torch.cat([u.real, u.imag], -1)
    r = flat.o.abs().expand(*flat.o.shape[:2], K, 1)
    g2 = torch.cat([r, r], -2)                                     # (Bo, T|1, 2k, 1)
    m0 = None
    if flat.m0 is not None:
        m0c = flat.m0 if flat.m0.is_complex() else torch.complex(flat.m0, torch.zeros_like(flat.m0))
        m0 = torch.cat([m0c.real, m0c.imag], -2)
    dtype = flat.i.dtype if flat.i.dtype in (torch.float16, torch.bfloat16) else torch.float32
    y, m2 = run_chunk(Flat(i=flat.i, e=e2.to(dtype), o=g2, s=s2.to(dtype), m0=m0, B=B))
    mT = turn[:, -1, :, None] * torch.complex(m2[:, :K], m2[:, K:])
    return y, mT

"""Backward of the chunked (WY/UT) delta-rule forward in kernels/delta.py, of the same shape: one sequential walk
over the chunks in Triton, everything else per chunk in parallel as batched matmuls.

Per chunk, with H the memory entering it, H' the one leaving it and the forward's factors (delta.WY):
    X = −(P H + G V),   Y = S H + Asw X + Ase V,   H' = H + Wᵀ X + Eᵀ V,
    P = Tinv diag(β) W,  G = Tinv diag(β) Lwe,  Tinv = (I + diag(β) Lww)⁻¹,  Lww = tril₋(W Wᵀ), Lwe = tril₋(W Eᵀ).

Walk (`_walk`, reverse, (batch, value block) programs, tensor-core dots): dH' of each chunk is stored, then
    dX = Aswᵀ dY + W dH',   dH = Sᵀ dY + dH' − Pᵀ dX.
Per chunk, in parallel (torch, fp32):
    dV = Aseᵀ dY + E dH' − Gᵀ dX;   dAsw = tril(dY Xᵀ), dAse = tril(dY Vᵀ);   dS = dY Hᵀ + dAsw W + dAse E
    dW = dAswᵀ S + X dH'ᵀ,  dE = dAseᵀ S + V dH'ᵀ;   dP = −dX Hᵀ, dG = −dX Vᵀ
    through F = Tinv R (R = [βW | βLwe], F = [P | G]):  dR = Tinvᵀ dF,  d(diag(β) Lww) = tril₋(−Tinvᵀ dF Fᵀ)
    then β, W and E collect their parts of R and Lww, Lwe (dW += (dLww + dLwwᵀ) W + dLwe E, dE += dLweᵀ W).
A fused Triton kernel for the per-chunk part is the next step; as batched matmuls it already runs on tensor cores.
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl

from .delta import CHUNK, CHUNK_WARPS, STATE_STAGES, WY, _blocks, dot_dtype
from .slices import memory_slice
from .utils import DELTA_DOT_PRECISION, operand_dtype


@triton.jit
def delta_chunk_bwd_walk_kernel(
    w, s, P, Asw, dy, dmT, dHn, dX, dm0, T, K, D, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr,
    PREC: tl.constexpr, HAS_M0: tl.constexpr,
):
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    w, s, P, Asw = w + i_b * T * K, s + i_b * T * K, P + i_b * T * K, Asw + i_b * T * C
    dy, dX, dHn = dy + i_b * T * D, dX + i_b * T * D, dHn + i_b * NC * K * D
    oc = tl.arange(0, C)
    b_dh = tl.load(dmT + i_b * K * D + p_kv, mask=mkv, other=0.)
    for i_c in range(NC):
        c = NC - 1 - i_c
        tl.store(dHn + c * K * D + p_kv, b_dh, mask=mkv)    # ∂L/∂(memory after chunk c)
        ot = c * C + oc
        mt = ot < T
        m_tk = mt[:, None] & mk[None, :]
        m_tv = mt[:, None] & mv[None, :]
        p_tk = ot[:, None] * K + ok[None, :]
        p_tv = ot[:, None] * D + ov[None, :]
        b_dy = tl.load(dy + p_tv, mask=m_tv, other=0.).to(DT).to(OP)
        b_w = tl.load(w + p_tk, mask=m_tk, other=0.).to(DT).to(OP)
        b_A = tl.load(Asw + ot[:, None] * C + oc[None, :], mask=mt[:, None], other=0.).to(DT).to(OP)
        b_dx = tl.dot(tl.trans(b_A), b_dy, input_precision=PREC) + tl.dot(b_w, b_dh.to(DT).to(OP),
                                                                          input_precision=PREC)
        tl.store(dX + p_tv, b_dx, mask=m_tv)
        b_s = tl.load(s + p_tk, mask=m_tk, other=0.).to(DT).to(OP)
        b_p = tl.load(P + p_tk, mask=m_tk, other=0.).to(DT).to(OP)
        b_dh += tl.dot(tl.trans(b_s), b_dy, input_precision=PREC)
        b_dh -= tl.dot(tl.trans(b_p), b_dx.to(DT).to(OP), input_precision=PREC)
    if HAS_M0:
        tl.store(dm0 + i_b * K * D + p_kv, b_dh, mask=mkv)


def _chunks(x: torch.Tensor, NC: int) -> torch.Tensor:
    """(B, T, ...) fp32 → (B, NC, C, ...), zero-padded to whole chunks."""
    B, T = x.shape[:2]
    pad = [0, 0] * (x.ndim - 2) + [0, NC * CHUNK - T]
    return torch.nn.functional.pad(x.float(), pad).view(B, NC, CHUNK, *x.shape[2:])


def delta_wy_bwd(i, e, w, beta, s, has_m0: bool, ck, wy: WY, dy, dmT):
    """fp32 gradients (di, de, dw, dbeta, ds, dm0) of the chunked forward; ck (B, NC, k, d) its chunk-start
    memories, wy its factors."""
    B, T, D = i.shape
    K = e.shape[-1]
    BK, BV, NV = _blocks(K, D)
    NC = triton.cdiv(T, CHUNK)
    f32 = dict(dtype=torch.float32, device=i.device)
    dHn, dm0 = torch.empty(B, NC, K, D, **f32), torch.empty(B, K, D, **f32)
    dX = torch.empty(B, T, D, **f32)
    DT = dot_dtype(i)
    delta_chunk_bwd_walk_kernel[(B, NV)](w, s, wy.P, wy.Asw, dy, dmT, dHn, dX, dm0, T, K, D, NC, C=CHUNK, BK=BK,
                                         BV=BV, DT=DT, OP=operand_dtype(DT), PREC=DELTA_DOT_PRECISION,
                                         HAS_M0=has_m0, num_warps=CHUNK_WARPS, num_stages=STATE_STAGES)
    W, E, S = (_chunks(x, NC) for x in (w, e, s))                    # (B, NC, C, k)
    V, dY, X, dXc = (_chunks(x, NC) for x in (i, dy, wy.X, dX))       # (B, NC, C, d)
    P = _chunks(wy.P, NC)
    G, Asw, Ase = (_chunks(x, NC) for x in (wy.G, wy.Asw, wy.Ase))   # (B, NC, C, C)
    bt = _chunks(beta, NC)[..., None]                                  # (B, NC, C, 1)
    H = ck.float()
    tr = lambda x: x.transpose(-1, -2)  # noqa: E731
    ones = torch.ones(CHUNK, CHUNK, dtype=torch.bool, device=i.device)
    lower, strict = ones.tril(), ones.tril(-1)

    Lww = (W @ tr(W)).masked_fill(~strict, 0)
    Lwe = (W @ tr(E)).masked_fill(~strict, 0)
    # Tinv again (one batched triangular solve; storing it from the prep kernel cost that kernel registers)
    eye = torch.eye(CHUNK, device=i.device)
    Ti = torch.linalg.solve_triangular(eye + bt * Lww, eye.expand_as(Lww), upper=False, unitriangular=True)

    dV = tr(Ase) @ dY + E @ dHn - tr(G) @ dXc
    dAsw = (dY @ tr(X)).masked_fill(~lower, 0)
    dAse = (dY @ tr(V)).masked_fill(~lower, 0)
    dS = dY @ tr(H) + dAsw @ W + dAse @ E
    dW = tr(dAsw) @ S + X @ tr(dHn)
    dE = tr(dAse) @ S + V @ tr(dHn)
    dP, dG = -dXc @ tr(H), -dXc @ tr(V)
    dRw, dRe = tr(Ti) @ dP, tr(Ti) @ dG                                # d(βW), d(β Lwe)
    dN = (-tr(Ti) @ (dP @ tr(P) + dG @ tr(G))).masked_fill(~strict, 0)  # d(diag(β) Lww)
    dRe = dRe.masked_fill(~strict, 0)
    dbeta = (dN * Lww).sum(-1) + (dRw * W).sum(-1) + (dRe * Lwe).sum(-1)
    dLww, dLwe = bt * dN, bt * dRe
    dW = dW + (dLww + tr(dLww)) @ W + bt * dRw + dLwe @ E
    dE = dE + tr(dLwe) @ W

    def rows(x):
        return x.reshape(B, NC * CHUNK, *x.shape[3:])[:, :T]

    return (rows(dV), rows(dE), rows(dW), rows(dbeta), rows(dS), dm0 if has_m0 else None)

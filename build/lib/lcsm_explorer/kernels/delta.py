"""Structured delta rule (DeltaNet / FWP, M1, M2): the oscillation o_t = I − β_t w_t w_tᵀ arrives as its
parts (w_t, β_t), never as a k×k matrix per step.

    m_t = m_{t−1} − β_t w_t (w_tᵀ m_{t−1}) + e_t i_tᵀ          y_t = m_tᵀ s_t

(DeltaNet: w = key, e = β key, i = value, s = query.) Two forward forms, each with its backward:

- fused recurrent: one program holds a (k, BV) slice of m in fp32 registers and walks the sequence once;
  per step it reads four k-vectors and a scalar instead of a k×k matrix (inference, short sequences).
- chunked (WY/UT form, training): inside a chunk of C steps starting from memory H, unrolling the step gives
  m_t = H + Σ_{j≤t} (w_j x_jᵀ + e_j i_jᵀ) with x_j = −β_j m_{j−1}ᵀ w_j, i.e. for the chunk's rows
      (I + diag(β) tril₋(W Wᵀ)) X = −diag(β) (W H + tril₋(W Eᵀ) V)
  (tril₋: strictly lower). With Tinv the inverse of the unit lower-triangular matrix on the left,
      X = −(P H + G V),  P = Tinv diag(β) W  (C×k),  G = Tinv diag(β) tril₋(W Eᵀ)  (C×C)
      Y = S H + tril(S Wᵀ) X + tril(S Eᵀ) V,       H' = H + Wᵀ X + Eᵀ V.
  `_prep` builds P, G and the two score matrices for every chunk in parallel (they do not depend on the
  values, so once per chunk, shared by every value block); `_state` walks the chunks in order holding a
  (k, BV) slice of H (X and H only); `_out` forms Y for every (chunk, value block) in parallel. Every line is a
  tensor-core matmul (operands in the inputs' 16-bit dtype with fp32 accumulation; fp32 inputs at
  DELTA_DOT_PRECISION: tf32, which fits in registers where tf32x3 spills).
  Its backward is the chunked WY backward of the same shape (delta_wy.py).
- recurrent backward (after the fused forward): the forward saves the memory every CK steps; the backward
  recomputes a segment's memories into a per-program scratch buffer, then runs the adjoint step, last step
  first (o_t is symmetric, so dm_{t−1} = dm_t − β_t w_t (w_tᵀ dm_t)):
      dβ_t = −Σ_d (w_tᵀ dm_t)(w_tᵀ m_{t−1}),  dw_t = −β_t (dm_t (m_{t−1}ᵀ w_t) + m_{t−1} (dm_tᵀ w_t)).
"""
from __future__ import annotations

from typing import NamedTuple

import torch
import triton
import triton.language as tl
from torch.autograd.function import once_differentiable

from .slices import memory_slice, scratch_slice
from .utils import (
    DELTA_DOT_PRECISION,
    check_checkpoint,
    check_device,
    check_offsets,
    next_pow2,
    num_warps,
    operand_dtype,
)

CHUNK = 64   # the chunked form's C: four 16-row tensor-core tiles


class WY(NamedTuple):
    """What the chunked forward leaves for its backward, per step row (B, T, ·): P = Tinv diag(β) W (k wide),
    G = Tinv diag(β) tril₋(W Eᵀ), Asw = tril(S Wᵀ), Ase = tril(S Eᵀ) (C wide), X (d wide)."""

    P: torch.Tensor
    G: torch.Tensor
    Asw: torch.Tensor
    Ase: torch.Tensor
    X: torch.Tensor

CHUNK_WARPS = 8   # k = 128, C = 64: the chunked kernels' tiles fit in registers with 8 warps (compile_check.py)
STATE_STAGES = 2  # the chunk walk prefetches one chunk ahead; Triton's default 3 spills 96 bytes at k = 128


@triton.jit
def delta_fused_fwd_kernel(
    i, e, w, beta, s, m0, y, mT, ck,
    T, K, D, NC,
    BK: tl.constexpr, BV: tl.constexpr, CK: tl.constexpr, HAS_M0: tl.constexpr, SAVE: tl.constexpr,
):
    # batch on grid dim 0 (no 65535 cap); int64 offsets for long sequences of wide states
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    b_m = tl.zeros([BK, BV], dtype=tl.float32)
    if HAS_M0:
        b_m += tl.load(m0 + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    for t in range(T):
        if SAVE:
            if t % CK == 0:   # memory before step t: where the backward restarts
                tl.store(ck + (i_b * NC + t // CK) * K * D + p_kv, b_m, mask=mkv)
        b_w = tl.load(w + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
        b_e = tl.load(e + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
        b_s = tl.load(s + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
        b_i = tl.load(i + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
        b_beta = tl.load(beta + i_b * T + t).to(tl.float32)
        b_u = tl.sum(b_w[:, None] * b_m, 0)                                   # wᵀ m   (BV)
        b_m = b_m - (b_beta * b_w)[:, None] * b_u[None, :] + b_e[:, None] * b_i[None, :]
        tl.store(y + (i_b * T + t) * D + ov, tl.sum(b_m * b_s[:, None], 0), mask=mv)
    tl.store(mT + i_b * K * D + p_kv, b_m, mask=mkv)


@triton.jit
def delta_bwd_kernel(
    i, e, w, beta, s, ck, dy, dmT, sc,
    di, de, dw, dbeta, ds, dm0,
    T, K, D, B, NC,
    BK: tl.constexpr, BV: tl.constexpr, CK: tl.constexpr, HAS_M0: tl.constexpr,
):
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    p_sc = scratch_slice(i_b, i_v, CK, BK, BV)

    b_dm = tl.load(dmT + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    for i_c in range(NC):
        c = NC - 1 - i_c
        t0 = c * CK
        L = tl.minimum(CK, T - t0)
        tl.debug_barrier()   # the previous segment's reads of the scratch are done before it is rewritten
        b_m = tl.load(ck + (i_b * NC + c) * K * D + p_kv, mask=mkv, other=0.)
        tl.store(sc + p_sc, b_m)
        for j in range(L):   # recompute m_{t0+1}, ..., m_{t0+L} into slots 1..L
            t = t0 + j
            b_w = tl.load(w + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_e = tl.load(e + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_i = tl.load(i + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_beta = tl.load(beta + i_b * T + t).to(tl.float32)
            b_u = tl.sum(b_w[:, None] * b_m, 0)
            b_m = b_m - (b_beta * b_w)[:, None] * b_u[None, :] + b_e[:, None] * b_i[None, :]
            tl.store(sc + p_sc + (j + 1) * BK * BV, b_m)
        tl.debug_barrier()   # each thread reads back its own writes; the barrier keeps that true
        for jj in range(L):  # the adjoint step, last step first; b_m holds m_t
            j = L - 1 - jj
            t = t0 + j
            b_w = tl.load(w + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_e = tl.load(e + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_s = tl.load(s + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_i = tl.load(i + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_dy = tl.load(dy + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_beta = tl.load(beta + i_b * T + t).to(tl.float32)
            b_p = tl.load(sc + p_sc + j * BK * BV)                   # m_{t-1}
            p_gk = ((i_v * B + i_b) * T + t) * K + ok                  # partial over d-blocks
            b_dm += b_s[:, None] * b_dy[None, :]                       # y_t = m_tᵀ s_t
            tl.store(ds + p_gk, tl.sum(b_m * b_dy[None, :], 1), mask=mk)
            tl.store(de + p_gk, tl.sum(b_dm * b_i[None, :], 1), mask=mk)
            tl.store(di + (i_b * T + t) * D + ov, tl.sum(b_dm * b_e[:, None], 0), mask=mv)
            b_u = tl.sum(b_w[:, None] * b_p, 0)                        # wᵀ m_{t-1}
            b_g = tl.sum(b_w[:, None] * b_dm, 0)                       # wᵀ dm_t
            tl.store(dbeta + (i_v * B + i_b) * T + t, -tl.sum(b_g * b_u, 0))
            tl.store(dw + p_gk, -b_beta * (tl.sum(b_dm * b_u[None, :], 1) + tl.sum(b_p * b_g[None, :], 1)),
                     mask=mk)
            b_dm = b_dm - (b_beta * b_w)[:, None] * b_g[None, :]        # oᵀ dm, o symmetric
            b_m = b_p
    if HAS_M0:
        tl.store(dm0 + i_b * K * D + p_kv, b_dm, mask=mkv)


@triton.jit
def delta_chunk_prep_kernel(
    e, w, beta, s, P, G, Asw, Ase, T, K,
    C: tl.constexpr, BK: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr, PREC: tl.constexpr,
):
    # One program per (batch, chunk), all in parallel: the value-independent parts of the WY form.
    # Offsets are int32 tiles from the sequence's int64 base: int64 (C, k) offset tiles live across the
    # substitution loop took the registers that spilled 48 bytes at k = 128 (tests/kernels/compile_check.py).
    i_b, c = tl.program_id(0).to(tl.int64), tl.program_id(1)
    ok = tl.arange(0, BK)
    oc = tl.arange(0, C)
    ot = c * C + oc
    mt = ot < T
    m_tk = mt[:, None] & (ok < K)[None, :]
    p_tk = ot[:, None] * K + ok[None, :]
    p_tc = ot[:, None] * C + oc[None, :]
    b_w = tl.load(w + i_b * T * K + p_tk, mask=m_tk, other=0.).to(DT).to(OP)
    b_e = tl.load(e + i_b * T * K + p_tk, mask=m_tk, other=0.).to(DT).to(OP)
    b_s = tl.load(s + i_b * T * K + p_tk, mask=m_tk, other=0.).to(DT).to(OP)
    b_beta = tl.load(beta + i_b * T + ot, mask=mt, other=0.).to(tl.float32)
    strict = oc[:, None] > oc[None, :]
    # Tinv = (I − N)⁻¹, N = −diag(β) tril₋(W Wᵀ), by forward substitution on Z = Tinv − I: row r of Z is
    # N_r + N_r Z, rows < r final. Z is kept transposed (column r = row r) so both reductions run along axis 1.
    b_Z = -b_beta[None, :] * tl.where(oc[:, None] < oc[None, :], tl.dot(b_w, tl.trans(b_w), input_precision=PREC),
                                      0.)
    for r in range(1, C):
        b_col = tl.sum(tl.where(oc[None, :] == r, b_Z, 0.), 1)
        b_col += tl.sum(b_Z * (b_col * (oc < r))[None, :], 1)
        b_Z = tl.where(oc[None, :] == r, b_col[:, None], b_Z)
    b_Tb = (tl.trans(b_Z) + tl.where(oc[:, None] == oc[None, :], 1., 0.)) * b_beta[None, :]   # Tinv diag(β)
    b_Awe = tl.where(strict, tl.dot(b_w, tl.trans(b_e), input_precision=PREC), 0.)
    b_P = tl.dot(b_Tb.to(DT).to(OP), b_w, input_precision=PREC)
    b_G = tl.dot(b_Tb.to(DT).to(OP), b_Awe.to(DT).to(OP), input_precision=PREC)
    lower = oc[:, None] >= oc[None, :]
    tl.store(P + i_b * T * K + p_tk, b_P, mask=m_tk)
    tl.store(G + i_b * T * C + p_tc, b_G, mask=mt[:, None])
    tl.store(Asw + i_b * T * C + p_tc, tl.where(lower, tl.dot(b_s, tl.trans(b_w), input_precision=PREC), 0.),
             mask=mt[:, None])
    tl.store(Ase + i_b * T * C + p_tc, tl.where(lower, tl.dot(b_s, tl.trans(b_e), input_precision=PREC), 0.),
             mask=mt[:, None])


@triton.jit
def delta_chunk_state_kernel(
    i, e, w, P, G, m0, X, mT, ck,
    T, K, D, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr,
    PREC: tl.constexpr, HAS_M0: tl.constexpr,
):
    # One program per (batch, value block) walks the chunks in order with H in fp32 registers: only what
    # needs the previous chunk (X and the next H); the outputs follow in parallel (`_out`).
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    i, X, e, w, P = i + i_b * T * D, X + i_b * T * D, e + i_b * T * K, w + i_b * T * K, P + i_b * T * K
    G, ck = G + i_b * T * C, ck + i_b * NC * K * D
    oc = tl.arange(0, C)
    b_h = tl.zeros([BK, BV], dtype=tl.float32)
    if HAS_M0:
        b_h += tl.load(m0 + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    for c in range(NC):
        tl.store(ck + c * K * D + p_kv, b_h, mask=mkv)   # H before the chunk
        ot = c * C + oc
        mt = ot < T
        m_tk = mt[:, None] & mk[None, :]
        m_tv = mt[:, None] & mv[None, :]
        p_tk = ot[:, None] * K + ok[None, :]
        p_tv = ot[:, None] * D + ov[None, :]
        b_v = tl.load(i + p_tv, mask=m_tv, other=0.).to(DT).to(OP)
        b_x = -(tl.dot(tl.load(P + p_tk, mask=m_tk, other=0.).to(DT).to(OP), b_h.to(DT).to(OP),
                       input_precision=PREC)
                + tl.dot(tl.load(G + ot[:, None] * C + oc[None, :], mask=mt[:, None],
                                 other=0.).to(DT).to(OP), b_v, input_precision=PREC))
        tl.store(X + p_tv, b_x, mask=m_tv)
        b_xd = b_x.to(DT).to(OP)
        b_h += tl.dot(tl.trans(tl.load(w + p_tk, mask=m_tk, other=0.).to(DT).to(OP)), b_xd, input_precision=PREC)
        b_h += tl.dot(tl.trans(tl.load(e + p_tk, mask=m_tk, other=0.).to(DT).to(OP)), b_v, input_precision=PREC)
    tl.store(mT + i_b * K * D + p_kv, b_h, mask=mkv)


@triton.jit
def delta_chunk_out_kernel(
    i, s, Asw, Ase, X, ck, y,
    T, K, D, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr,
    PREC: tl.constexpr,
):
    # One program per (batch, chunk, value block), all in parallel: Y = S H + tril(S Wᵀ) X + tril(S Eᵀ) V.
    i_b, c, i_v = tl.program_id(0).to(tl.int64), tl.program_id(1), tl.program_id(2)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    i, X, y, s = i + i_b * T * D, X + i_b * T * D, y + i_b * T * D, s + i_b * T * K
    Asw, Ase, ck = Asw + i_b * T * C, Ase + i_b * T * C, ck + i_b * NC * K * D
    ok = tl.arange(0, BK)
    ov = i_v * BV + tl.arange(0, BV)
    oc = tl.arange(0, C)
    ot = c * C + oc
    mk, mv, mt = ok < K, ov < D, ot < T
    m_tv = mt[:, None] & mv[None, :]
    p_tv = ot[:, None] * D + ov[None, :]
    p_tc = ot[:, None] * C + oc[None, :]
    b_h = tl.load(ck + c * K * D + ok[:, None] * D + ov[None, :], mask=mk[:, None] & mv[None, :],
                  other=0.)
    b_s = tl.load(s + ot[:, None] * K + ok[None, :], mask=mt[:, None] & mk[None, :], other=0.)
    b_y = tl.dot(b_s.to(DT).to(OP), b_h.to(DT).to(OP), input_precision=PREC)
    b_y += tl.dot(tl.load(Asw + p_tc, mask=mt[:, None], other=0.).to(DT).to(OP),
                  tl.load(X + p_tv, mask=m_tv, other=0.).to(DT).to(OP), input_precision=PREC)
    b_y += tl.dot(tl.load(Ase + p_tc, mask=mt[:, None], other=0.).to(DT).to(OP),
                  tl.load(i + p_tv, mask=m_tv, other=0.).to(DT).to(OP), input_precision=PREC)
    tl.store(y + p_tv, b_y, mask=m_tv)


def _blocks(K: int, D: int):
    BK = max(16, next_pow2(K))   # tl.dot needs every dim >= 16
    BV = 16                      # k = 128: a 128×16 slice of m per program stays in registers
    return BK, BV, triton.cdiv(D, BV)


def dot_dtype(x: torch.Tensor):
    """The tensor-core operand type: the inputs' 16-bit type, else fp32 (matmuls at DELTA_DOT_PRECISION)."""
    return {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16}.get(x.dtype, tl.float32)


def delta_fwd(i, e, w, beta, s, m0, *, chunked: bool, checkpoint: int, save: bool):
    """i (B, T, d), e/w/s (B, T, k), beta (B, T), m0 (B, k, d) or None; contiguous.
    Returns fp32 y (B, T, d), m_T (B, k, d), the saved memories (B, NC, k, d), their interval, and for the
    chunked form the per-chunk WY factors its backward reads (None otherwise)."""
    B, T, D = i.shape
    K = e.shape[-1]
    BK, BV, NV = _blocks(K, D)
    CK = CHUNK if chunked else checkpoint
    NC = triton.cdiv(T, CK)
    f32 = dict(dtype=torch.float32, device=i.device)
    y = torch.empty(B, T, D, **f32)
    mT = torch.empty(B, K, D, **f32)
    ck = torch.empty(B, NC, K, D, **f32) if save else mT
    if B == 0:   # an empty batch launches nothing (a zero-size grid is an error on CUDA)
        return y, mT, ck, CK, None
    m0_arg = m0 if m0 is not None else mT
    if not chunked:
        delta_fused_fwd_kernel[(B, NV)](i, e, w, beta, s, m0_arg, y, mT, ck, T, K, D, NC, BK=BK, BV=BV, CK=CK,
                                        HAS_M0=m0 is not None, SAVE=save, num_warps=num_warps(BK * BV))
        return y, mT, ck, CK, None
    DT = dot_dtype(i)
    OP = operand_dtype(DT)
    P = torch.empty(B, T, K, **f32)
    G, Asw, Ase = (torch.empty(B, T, CHUNK, **f32) for _ in range(3))
    delta_chunk_prep_kernel[(B, NC)](e, w, beta, s, P, G, Asw, Ase, T, K, C=CHUNK, BK=BK, DT=DT, OP=OP,
                                     PREC=DELTA_DOT_PRECISION, num_warps=CHUNK_WARPS)
    X = torch.empty(B, T, D, **f32)
    ck = ck if save else torch.empty(B, NC, K, D, **f32)   # the outputs read every chunk's H
    dots = dict(C=CHUNK, BK=BK, BV=BV, DT=DT, OP=OP, PREC=DELTA_DOT_PRECISION)
    delta_chunk_state_kernel[(B, NV)](i, e, w, P, G, m0_arg, X, mT, ck, T, K, D, NC, **dots,
                                      HAS_M0=m0 is not None, num_warps=CHUNK_WARPS, num_stages=STATE_STAGES)
    delta_chunk_out_kernel[(B, NC, NV)](i, s, Asw, Ase, X, ck, y, T, K, D, NC, **dots, num_warps=CHUNK_WARPS)
    return y, mT, ck, CK, WY(P, G, Asw, Ase, X)


def delta_bwd(i, e, w, beta, s, has_m0: bool, ck, CK: int, dy, dmT):
    """fp32 gradients (di, de, dw, dbeta, ds, dm0) from the memories saved every CK steps."""
    B, T, D = i.shape
    K = e.shape[-1]
    BK, BV, NV = _blocks(K, D)
    NC = triton.cdiv(T, CK)
    f32 = dict(dtype=torch.float32, device=i.device)
    di = torch.empty(B, T, D, **f32)
    de, dw, ds = (torch.empty(NV, B, T, K, **f32) for _ in range(3))
    dbeta = torch.empty(NV, B, T, **f32)
    dm0 = torch.empty(B, K, D, **f32)
    sc = torch.empty(B * NV, CK + 1, BK, BV, **f32)
    if B > 0:
        delta_bwd_kernel[(B, NV)](i, e, w, beta, s, ck, dy, dmT, sc, di, de, dw, dbeta, ds, dm0,
                                  T, K, D, B, NC, BK=BK, BV=BV, CK=CK, HAS_M0=has_m0,
                                  num_warps=num_warps(BK * BV))
    return di, de.sum(0), dw.sum(0), dbeta.sum(0), ds.sum(0), (dm0 if has_m0 else None)


class DeltaRuleFunction(torch.autograd.Function):
    """(i, e, w, beta, s, m0) → fp32 (y, m_T); backward: the chunked WY backward after the chunked forward
    (delta_wy.py), the recomputing recurrent one (delta_bwd) after the fused forward."""

    @staticmethod
    def forward(ctx, i, e, w, beta, s, m0, chunked, checkpoint):
        save = any(ctx.needs_input_grad)
        y, mT, ck, CK, wy = delta_fwd(i, e, w, beta, s, m0, chunked=chunked, checkpoint=checkpoint, save=save)
        ctx.save_for_backward(i, e, w, beta, s, ck, *(wy if wy is not None else ()))
        ctx.CK = CK
        ctx.m0_dtype = None if m0 is None else m0.dtype
        return y, mT

    @staticmethod
    @once_differentiable
    def backward(ctx, dy, dmT):
        i, e, w, beta, s, ck, *wy = ctx.saved_tensors
        has_m0 = ctx.m0_dtype is not None
        dy, dmT = dy.float().contiguous(), dmT.float().contiguous()
        if wy:
            from .delta_wy import delta_wy_bwd
            grads = delta_wy_bwd(i, e, w, beta, s, has_m0, ck, WY(*wy), dy, dmT)
        else:
            grads = delta_bwd(i, e, w, beta, s, has_m0, ck, ctx.CK, dy, dmT)
        di, de, dw, dbeta, ds, dm0 = grads
        return (di.to(i.dtype), de.to(e.dtype), dw.to(w.dtype), dbeta.to(beta.dtype), ds.to(s.dtype),
                None if dm0 is None else dm0.to(ctx.m0_dtype), None, None)


def run_delta(i, e, w, beta, s, m0=None, *, impl: str = "chunk", checkpoint: int = 32):
    """Flattened real states: i (B, T, d), e/w/s (B, T, k), beta (B, T), m0 (B, k, d) or None
    → fp32 y (B, T, d), m_T (B, k, d). impl "chunk" (WY form, training) or "fused_recurrent"."""
    if impl not in ("chunk", "fused_recurrent"):
        raise ValueError(f"impl must be 'chunk' or 'fused_recurrent', got {impl!r}")
    check_device(i, e, w, beta, s, m0)
    check_checkpoint(checkpoint)
    K, D = e.shape[-1], i.shape[-1]
    check_offsets(i.shape[1], K, D, CHUNK, -(-K * D // CHUNK))   # the last: the chunk-start memories, per step
    if any(x is not None and x.is_complex() for x in (i, e, w, beta, s, m0)):
        raise ValueError("the delta-rule kernels take real states only")
    m0 = None if m0 is None else m0.contiguous()
    return DeltaRuleFunction.apply(i.contiguous(), e.contiguous(), w.contiguous(), beta.contiguous(),
                                   s.contiguous(), m0, impl == "chunk", checkpoint)

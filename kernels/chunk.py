"""Chunked EOS scan for the k-vector-decay family, o_t = g_t 1ᵀ with g_t > 0
(GLA / GateLoop, RetNet / TNL, linear attention, HGRN with k = 1) — the training form.

With a_t = log g_t and b_t the running sum of a inside a chunk of C steps starting from
memory H (state before the chunk):

    y_t  = (s_t ⊙ e^{b_t})ᵀ H + Σ_{j≤t} A_tj i_j,     A_tj = Σ_k s_tk e_jk e^{b_tk − b_jk}
    H'   = e^{b_C} ⊙ H + Σ_j (e_j ⊙ e^{b_C − b_j}) i_jᵀ

Forward, two kernels: `_intra` builds the scores A for every chunk in parallel, one column
at a time so every exponent is b_t − b_j ≤ 0 for j ≤ t (never e^{−b}, which overflows for
sharp gates); `_state` holds a (k, BV) slice of H in fp32 registers and walks the chunks in
order, everything in it a matmul.

Backward, two kernels: `_state` walks the chunks in reverse from the saved chunk-start
memories (inter-chunk parts, di); `_intra` builds dA_tj = dy_t · i_j per chunk in parallel and
the intra-chunk parts of ds and de. The gradient of the log-gate follows from the others
(with dm the gradient of the memory):
    ∂L/∂a_t = Σ_d dm_t ⊙ g_t m_{t−1} = Σ_{τ≥t} (s_τ ⊙ ds_τ − e_τ ⊙ de_τ) + Σ_d dm_T ⊙ m_T
so it costs one reverse cumulative sum in torch; autograd of a = log o turns it into ∂L/∂o.
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl
from torch.autograd.function import once_differentiable

from .utils import Flat, check_device, next_pow2

CHUNK = 16   # tl.dot needs >= 16; small chunks keep the intra-chunk column loop short
# The matmuls here are 16-wide: exact fp32 ("ieee", FMA) fits in registers at k = 128, where
# tf32x3 spills (tests/kernels/compile_check.py), so this kernel always uses "ieee".


@triton.jit
def eos_chunk_fwd_kernel_intra(
    e, a, s, A, T, K,
    C: tl.constexpr, BK: tl.constexpr,
):
    # One program per (batch, chunk), all in parallel: the intra-chunk scores
    # A_tj = Σ_k s_tk e_jk e^{b_tk - b_jk} (j <= t), built one column j at a time so every
    # exponent is <= 0. They do not depend on i, so they are computed once, not per d-block.
    i_b, c = tl.program_id(0).to(tl.int64), tl.program_id(1)
    ok = tl.arange(0, BK)
    oc = tl.arange(0, C)
    mk = ok < K
    ot = c * C + oc
    mt = ot < T
    m_tk = mt[:, None] & mk[None, :]
    p_tk = (i_b * T + ot[:, None]) * K + ok[None, :]
    b_q = tl.load(s + p_tk, mask=m_tk, other=0.).to(tl.float32)               # shrink  (C, BK)
    b_b = tl.cumsum(tl.load(a + p_tk, mask=m_tk, other=0.).to(tl.float32), 0)  # log-gate, 0 past T
    b_A = tl.zeros([C, C], dtype=tl.float32)
    b_bj = tl.zeros([BK], dtype=tl.float32)
    for j in range(C):
        p_j = (i_b * T + c * C + j) * K + ok
        m_j = mk & (c * C + j + ok * 0 < T)   # a vector mask: the interpreter refuses a scalar one
        b_kj = tl.load(e + p_j, mask=m_j, other=0.).to(tl.float32)
        b_bj += tl.load(a + p_j, mask=m_j, other=0.).to(tl.float32)
        b_E = tl.exp(tl.where(oc[:, None] >= j, b_b - b_bj[None, :], float("-inf")))
        b_A += tl.where(oc[None, :] == j, tl.sum(b_q * b_kj[None, :] * b_E, 1)[:, None], 0.)
    tl.store(A + (i_b * T + ot[:, None]) * C + oc[None, :], b_A, mask=mt[:, None])


@triton.jit
def eos_chunk_fwd_kernel_state(
    i, e, a, s, A, m0, y, mT, ck,
    T, K, D, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr,
    HAS_M0: tl.constexpr, SAVE: tl.constexpr,
):
    # One program per (batch, d-block) walks the chunks in order with the memory H in fp32
    # registers; everything inside a chunk is a matmul.
    # batch on grid dim 0 (no 65535 cap); int64 offsets for long sequences of wide states
    i_b, i_v = tl.program_id(0).to(tl.int64), tl.program_id(1)
    ok = tl.arange(0, BK)
    ov = i_v * BV + tl.arange(0, BV)
    oc = tl.arange(0, C)
    mk, mv = ok < K, ov < D
    mkv = mk[:, None] & mv[None, :]
    p_kv = ok[:, None] * D + ov[None, :]

    b_h = tl.zeros([BK, BV], dtype=tl.float32)
    if HAS_M0:
        b_h += tl.load(m0 + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    for c in range(NC):
        if SAVE:   # memory before the chunk: where the backward restarts
            tl.store(ck + (i_b * NC + c) * K * D + p_kv, b_h, mask=mkv)
        ot = c * C + oc
        mt = ot < T
        p_tk = (i_b * T + ot[:, None]) * K + ok[None, :]
        m_tk = mt[:, None] & mk[None, :]
        m_tv = mt[:, None] & mv[None, :]
        b_q = tl.load(s + p_tk, mask=m_tk, other=0.).to(tl.float32)          # shrink  (C, BK)
        b_k = tl.load(e + p_tk, mask=m_tk, other=0.).to(tl.float32)          # expand  (C, BK)
        b_a = tl.load(a + p_tk, mask=m_tk, other=0.).to(tl.float32)          # log-gate, 0 past T
        b_v = tl.load(i + (i_b * T + ot[:, None]) * D + ov[None, :], mask=m_tv, other=0.).to(tl.float32)
        b_A = tl.load(A + (i_b * T + ot[:, None]) * C + oc[None, :], mask=mt[:, None], other=0.)
        b_b = tl.cumsum(b_a, 0)
        b_last = tl.sum(b_a, 0)                                               # b at the chunk's end
        b_y = tl.dot(b_q * tl.exp(b_b), b_h, input_precision="ieee") + tl.dot(b_A, b_v, input_precision="ieee")
        tl.store(y + (i_b * T + ot[:, None]) * D + ov[None, :], b_y, mask=m_tv)
        b_kd = b_k * tl.exp(b_last[None, :] - b_b)                            # e^{b_C - b_j} <= 1
        b_h = tl.exp(b_last)[:, None] * b_h + tl.dot(tl.trans(b_kd), b_v, input_precision="ieee")
    tl.store(mT + i_b * K * D + p_kv, b_h, mask=mkv)


@triton.jit
def eos_chunk_bwd_kernel_state(
    i, e, a, s, A, ck, dy, dmT,
    di, de, ds, dm0,
    T, K, D, B, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, HAS_M0: tl.constexpr,
):
    # The chunks in reverse with dH = ∂L/∂(memory after the chunk) in registers: the
    # inter-chunk parts of ds and de (partial per d-block) and all of di.
    i_b, i_v = tl.program_id(0).to(tl.int64), tl.program_id(1)
    ok = tl.arange(0, BK)
    ov = i_v * BV + tl.arange(0, BV)
    oc = tl.arange(0, C)
    mk, mv = ok < K, ov < D
    mkv = mk[:, None] & mv[None, :]
    p_kv = ok[:, None] * D + ov[None, :]

    b_dh = tl.load(dmT + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    for i_c in range(NC):
        c = NC - 1 - i_c
        b_h = tl.load(ck + (i_b * NC + c) * K * D + p_kv, mask=mkv, other=0.)
        ot = c * C + oc
        mt = ot < T
        p_tk = (i_b * T + ot[:, None]) * K + ok[None, :]
        p_tv = (i_b * T + ot[:, None]) * D + ov[None, :]
        m_tk = mt[:, None] & mk[None, :]
        m_tv = mt[:, None] & mv[None, :]
        b_q = tl.load(s + p_tk, mask=m_tk, other=0.).to(tl.float32)
        b_k = tl.load(e + p_tk, mask=m_tk, other=0.).to(tl.float32)
        b_a = tl.load(a + p_tk, mask=m_tk, other=0.).to(tl.float32)
        b_dy = tl.load(dy + p_tv, mask=m_tv, other=0.).to(tl.float32)
        b_A = tl.load(A + (i_b * T + ot[:, None]) * C + oc[None, :], mask=mt[:, None], other=0.)
        b_b = tl.cumsum(b_a, 0)
        b_last = tl.sum(b_a, 0)
        b_decay = tl.exp(b_last[None, :] - b_b)
        b_dq = tl.dot(b_dy, tl.trans(b_h), input_precision="ieee") * tl.exp(b_b)
        b_dk = tl.dot(tl.load(i + p_tv, mask=m_tv, other=0.).to(tl.float32), tl.trans(b_dh),
                      input_precision="ieee") * b_decay
        b_dv = tl.dot(tl.trans(b_A), b_dy, input_precision="ieee") + tl.dot(b_k * b_decay, b_dh,
                                                                             input_precision="ieee")
        p_part = ((i_v * B + i_b) * T + ot[:, None]) * K + ok[None, :]      # partial over d-blocks
        tl.store(ds + p_part, b_dq, mask=m_tk)
        tl.store(de + p_part, b_dk, mask=m_tk)
        tl.store(di + p_tv, b_dv, mask=m_tv)
        b_dh = tl.exp(b_last)[:, None] * b_dh + tl.dot(tl.trans(b_q * tl.exp(b_b)), b_dy, input_precision="ieee")
    if HAS_M0:
        tl.store(dm0 + i_b * K * D + p_kv, b_dh, mask=mkv)


@triton.jit
def eos_chunk_bwd_kernel_intra(
    i, e, a, s, dy, de, ds, T, K, D,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr,
):
    # One program per (batch, chunk), in parallel: dA_tj = dy_t · i_j over all of d, then the
    # intra-chunk parts of ds and de, column by column like the forward scores.
    i_b, c = tl.program_id(0).to(tl.int64), tl.program_id(1)
    ok = tl.arange(0, BK)
    oc = tl.arange(0, C)
    mk = ok < K
    ot = c * C + oc
    mt = ot < T
    m_tk = mt[:, None] & mk[None, :]
    p_tk = (i_b * T + ot[:, None]) * K + ok[None, :]
    b_dA = tl.zeros([C, C], dtype=tl.float32)
    for i_v in range(tl.cdiv(D, BV)):
        ov = i_v * BV + tl.arange(0, BV)
        m_tv = mt[:, None] & (ov < D)[None, :]
        p_tv = (i_b * T + ot[:, None]) * D + ov[None, :]
        b_dA += tl.dot(tl.load(dy + p_tv, mask=m_tv, other=0.).to(tl.float32),
                       tl.trans(tl.load(i + p_tv, mask=m_tv, other=0.).to(tl.float32)), input_precision="ieee")
    b_dA = tl.where(oc[:, None] >= oc[None, :], b_dA, 0.)
    b_b = tl.cumsum(tl.load(a + p_tk, mask=m_tk, other=0.).to(tl.float32), 0)
    b_dq = tl.zeros([C, BK], dtype=tl.float32)
    b_dk = tl.zeros([C, BK], dtype=tl.float32)
    b_bj = tl.zeros([BK], dtype=tl.float32)
    for j in range(C):
        p_j = (i_b * T + c * C + j) * K + ok
        m_j = mk & (c * C + j + ok * 0 < T)
        b_kj = tl.load(e + p_j, mask=m_j, other=0.).to(tl.float32)
        b_qj = tl.load(s + p_j, mask=m_j, other=0.).to(tl.float32)
        b_bj += tl.load(a + p_j, mask=m_j, other=0.).to(tl.float32)
        # column j: e^{b_t - b_j} for t >= j;   row j: e^{b_j - b_t} for t <= j
        b_E = tl.exp(tl.where(oc[:, None] >= j, b_b - b_bj[None, :], float("-inf")))
        b_F = tl.exp(tl.where(oc[:, None] <= j, b_bj[None, :] - b_b, float("-inf")))
        b_dA_col = tl.sum(tl.where(oc[None, :] == j, b_dA, 0.), 1)       # dA[:, j]
        b_dA_row = tl.sum(tl.where(oc[:, None] == j, b_dA, 0.), 0)       # dA[j, :]
        b_dq += b_dA_col[:, None] * b_kj[None, :] * b_E
        b_dk += b_dA_row[:, None] * b_qj[None, :] * b_F
    tl.store(ds + p_tk, b_dq, mask=m_tk)
    tl.store(de + p_tk, b_dk, mask=m_tk)


def _warps(BK: int) -> int:
    # a state program holds several (C, BK) tiles and H at once; 8 warps keep them in registers
    # at k = 128 (tests/kernels/compile_check.py)
    return 8 if BK >= 64 else 4


INTRA_WARPS = 4   # the per-chunk kernels fit in registers with 4 warps at k = 128


def _blocks(K: int, D: int):
    BK = max(16, next_pow2(K))
    BV = 16   # with 8 warps the k=128 forward stays in registers (tests/kernels/compile_check.py)
    return BK, BV, triton.cdiv(D, BV)


def chunk_eos_fwd(i, e, a, s, m0, save: bool):
    """i (B, T, d), e/s (B, T, k), a = log g (B, T, k) fp32, m0 (B, k, d) or None; contiguous.
    Returns fp32 y (B, T, d), m_T (B, k, d), the intra-chunk scores A (B, T, C) and the
    chunk-start memories (B, NC, k, d)."""
    B, T, D = i.shape
    K = e.shape[-1]
    BK, BV, NV = _blocks(K, D)
    NC = triton.cdiv(T, CHUNK)
    f32 = dict(dtype=torch.float32, device=i.device)
    y = torch.empty(B, T, D, **f32)
    mT = torch.empty(B, K, D, **f32)
    A = torch.empty(B, T, CHUNK, **f32)
    ck = torch.empty(B, NC, K, D, **f32) if save else mT
    if B > 0:   # an empty batch launches nothing (a zero-size grid is an error on CUDA)
        eos_chunk_fwd_kernel_intra[(B, NC)](e, a, s, A, T, K, C=CHUNK, BK=BK, num_warps=INTRA_WARPS)
        eos_chunk_fwd_kernel_state[(B, NV)](
            i, e, a, s, A, m0 if m0 is not None else mT, y, mT, ck, T, K, D, NC,
            C=CHUNK, BK=BK, BV=BV, HAS_M0=m0 is not None, SAVE=save, num_warps=_warps(BK),
        )
    return y, mT, A, ck


def chunk_eos_bwd(i, e, a, s, has_m0: bool, A, ck, mT, dy, dmT):
    """fp32 gradients (di, de, da, ds, dm0) of chunk_eos_fwd."""
    B, T, D = i.shape
    K = e.shape[-1]
    BK, BV, NV = _blocks(K, D)
    NC = triton.cdiv(T, CHUNK)
    f32 = dict(dtype=torch.float32, device=i.device)
    di = torch.empty(B, T, D, **f32)
    de = torch.empty(NV + 1, B, T, K, **f32)     # NV inter-chunk partials, then the intra-chunk part
    ds = torch.empty(NV + 1, B, T, K, **f32)
    dm0 = torch.empty(B, K, D, **f32)
    if B > 0:
        eos_chunk_bwd_kernel_state[(B, NV)](
            i, e, a, s, A, ck, dy, dmT, di, de, ds, dm0, T, K, D, B, NC,
            C=CHUNK, BK=BK, BV=BV, HAS_M0=has_m0, num_warps=_warps(BK),
        )
        eos_chunk_bwd_kernel_intra[(B, NC)](i, e, a, s, dy, de[NV], ds[NV], T, K, D,
                                            C=CHUNK, BK=BK, BV=BV, num_warps=INTRA_WARPS)
    de, ds = de.sum(0), ds.sum(0)
    # log-gate gradient from the identity in the module docstring (reverse cumsum over time)
    local = s.float() * ds - e.float() * de                                   # (B, T, k)
    da = local.flip(1).cumsum(1).flip(1) + (dmT * mT).sum(-1)[:, None, :]
    return di, de, da, ds, (dm0 if has_m0 else None)


class ChunkEOSFunction(torch.autograd.Function):
    """(i, e, a = log g, s, m0) → (y, m_T), all fp32 outputs; backward through chunk_eos_bwd."""

    @staticmethod
    def forward(ctx, i, e, a, s, m0):
        save = any(ctx.needs_input_grad)
        y, mT, A, ck = chunk_eos_fwd(i, e, a, s, m0, save)
        ctx.save_for_backward(i, e, a, s, A, ck, mT)
        ctx.m0_dtype = None if m0 is None else m0.dtype
        return y, mT

    @staticmethod
    @once_differentiable
    def backward(ctx, dy, dmT):
        i, e, a, s, A, ck, mT = ctx.saved_tensors
        di, de, da, ds, dm0 = chunk_eos_bwd(i, e, a, s, ctx.m0_dtype is not None, A, ck, mT,
                                            dy.float().contiguous(), dmT.float().contiguous())
        return (di.to(i.dtype), de.to(e.dtype), da, ds.to(s.dtype),
                None if dm0 is None else dm0.to(ctx.m0_dtype))


def chunk_eligible(o: torch.Tensor, psi: str = "elementwise") -> bool:
    """o = g 1ᵀ with real g > 0: decays along k only, and positive so log g exists.
    (Reads o's values: one device sync on CUDA.)"""
    return (psi == "elementwise" and not o.is_complex() and o.ndim >= 1 and o.shape[-1] == 1
            and bool((o > 0).all()))


def run_chunk(flat: Flat):
    """Flattened real states with o (Bo, T|1, k|1, 1) > 0 → fp32 y (B, T, d), m_T (B, k, d)."""
    check_device(flat.i, flat.e, flat.o, flat.s, flat.m0)
    B, T, _ = flat.i.shape
    K = flat.e.shape[-1]
    # the log-gate in fp32, broadcast to (B, T, k); autograd of log/expand turns ∂L/∂a into ∂L/∂o
    a = torch.log(flat.o.float()).squeeze(-1).expand(B, T, K).contiguous()
    m0 = None if flat.m0 is None else flat.m0.contiguous()
    return ChunkEOSFunction.apply(flat.i.contiguous(), flat.e.contiguous(), a, flat.s.contiguous(), m0)

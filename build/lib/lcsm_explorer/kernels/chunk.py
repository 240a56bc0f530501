"""Chunked EOS scan for the k-vector-decay family, o_t = g_t 1ᵀ with g_t > 0
(GLA / GateLoop, RetNet / TNL, linear attention, HGRN with k = 1) — the training form, on tensor cores.

With a_t = log g_t and b_t the running sum of a inside a chunk of C = 64 steps starting from memory H:

    y_t  = (s_t ⊙ e^{b_t})ᵀ H + Σ_{j≤t} A_tj i_j,     A_tj = Σ_k s_tk e_jk e^{b_tk − b_jk}
    H'   = e^{b_C} ⊙ H + Σ_j (e_j ⊙ e^{b_C − b_j}) i_jᵀ

Forward, three kernels:
- `_intra` (batch, chunk, sub-chunk of S = 16 rows), in parallel: row block r of the scores A. A block left of
  the diagonal (sub-chunk j < r) is one matmul, (s_r ⊙ e^{b_r − b_n}) (e_j ⊙ e^{b_n − b_j})ᵀ with b_n the log-decay
  at the last row n of sub-chunk j: every exponent ≤ 0 for gates ≤ 1, never e^{−b} (which overflows for sharp
  gates). The 16×16 diagonal block goes one column at a time (exponent b_t − b_j, t ≥ j). A does not depend on i:
  computed once per chunk, read by every value block.
- `_state` (batch, value block): walks the chunks in order with a (k, BV) slice of H in fp32 registers, storing H
  at every chunk start; one matmul per chunk.
- `_out` (batch, chunk, value block), in parallel: y = (s ⊙ e^{b}) H + A i, two matmuls.
Matmul operands are the inputs' 16-bit type with fp32 accumulation (bf16/fp16 inputs), or fp32 at CHUNK_DOT_PRECISION.

Backward, the same shape: `_dstate` walks the chunks in reverse with dH (gradient of the memory after the chunk)
and stores it per chunk; `_dv` and `_dqk` (batch, chunk, value block) give di and the inter-chunk parts of ds and
de (partial over value blocks; two kernels, as one spilled twice as much at k = 128); `_dscores` forms dA = dy iᵀ
per chunk; `_dintra` (batch, chunk, sub-chunk) the intra-chunk parts of ds and de, matmuls off the diagonal,
columns on it. The gradient of the log-gate follows from
the others (dm the gradient of the memory):
    ∂L/∂a_t = Σ_d dm_t ⊙ g_t m_{t−1} = Σ_{τ≥t} (s_τ ⊙ ds_τ − e_τ ⊙ de_τ) + Σ_d dm_T ⊙ m_T
so it costs one reverse cumulative sum in torch; autograd of a = log o turns it into ∂L/∂o.

b is computed in torch (a chunk-local cumsum, padded to whole chunks with a = 0 so the padding rows repeat the
chunk's last value and every exponent stays finite).
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl
from torch.autograd.function import once_differentiable

from .slices import memory_slice
from .utils import CHUNK_DOT_PRECISION, Flat, check_device, check_offsets, next_pow2, operand_dtype

CHUNK = 64       # steps per chunk: the inter-chunk walk is T / 64 matmuls long
SUB = 16         # sub-chunk rows: the smallest tensor-core tile; the diagonal 16×16 blocks go column by column
WARPS = 8        # k = 128: the chunk kernels' tiles stay in registers with 8 warps (compile_check.py)
STATE_STAGES = 2  # the chunk walks prefetch one chunk ahead; Triton's default 3 spills at k = 128


def intra_warps(x: torch.Tensor) -> int:
    """Warps of the forward scores kernel (`_intra`, 16-row tiles): 4, but 8 for fp32 inputs, whose tf32x3 dots
    spilled 296 bytes at k = 128 with 4 (none with 8; compile_check.py)."""
    return 8 if x.dtype == torch.float32 else 4


@triton.jit
def eos_chunk_fwd_kernel_intra(
    e, b, s, A, T, K, NC,
    C: tl.constexpr, S: tl.constexpr, BK: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr, PREC: tl.constexpr,
):
    i_b, c, r = tl.program_id(0).to(tl.int64), tl.program_id(1), tl.program_id(2)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    e, s = e + i_b * T * K, s + i_b * T * K
    b, A = b + i_b * NC * C * K, A + i_b * T * C   # b is padded to whole chunks
    ok, os = tl.arange(0, BK), tl.arange(0, S)
    mk = ok < K
    t_r = c * C + r * S + os                      # this program's rows
    m_r = t_r < T
    b_q = tl.load(s + t_r[:, None] * K + ok[None, :], mask=m_r[:, None] & mk[None, :], other=0.)
    b_br = tl.load(b + t_r[:, None] * K + ok[None, :], mask=mk[None, :], other=0.)
    p_A = A + t_r[:, None] * C + os[None, :]
    for j in range(r):                            # blocks left of the diagonal: one matmul each
        t_j = c * C + j * S + os
        b_n = tl.load(b + (c * C + j * S + S - 1) * K + ok, mask=mk, other=0.)
        b_k = tl.load(e + t_j[:, None] * K + ok[None, :], mask=(t_j < T)[:, None] & mk[None, :], other=0.)
        b_bj = tl.load(b + t_j[:, None] * K + ok[None, :], mask=mk[None, :], other=0.)
        b_qd = (b_q * tl.exp(b_br - b_n[None, :])).to(DT).to(OP)
        b_kd = (b_k * tl.exp(b_n[None, :] - b_bj)).to(DT).to(OP)
        tl.store(p_A + j * S, tl.dot(b_qd, tl.trans(b_kd), input_precision=PREC), mask=m_r[:, None])
    b_Ad = tl.zeros([S, S], dtype=tl.float32)     # the diagonal block, one column at a time
    for jj in range(S):
        t_j = c * C + r * S + jj
        b_kj = tl.load(e + t_j * K + ok, mask=mk & (t_j + ok * 0 < T), other=0.).to(tl.float32)
        b_bj = tl.load(b + t_j * K + ok, mask=mk, other=0.)
        b_E = tl.exp(tl.where(os[:, None] >= jj, b_br - b_bj[None, :], float("-inf")))
        b_Ad += tl.where(os[None, :] == jj, tl.sum(b_q * b_kj[None, :] * b_E, 1)[:, None], 0.)
    tl.store(p_A + r * S, b_Ad, mask=m_r[:, None])
    for j in range(r + 1, C // S):                # above the diagonal: causal zeros
        tl.store(p_A + j * S, tl.zeros([S, S], dtype=tl.float32), mask=m_r[:, None])


@triton.jit
def eos_chunk_fwd_kernel_state(
    i, e, b, m0, mT, ck, T, K, D, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr,
    PREC: tl.constexpr, HAS_M0: tl.constexpr,
):
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    i, e = i + i_b * T * D, e + i_b * T * K
    b, ck = b + i_b * NC * C * K, ck + i_b * NC * K * D
    oc = tl.arange(0, C)
    b_h = tl.zeros([BK, BV], dtype=tl.float32)
    if HAS_M0:
        b_h += tl.load(m0 + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    for c in range(NC):
        tl.store(ck + c * K * D + p_kv, b_h, mask=mkv)     # H before the chunk
        ot = c * C + oc
        mt = ot < T
        b_k = tl.load(e + ot[:, None] * K + ok[None, :], mask=mt[:, None] & mk[None, :], other=0.)
        b_bc = tl.load(b + ot[:, None] * K + ok[None, :], mask=mk[None, :], other=0.)
        b_last = tl.load(b + (c * C + C - 1) * K + ok, mask=mk, other=0.)
        b_v = tl.load(i + ot[:, None] * D + ov[None, :], mask=mt[:, None] & mv[None, :], other=0.)
        b_kd = (b_k * tl.exp(b_last[None, :] - b_bc)).to(DT).to(OP)           # e^{b_C − b_j} ≤ 1
        b_h = tl.exp(b_last)[:, None] * b_h + tl.dot(tl.trans(b_kd), b_v.to(DT).to(OP), input_precision=PREC)
    tl.store(mT + i_b * K * D + p_kv, b_h, mask=mkv)


@triton.jit
def eos_chunk_fwd_kernel_out(
    i, b, s, A, ck, y, T, K, D, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr, PREC: tl.constexpr,
):
    i_b, c, i_v = tl.program_id(0).to(tl.int64), tl.program_id(1), tl.program_id(2)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    i, y, s = i + i_b * T * D, y + i_b * T * D, s + i_b * T * K
    b, A, ck = b + i_b * NC * C * K, A + i_b * T * C, ck + i_b * NC * K * D
    ok, oc = tl.arange(0, BK), tl.arange(0, C)
    ov = i_v * BV + tl.arange(0, BV)
    ot = c * C + oc
    mk, mv, mt = ok < K, ov < D, ot < T
    m_tv = mt[:, None] & mv[None, :]
    b_h = tl.load(ck + c * K * D + ok[:, None] * D + ov[None, :], mask=mk[:, None] & mv[None, :],
                  other=0.)
    b_q = tl.load(s + ot[:, None] * K + ok[None, :], mask=mt[:, None] & mk[None, :], other=0.)
    b_bc = tl.load(b + ot[:, None] * K + ok[None, :], mask=mk[None, :], other=0.)
    b_qd = (b_q * tl.exp(b_bc)).to(DT).to(OP)
    b_A = tl.load(A + ot[:, None] * C + oc[None, :], mask=mt[:, None], other=0.).to(DT).to(OP)
    b_v = tl.load(i + ot[:, None] * D + ov[None, :], mask=m_tv, other=0.).to(DT).to(OP)
    b_y = tl.dot(b_qd, b_h.to(DT).to(OP), input_precision=PREC) + tl.dot(b_A, b_v, input_precision=PREC)
    tl.store(y + ot[:, None] * D + ov[None, :], b_y, mask=m_tv)


@triton.jit
def eos_chunk_bwd_kernel_dstate(
    b, s, dy, dmT, dck, dm0, T, K, D, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr,
    PREC: tl.constexpr, HAS_M0: tl.constexpr,
):
    # The chunks in reverse with dH = ∂L/∂(memory after the chunk), stored per chunk for `_dout`.
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    s, dy = s + i_b * T * K, dy + i_b * T * D
    b, dck = b + i_b * NC * C * K, dck + i_b * NC * K * D
    oc = tl.arange(0, C)
    b_dh = tl.load(dmT + i_b * K * D + p_kv, mask=mkv, other=0.)
    for i_c in range(NC):
        c = NC - 1 - i_c
        tl.store(dck + c * K * D + p_kv, b_dh, mask=mkv)
        ot = c * C + oc
        mt = ot < T
        b_q = tl.load(s + ot[:, None] * K + ok[None, :], mask=mt[:, None] & mk[None, :], other=0.)
        b_bc = tl.load(b + ot[:, None] * K + ok[None, :], mask=mk[None, :], other=0.)
        b_last = tl.load(b + (c * C + C - 1) * K + ok, mask=mk, other=0.)
        b_dy = tl.load(dy + ot[:, None] * D + ov[None, :], mask=mt[:, None] & mv[None, :], other=0.)
        b_qd = (b_q * tl.exp(b_bc)).to(DT).to(OP)
        b_dh = tl.exp(b_last)[:, None] * b_dh + tl.dot(tl.trans(b_qd), b_dy.to(DT).to(OP), input_precision=PREC)
    if HAS_M0:
        tl.store(dm0 + i_b * K * D + p_kv, b_dh, mask=mkv)


@triton.jit
def eos_chunk_bwd_kernel_dv(
    e, b, A, dck, dy, di, T, K, D, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr, PREC: tl.constexpr,
):
    # (batch, chunk, value block) in parallel: di = Aᵀ dy + (e ⊙ e^{b_C − b}) dH, whole.
    i_b, c, i_v = tl.program_id(0).to(tl.int64), tl.program_id(1), tl.program_id(2)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    e, dy, di = e + i_b * T * K, dy + i_b * T * D, di + i_b * T * D
    b, A, dck = b + i_b * NC * C * K, A + i_b * T * C, dck + i_b * NC * K * D
    ok, oc = tl.arange(0, BK), tl.arange(0, C)
    ov = i_v * BV + tl.arange(0, BV)
    ot = c * C + oc
    mk, mv, mt = ok < K, ov < D, ot < T
    m_tv = mt[:, None] & mv[None, :]
    p_tv = ot[:, None] * D + ov[None, :]
    b_dh = tl.load(dck + c * K * D + ok[:, None] * D + ov[None, :], mask=mk[:, None] & mv[None, :],
                   other=0.)
    b_bc = tl.load(b + ot[:, None] * K + ok[None, :], mask=mk[None, :], other=0.)
    b_last = tl.load(b + (c * C + C - 1) * K + ok, mask=mk, other=0.)
    b_k = tl.load(e + ot[:, None] * K + ok[None, :], mask=mt[:, None] & mk[None, :], other=0.)
    b_kd = (b_k * tl.exp(b_last[None, :] - b_bc)).to(DT).to(OP)
    b_dy = tl.load(dy + p_tv, mask=m_tv, other=0.).to(DT).to(OP)
    b_A = tl.load(A + ot[:, None] * C + oc[None, :], mask=mt[:, None], other=0.).to(DT).to(OP)
    b_dv = tl.dot(tl.trans(b_A), b_dy, input_precision=PREC) + tl.dot(b_kd, b_dh.to(DT).to(OP),
                                                                      input_precision=PREC)
    tl.store(di + p_tv, b_dv, mask=m_tv)


@triton.jit
def eos_chunk_bwd_kernel_dqk(
    i, b, ck, dck, dy, de, ds, T, K, D, B, NC,
    C: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr, PREC: tl.constexpr,
):
    # (batch, chunk, value block) in parallel: the inter-chunk ds = (dy Hᵀ) ⊙ e^{b} and de = (i dHᵀ) ⊙ e^{b_C − b},
    # partial over value blocks (summed by the launcher).
    i_b, c, i_v = tl.program_id(0).to(tl.int64), tl.program_id(1), tl.program_id(2)
    ok, oc = tl.arange(0, BK), tl.arange(0, C)
    ov = i_v * BV + tl.arange(0, BV)
    ot = c * C + oc
    mk, mv, mt = ok < K, ov < D, ot < T
    mkv = mk[:, None] & mv[None, :]
    m_tk = mt[:, None] & mk[None, :]
    m_tv = mt[:, None] & mv[None, :]
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    ck, dck = ck + (i_b * NC + c) * K * D, dck + (i_b * NC + c) * K * D
    i, dy, b = i + i_b * T * D, dy + i_b * T * D, b + i_b * NC * C * K
    ds, de = ds + (i_v * B + i_b) * T * K, de + (i_v * B + i_b) * T * K
    p_kv = ok[:, None] * D + ov[None, :]
    p_tv = ot[:, None] * D + ov[None, :]
    p_tk = ot[:, None] * K + ok[None, :]
    b_h = tl.load(ck + p_kv, mask=mkv, other=0.).to(DT).to(OP)
    b_dy = tl.load(dy + p_tv, mask=m_tv, other=0.).to(DT).to(OP)
    b_dq = tl.dot(b_dy, tl.trans(b_h), input_precision=PREC)
    tl.store(ds + p_tk, b_dq * tl.exp(tl.load(b + p_tk, mask=mk[None, :], other=0.)), mask=m_tk)
    b_dh = tl.load(dck + p_kv, mask=mkv, other=0.).to(DT).to(OP)
    b_v = tl.load(i + p_tv, mask=m_tv, other=0.).to(DT).to(OP)
    b_dk = tl.dot(b_v, tl.trans(b_dh), input_precision=PREC)
    b_last = tl.load(b + (c * C + C - 1) * K + ok, mask=mk, other=0.)
    tl.store(de + p_tk, b_dk * tl.exp(b_last[None, :] - tl.load(b + p_tk, mask=mk[None, :], other=0.)), mask=m_tk)


@triton.jit
def eos_chunk_bwd_kernel_dscores(
    i, dy, dA, T, D,
    C: tl.constexpr, BV: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr, PREC: tl.constexpr,
):
    # dA_tj = dy_t · i_j (t ≥ j) over all of d, once per chunk.
    i_b, c = tl.program_id(0).to(tl.int64), tl.program_id(1)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    i, dy, dA = i + i_b * T * D, dy + i_b * T * D, dA + i_b * T * C
    oc = tl.arange(0, C)
    ot = c * C + oc
    mt = ot < T
    b_dA = tl.zeros([C, C], dtype=tl.float32)
    for i_v in range(tl.cdiv(D, BV)):
        ov = i_v * BV + tl.arange(0, BV)
        m_tv = mt[:, None] & (ov < D)[None, :]
        p_tv = ot[:, None] * D + ov[None, :]
        b_dA += tl.dot(tl.load(dy + p_tv, mask=m_tv, other=0.).to(DT).to(OP),
                       tl.trans(tl.load(i + p_tv, mask=m_tv, other=0.).to(DT).to(OP)), input_precision=PREC)
    b_dA = tl.where(oc[:, None] >= oc[None, :], b_dA, 0.)
    tl.store(dA + ot[:, None] * C + oc[None, :], b_dA, mask=mt[:, None])


@triton.jit
def eos_chunk_bwd_kernel_dintra(
    e, b, s, dA, de, ds, T, K, NC,
    C: tl.constexpr, S: tl.constexpr, BK: tl.constexpr, DT: tl.constexpr, OP: tl.constexpr, PREC: tl.constexpr,
):
    # (batch, chunk, sub-chunk r): the intra-chunk parts of ds (row block r of dA) and de (column block r).
    i_b, c, r = tl.program_id(0).to(tl.int64), tl.program_id(1), tl.program_id(2)
    # int64 bases per sequence, int32 tile offsets: int64 offset tiles took the registers that spilled
    e, s, de, ds = e + i_b * T * K, s + i_b * T * K, de + i_b * T * K, ds + i_b * T * K
    b, dA = b + i_b * NC * C * K, dA + i_b * T * C
    ok, os = tl.arange(0, BK), tl.arange(0, S)
    mk = ok < K
    t_r = c * C + r * S + os
    m_r = t_r < T
    m_rk = m_r[:, None] & mk[None, :]
    p_rk = t_r[:, None] * K + ok[None, :]
    b_br = tl.load(b + t_r[:, None] * K + ok[None, :], mask=mk[None, :], other=0.)
    b_dq = tl.zeros([S, BK], dtype=tl.float32)
    b_dk = tl.zeros([S, BK], dtype=tl.float32)
    for j in range(r):                         # row block r, left of the diagonal: ds_r += dA_rj (e_j ⊙ …)
        t_j = c * C + j * S + os
        b_n = tl.load(b + (c * C + j * S + S - 1) * K + ok, mask=mk, other=0.)
        b_kj = tl.load(e + t_j[:, None] * K + ok[None, :], mask=(t_j < T)[:, None] & mk[None, :],
                       other=0.)
        b_bj = tl.load(b + t_j[:, None] * K + ok[None, :], mask=mk[None, :], other=0.)
        b_dAb = tl.load(dA + t_r[:, None] * C + j * S + os[None, :], mask=m_r[:, None], other=0.)
        b_kd = (b_kj * tl.exp(b_n[None, :] - b_bj)).to(DT).to(OP)
        b_dq += tl.dot(b_dAb.to(DT).to(OP), b_kd, input_precision=PREC) * tl.exp(b_br - b_n[None, :])
    b_n = tl.load(b + (c * C + r * S + S - 1) * K + ok, mask=mk, other=0.)
    for j in range(r + 1, C // S):             # column block r, below the diagonal: de_r += dA_jrᵀ (s_j ⊙ …)
        t_j = c * C + j * S + os
        b_qj = tl.load(s + t_j[:, None] * K + ok[None, :], mask=(t_j < T)[:, None] & mk[None, :],
                       other=0.)
        b_bj = tl.load(b + t_j[:, None] * K + ok[None, :], mask=mk[None, :], other=0.)
        b_dAb = tl.load(dA + t_j[:, None] * C + r * S + os[None, :], mask=(t_j < T)[:, None], other=0.)
        b_qd = (b_qj * tl.exp(b_bj - b_n[None, :])).to(DT).to(OP)
        b_dk += tl.dot(tl.trans(b_dAb.to(DT).to(OP)), b_qd, input_precision=PREC) * tl.exp(b_n[None, :] - b_br)
    # the diagonal block, one column/row at a time: exponents b_t − b_j with t ≥ j only
    b_dAd = tl.load(dA + t_r[:, None] * C + r * S + os[None, :], mask=m_r[:, None], other=0.)
    for jj in range(S):
        t_j = c * C + r * S + jj
        m_j = mk & (t_j + ok * 0 < T)          # a vector mask: the interpreter refuses a scalar one
        b_kj = tl.load(e + t_j * K + ok, mask=m_j, other=0.).to(tl.float32)
        b_qj = tl.load(s + t_j * K + ok, mask=m_j, other=0.).to(tl.float32)
        b_bj = tl.load(b + t_j * K + ok, mask=mk, other=0.)
        b_E = tl.exp(tl.where(os[:, None] >= jj, b_br - b_bj[None, :], float("-inf")))
        b_F = tl.exp(tl.where(os[:, None] <= jj, b_bj[None, :] - b_br, float("-inf")))
        b_dq += tl.sum(tl.where(os[None, :] == jj, b_dAd, 0.), 1)[:, None] * b_kj[None, :] * b_E
        b_dk += tl.sum(tl.where(os[:, None] == jj, b_dAd, 0.), 0)[:, None] * b_qj[None, :] * b_F
    tl.store(ds + p_rk, b_dq, mask=m_rk)
    tl.store(de + p_rk, b_dk, mask=m_rk)


def _blocks(K: int, D: int):
    BK = max(SUB, next_pow2(K))   # one program holds all of k (the scores and ds/de sum over it)
    BV = 32 if BK <= 64 else 16   # k = 128: a 128×16 slice of H per program, no spill (compile_check.py)
    return BK, BV, triton.cdiv(D, BV)


def _dots(x: torch.Tensor) -> dict:
    dt = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16}.get(x.dtype, tl.float32)
    return dict(DT=dt, OP=operand_dtype(dt), PREC=CHUNK_DOT_PRECISION)


def chunk_local_logdecay(a: torch.Tensor) -> torch.Tensor:
    """b (B, NC·C, k) fp32: the cumulative log-gate inside each chunk, padded with a = 0 to whole chunks."""
    B, T, K = a.shape
    NC = triton.cdiv(T, CHUNK)
    padded = torch.nn.functional.pad(a.float(), (0, 0, 0, NC * CHUNK - T))
    return padded.view(B, NC, CHUNK, K).cumsum(2).view(B, NC * CHUNK, K).contiguous()


def chunk_eos_fwd(i, e, a, s, m0):
    """i (B, T, d), e/s (B, T, k), a = log g (B, T, k), m0 (B, k, d) or None; contiguous.
    Returns fp32 y (B, T, d), m_T (B, k, d), the local log-decay b, the scores A (B, T, C) and the chunk-start
    memories (B, NC, k, d)."""
    B, T, D = i.shape
    K = e.shape[-1]
    BK, BV, NV = _blocks(K, D)
    NC = triton.cdiv(T, CHUNK)
    f32 = dict(dtype=torch.float32, device=i.device)
    y, mT = torch.empty(B, T, D, **f32), torch.empty(B, K, D, **f32)
    A, ck = torch.empty(B, T, CHUNK, **f32), torch.empty(B, NC, K, D, **f32)
    b = chunk_local_logdecay(a)
    if B == 0:   # an empty batch launches nothing (a zero-size grid is an error on CUDA)
        return y, mT, b, A, ck
    dots = _dots(i)
    eos_chunk_fwd_kernel_intra[(B, NC, CHUNK // SUB)](e, b, s, A, T, K, NC, C=CHUNK, S=SUB, BK=BK, **dots,
                                                      num_warps=intra_warps(i))
    eos_chunk_fwd_kernel_state[(B, NV)](i, e, b, m0 if m0 is not None else mT, mT, ck, T, K, D, NC, C=CHUNK, BK=BK,
                                        BV=BV, **dots, HAS_M0=m0 is not None, num_warps=WARPS,
                                        num_stages=STATE_STAGES)
    eos_chunk_fwd_kernel_out[(B, NC, NV)](i, b, s, A, ck, y, T, K, D, NC, C=CHUNK, BK=BK, BV=BV, **dots,
                                          num_warps=WARPS)
    return y, mT, b, A, ck


def chunk_eos_bwd(i, e, s, has_m0: bool, b, A, ck, mT, dy, dmT):
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
    dck = torch.empty(B, NC, K, D, **f32)
    dA = torch.empty(B, T, CHUNK, **f32)
    if B > 0:
        dots = _dots(i)
        eos_chunk_bwd_kernel_dstate[(B, NV)](b, s, dy, dmT, dck, dm0, T, K, D, NC, C=CHUNK, BK=BK, BV=BV, **dots,
                                             HAS_M0=has_m0, num_warps=WARPS, num_stages=STATE_STAGES)
        eos_chunk_bwd_kernel_dv[(B, NC, NV)](e, b, A, dck, dy, di, T, K, D, NC, C=CHUNK, BK=BK, BV=BV, **dots,
                                             num_warps=WARPS)
        eos_chunk_bwd_kernel_dqk[(B, NC, NV)](i, b, ck, dck, dy, de, ds, T, K, D, B, NC, C=CHUNK, BK=BK, BV=BV,
                                              **dots, num_warps=WARPS)
        eos_chunk_bwd_kernel_dscores[(B, NC)](i, dy, dA, T, D, C=CHUNK, BV=BV, **dots, num_warps=4)
        eos_chunk_bwd_kernel_dintra[(B, NC, CHUNK // SUB)](e, b, s, dA, de[NV], ds[NV], T, K, NC, C=CHUNK, S=SUB,
                                                           BK=BK, **dots, num_warps=4)
    de, ds = de.sum(0), ds.sum(0)
    # log-gate gradient from the identity in the module docstring (reverse cumsum over time)
    local = s.float() * ds - e.float() * de                                   # (B, T, k)
    da = local.flip(1).cumsum(1).flip(1) + (dmT * mT).sum(-1)[:, None, :]
    return di, de, da, ds, (dm0 if has_m0 else None)


class ChunkEOSFunction(torch.autograd.Function):
    """(i, e, a = log g, s, m0) → (y, m_T), all fp32 outputs; backward through chunk_eos_bwd."""

    @staticmethod
    def forward(ctx, i, e, a, s, m0):
        y, mT, b, A, ck = chunk_eos_fwd(i, e, a, s, m0)
        ctx.save_for_backward(i, e, s, b, A, ck, mT)
        ctx.m0_dtype = None if m0 is None else m0.dtype
        return y, mT

    @staticmethod
    @once_differentiable
    def backward(ctx, dy, dmT):
        i, e, s, b, A, ck, mT = ctx.saved_tensors
        di, de, da, ds, dm0 = chunk_eos_bwd(i, e, s, ctx.m0_dtype is not None, b, A, ck, mT,
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
    B, T, D = flat.i.shape
    K = flat.e.shape[-1]
    check_offsets(T, K, D, CHUNK, -(-K * D // CHUNK))   # the last: the chunk-start memories, per step
    # the log-gate in fp32, broadcast to (B, T, k); autograd of log/expand turns ∂L/∂a into ∂L/∂o
    a = torch.log(flat.o.float()).squeeze(-1).expand(B, T, K).contiguous()
    m0 = None if flat.m0 is None else flat.m0.contiguous()
    return ChunkEOSFunction.apply(flat.i.contiguous(), flat.e.contiguous(), a, flat.s.contiguous(), m0)

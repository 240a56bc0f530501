"""Fused recurrent EOS scan, psi = matrix (DeltaNet / FWP, M1–M3 of LCSM Table 7): one program
holds a (k, BV) slice of the memory in fp32 registers and walks the sequence once.

    m_t = o_t m_{t-1} + e_t i_tᵀ          y_t = m_tᵀ s_t          o_t ∈ R^{k×k}

The oscillation mixes rows of the memory, so a program needs all k rows: d is split into
blocks, k is not. Backward as in `fused_recurrent`: memories saved every CK steps, each chunk
recomputed into a per-program scratch buffer, then the adjoint recurrence
dm_{t-1} = o_tᵀ dm_t + s_{t-1} dy_{t-1}ᵀ with do_t = dm_t m_{t-1}ᵀ.
Real states only: Table 7's transitions are real.
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl
from torch.autograd.function import once_differentiable

from .slices import memory_slice, scratch_slice
from .utils import MATRIX_DOT_PRECISION, Flat, check_checkpoint, check_device, next_pow2, num_warps


@triton.jit
def eos_fused_recurrent_matrix_fwd_kernel(
    i, e, o, s, m0, y, mT, ck,
    T, K, D, stride_ob, NC,
    BK: tl.constexpr, BV: tl.constexpr, PREC: tl.constexpr, CK: tl.constexpr,
    O_T: tl.constexpr, HAS_M0: tl.constexpr, SAVE: tl.constexpr,
):
    # batch on grid dim 0 (no 65535 cap); int64 offsets, since a per-step k×d o at
    # B·H = 128, T = 4096, k = d = 128 has more than 2^31 elements
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    mkk = mk[:, None] & mk[None, :]
    p_kk = ok[:, None] * K + ok[None, :]

    b_m = tl.zeros([BK, BV], dtype=tl.float32)
    if HAS_M0:
        b_m += tl.load(m0 + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    if not O_T:  # a static oscillation is loaded once
        b_o = tl.load(o + i_b * stride_ob + p_kk, mask=mkk, other=0.).to(tl.float32)
    for t in range(T):
        if SAVE:
            if t % CK == 0:
                tl.store(ck + (i_b * NC + t // CK) * K * D + p_kv, b_m, mask=mkv)
        if O_T:
            b_o = tl.load(o + i_b * stride_ob + t * K * K + p_kk, mask=mkk, other=0.).to(tl.float32)
        b_i = tl.load(i + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
        b_e = tl.load(e + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
        b_s = tl.load(s + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
        # oscillation × then expand; "ieee" keeps fp32 exact (no tf32) in and out of the interpreter
        b_m = tl.dot(b_o, b_m, input_precision=PREC) + b_e[:, None] * b_i[None, :]
        tl.store(y + (i_b * T + t) * D + ov, tl.sum(b_m * b_s[:, None], 0), mask=mv)
    tl.store(mT + i_b * K * D + p_kv, b_m, mask=mkv)


@triton.jit
def eos_fused_recurrent_matrix_bwd_kernel(
    i, e, o, s, ck, dy, dmT, sc,
    di, de, ds, do, dm0,
    T, K, D, B, stride_ob, NC,
    BK: tl.constexpr, BV: tl.constexpr, PREC: tl.constexpr, CK: tl.constexpr,
    O_T: tl.constexpr, HAS_M0: tl.constexpr,
):
    # batch on grid dim 0 (no 65535 cap); int64 offsets, since a per-step k×d o at
    # B·H = 128, T = 4096, k = d = 128 has more than 2^31 elements
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    mkk = mk[:, None] & mk[None, :]
    p_kk = ok[:, None] * K + ok[None, :]
    TO = T if O_T else 1
    p_sc = scratch_slice(i_b, i_v, CK, BK, BV)

    b_dm = tl.load(dmT + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    b_do_acc = tl.zeros([BK, BK], dtype=tl.float32)
    if not O_T:
        b_o = tl.load(o + i_b * stride_ob + p_kk, mask=mkk, other=0.).to(tl.float32)
    for i_c in range(NC):
        c = NC - 1 - i_c
        t0 = c * CK
        L = tl.minimum(CK, T - t0)
        tl.debug_barrier()   # the previous chunk's reads of the scratch are done before it is rewritten
        # recompute this chunk's memories m_{t0}, ..., m_{t0+L} into scratch slots 0..L
        b_m = tl.load(ck + (i_b * NC + c) * K * D + p_kv, mask=mkv, other=0.)
        tl.store(sc + p_sc, b_m)
        for j in range(L):
            t = t0 + j
            if O_T:
                b_o = tl.load(o + i_b * stride_ob + t * K * K + p_kk, mask=mkk, other=0.).to(tl.float32)
            b_i = tl.load(i + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_e = tl.load(e + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_m = tl.dot(b_o, b_m, input_precision=PREC) + b_e[:, None] * b_i[None, :]
            tl.store(sc + p_sc + (j + 1) * BK * BV, b_m)
        # the scratch slots are read back with the layout they were written in, so each thread
        # reads its own writes; the barrier makes that hold even if the layouts ever differ
        tl.debug_barrier()
        # adjoint recurrence, last step first; b_m holds m_t
        for jj in range(L):
            j = L - 1 - jj
            t = t0 + j
            if O_T:
                b_o = tl.load(o + i_b * stride_ob + t * K * K + p_kk, mask=mkk, other=0.).to(tl.float32)
            b_dy = tl.load(dy + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_i = tl.load(i + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_e = tl.load(e + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_s = tl.load(s + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_p = tl.load(sc + p_sc + j * BK * BV)                 # m_{t-1}
            p_gk = ((i_v * B + i_b) * T + t) * K + ok                # partial over d-blocks
            b_dm += b_s[:, None] * b_dy[None, :]                     # shrink
            tl.store(ds + p_gk, tl.sum(b_m * b_dy[None, :], 1), mask=mk)
            tl.store(de + p_gk, tl.sum(b_dm * b_i[None, :], 1), mask=mk)
            tl.store(di + (i_b * T + t) * D + ov, tl.sum(b_dm * b_e[:, None], 0), mask=mv)
            b_do = tl.dot(b_dm, tl.trans(b_p), input_precision=PREC)   # dm_t m_{t-1}ᵀ
            if O_T:
                tl.store(do + ((i_v * B + i_b) * TO + t) * K * K + p_kk, b_do, mask=mkk)
            else:
                b_do_acc += b_do
            b_dm = tl.dot(tl.trans(b_o), b_dm, input_precision=PREC)
            b_m = b_p
    if not O_T:
        tl.store(do + (i_v * B + i_b) * K * K + p_kk, b_do_acc, mask=mkk)
    if HAS_M0:
        tl.store(dm0 + i_b * K * D + p_kv, b_dm, mask=mkv)


def _blocks(K: int, D: int):
    # tl.dot needs every dim >= 16
    BK = max(16, next_pow2(K))
    BV = 16
    return BK, BV, triton.cdiv(D, BV)


def fused_recurrent_eos_matrix_fwd(i, e, o, s, m0, checkpoint: int, save: bool):
    """i (B, T, d), e/s (B, T, k), o (Bo, T|1, k, k), m0 (B, k, d) or None, all contiguous.
    Returns fp32 y (B, T, d), m_T (B, k, d) and the checkpoints (B, NC, k, d)."""
    B, T, D = i.shape
    K = e.shape[-1]
    BK, BV, NV = _blocks(K, D)
    NC = triton.cdiv(T, checkpoint)
    f32 = dict(dtype=torch.float32, device=i.device)
    y = torch.empty(B, T, D, **f32)
    mT = torch.empty(B, K, D, **f32)
    ck = torch.empty(B, NC, K, D, **f32) if save else mT
    stride_ob = 0 if o.shape[0] == 1 else o[0].numel()
    if B > 0:   # an empty batch launches nothing (a zero-size grid is an error on CUDA)
        eos_fused_recurrent_matrix_fwd_kernel[(B, NV)](
            i, e, o, s, m0 if m0 is not None else mT, y, mT, ck,
            T, K, D, stride_ob, NC,
            BK=BK, BV=BV, PREC=MATRIX_DOT_PRECISION, CK=checkpoint, O_T=o.shape[1] != 1, HAS_M0=m0 is not None,
            SAVE=save, num_warps=num_warps(BK * BK),
        )
    return y, mT, ck


def fused_recurrent_eos_matrix_bwd(i, e, o, s, has_m0: bool, ck, dy, dmT, checkpoint: int):
    """fp32 gradients (di, de, ds, do, dm0); do summed to o's stored shape (Bo, T|1, k, k)."""
    B, T, D = i.shape
    K = e.shape[-1]
    BK, BV, NV = _blocks(K, D)
    NC = triton.cdiv(T, checkpoint)
    Bo, TO = o.shape[:2]
    f32 = dict(dtype=torch.float32, device=i.device)
    di = torch.empty(B, T, D, **f32)
    de = torch.empty(NV, B, T, K, **f32)
    ds = torch.empty(NV, B, T, K, **f32)
    do = torch.empty(NV, B, TO, K, K, **f32)
    dm0 = torch.empty(B, K, D, **f32)
    sc = torch.empty(B * NV, checkpoint + 1, BK, BV, **f32)
    stride_ob = 0 if Bo == 1 else o[0].numel()
    if B > 0:   # an empty batch launches nothing (a zero-size grid is an error on CUDA)
        eos_fused_recurrent_matrix_bwd_kernel[(B, NV)](
            i, e, o, s, ck, dy, dmT, sc, di, de, ds, do, dm0,
            T, K, D, B, stride_ob, NC,
            BK=BK, BV=BV, PREC=MATRIX_DOT_PRECISION, CK=checkpoint, O_T=TO != 1, HAS_M0=has_m0,
            num_warps=num_warps(BK * BK),
        )
    do = do.sum(0)                                    # partial sums over d-blocks
    if Bo == 1:
        do = do.sum(0, keepdim=True)                  # o shared by the batch
    return di, de.sum(0), ds.sum(0), do, (dm0 if has_m0 else None)


class FusedRecurrentEOSMatrixFunction(torch.autograd.Function):
    """(i, e, o, s, m0) → fp32 (y, m_T); backward through fused_recurrent_eos_matrix_bwd."""

    @staticmethod
    def forward(ctx, i, e, o, s, m0, checkpoint):
        save = any(ctx.needs_input_grad)
        y, mT, ck = fused_recurrent_eos_matrix_fwd(i, e, o, s, m0, checkpoint, save)
        ctx.save_for_backward(i, e, o, s, ck)
        ctx.checkpoint = checkpoint
        ctx.m0_dtype = None if m0 is None else m0.dtype
        return y, mT

    @staticmethod
    @once_differentiable
    def backward(ctx, dy, dmT):
        i, e, o, s, ck = ctx.saved_tensors
        di, de, ds, do, dm0 = fused_recurrent_eos_matrix_bwd(
            i, e, o, s, ctx.m0_dtype is not None, ck, dy.float().contiguous(), dmT.float().contiguous(),
            ctx.checkpoint)
        return (di.to(i.dtype), de.to(e.dtype), do.to(o.dtype), ds.to(s.dtype),
                None if dm0 is None else dm0.to(ctx.m0_dtype), None)


def run_fused_recurrent_matrix(flat: Flat, checkpoint: int = 32):
    """Flattened real states → fp32 y (B, T, d), m_T (B, k, d)."""
    check_device(flat.i, flat.e, flat.o, flat.s, flat.m0)
    check_checkpoint(checkpoint)
    if any(x is not None and x.is_complex() for x in (flat.i, flat.e, flat.o, flat.s, flat.m0)):
        raise ValueError("the matrix-psi kernel takes real states only; use eos_scan(form='recurrent' or "
                         "'chunked') for a complex matrix oscillation")
    m0 = None if flat.m0 is None else flat.m0.contiguous()
    return FusedRecurrentEOSMatrixFunction.apply(
        flat.i.contiguous(), flat.e.contiguous(), flat.o.contiguous(), flat.s.contiguous(), m0, checkpoint)

"""Fused recurrent EOS scan, psi = elementwise: one program holds a (k, BV) slice of the
memory in fp32 registers and walks the sequence once.

    m_t = o_t ⊙ m_{t-1} + e_t i_tᵀ          y_t = Re(m_tᵀ s_t)

o may be any broadcast of (k, d): per step or static, k×d, k×1, 1×d or scalar, real or
complex. Triton has no complex dtype, so complex states travel as (real, imag) pairs; the
backward is the real-pair derivative, which is exactly torch's conjugate-Wirtinger
gradient (grad = ∂L/∂Re + i ∂L/∂Im) once the pairs are put back together.

Backward: the forward saves the memory every CK steps; the backward walks the chunks in
reverse, recomputes a chunk's memories into a per-program scratch buffer and then runs the
adjoint recurrence dm_{t-1} = conj(o_t) ⊙ dm_t + s_{t-1} dy_{t-1}ᵀ through it. This is the
general path (any o, even negative or zero); the k-vector-decay family has a chunked kernel.
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl
from torch.autograd.function import once_differentiable

from .slices import memory_slice, scratch_slice
from .utils import Flat, check_checkpoint, check_device, helper, next_pow2, num_warps, split


@helper
def _load_o(p, ok, ov, mk, mv, D, O_K: tl.constexpr, O_D: tl.constexpr):
    # o keeps its broadcast shape in memory; the load broadcasts it to the (BK, BV) tile.
    if O_K and O_D:
        b_o = tl.load(p + ok[:, None] * D + ov[None, :], mask=mk[:, None] & mv[None, :], other=0.).to(tl.float32)
    elif O_K:
        b_o = tl.load(p + ok, mask=mk, other=0.).to(tl.float32)[:, None]
    elif O_D:
        b_o = tl.load(p + ov, mask=mv, other=0.).to(tl.float32)[None, :]
    else:
        b_o = tl.load(p).to(tl.float32)
    return b_o


@helper
def _store_o_grad(p, b_do, ok, ov, mk, mv, D, O_K: tl.constexpr, O_D: tl.constexpr):
    # Sum the (BK, BV) gradient over the dims o is broadcast along; sums over d are partial
    # per d-block and finished by the launcher.
    if O_K and O_D:
        tl.store(p + ok[:, None] * D + ov[None, :], b_do, mask=mk[:, None] & mv[None, :])
    elif O_K:
        tl.store(p + ok, tl.sum(b_do, 1), mask=mk)
    elif O_D:
        tl.store(p + ov, tl.sum(b_do, 0), mask=mv)
    else:
        tl.store(p, tl.sum(tl.sum(b_do, 1), 0))


@triton.jit
def eos_fused_recurrent_fwd_kernel(
    i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im, m0_re, m0_im,
    y, mT_re, mT_im, ck_re, ck_im,
    T, K, D, stride_ob, NC,
    BK: tl.constexpr, BV: tl.constexpr, CK: tl.constexpr,
    O_T: tl.constexpr, O_K: tl.constexpr, O_D: tl.constexpr,
    COMPLEX: tl.constexpr, HAS_M0: tl.constexpr, SAVE: tl.constexpr,
):
    # batch on grid dim 0 (no 65535 cap); int64 offsets, since a per-step k×d o at
    # B·H = 128, T = 4096, k = d = 128 has more than 2^31 elements
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    KO = K if O_K else 1
    DO = D if O_D else 1

    b_m_re = tl.zeros([BK, BV], dtype=tl.float32)
    b_m_im = tl.zeros([BK, BV], dtype=tl.float32)
    if HAS_M0:
        b_m_re += tl.load(m0_re + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
        if COMPLEX:
            b_m_im += tl.load(m0_im + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)

    if not O_T:  # a static oscillation is loaded once, outside the time loop
        b_o_re = _load_o(o_re + i_b * stride_ob, ok, ov, mk, mv, D, O_K, O_D)
        if COMPLEX:
            b_o_im = _load_o(o_im + i_b * stride_ob, ok, ov, mk, mv, D, O_K, O_D)
    for t in range(T):
        if SAVE:
            if t % CK == 0:
                # memory before step t: where the backward restarts its recomputation
                p_ck = (i_b * NC + t // CK) * K * D + p_kv
                tl.store(ck_re + p_ck, b_m_re, mask=mkv)
                if COMPLEX:
                    tl.store(ck_im + p_ck, b_m_im, mask=mkv)
        b_i_re = tl.load(i_re + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
        b_e_re = tl.load(e_re + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
        b_s_re = tl.load(s_re + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
        if O_T:
            b_o_re = _load_o(o_re + i_b * stride_ob + t * KO * DO, ok, ov, mk, mv, D, O_K, O_D)
        if COMPLEX:
            b_i_im = tl.load(i_im + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_e_im = tl.load(e_im + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_s_im = tl.load(s_im + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            if O_T:
                b_o_im = _load_o(o_im + i_b * stride_ob + t * KO * DO, ok, ov, mk, mv, D, O_K, O_D)
            # oscillation then expand, as complex products written out in parts
            n_re = b_o_re * b_m_re - b_o_im * b_m_im + (b_e_re[:, None] * b_i_re[None, :]
                                                        - b_e_im[:, None] * b_i_im[None, :])
            n_im = b_o_re * b_m_im + b_o_im * b_m_re + (b_e_re[:, None] * b_i_im[None, :]
                                                        + b_e_im[:, None] * b_i_re[None, :])
            b_m_re, b_m_im = n_re, n_im
            # shrink: only the real part of mᵀ s leaves the kernel
            b_y = tl.sum(b_m_re * b_s_re[:, None] - b_m_im * b_s_im[:, None], 0)
        else:
            b_m_re = b_o_re * b_m_re + b_e_re[:, None] * b_i_re[None, :]
            b_y = tl.sum(b_m_re * b_s_re[:, None], 0)
        tl.store(y + (i_b * T + t) * D + ov, b_y, mask=mv)

    tl.store(mT_re + i_b * K * D + p_kv, b_m_re, mask=mkv)
    if COMPLEX:
        tl.store(mT_im + i_b * K * D + p_kv, b_m_im, mask=mkv)


@triton.jit
def eos_fused_recurrent_bwd_kernel(
    i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im,
    ck_re, ck_im, dy, dmT_re, dmT_im, sc_re, sc_im,
    di_re, di_im, de_re, de_im, ds_re, ds_im, do_re, do_im, dm0_re, dm0_im,
    T, K, D, B, stride_ob, NC,
    BK: tl.constexpr, BV: tl.constexpr, CK: tl.constexpr,
    O_T: tl.constexpr, O_K: tl.constexpr, O_D: tl.constexpr,
    COMPLEX: tl.constexpr, HAS_M0: tl.constexpr,
):
    # batch on grid dim 0 (no 65535 cap); int64 offsets, since a per-step k×d o at
    # B·H = 128, T = 4096, k = d = 128 has more than 2^31 elements
    i_b, i_v, ok, ov, mk, mv, mkv, p_kv = memory_slice(K, D, BK, BV)
    KO = K if O_K else 1
    DO = D if O_D else 1
    TO = T if O_T else 1
    # gradients summed over d are partial per d-block: each block writes its own slice
    i_vo = 0 if O_D else i_v
    p_sc = scratch_slice(i_b, i_v, CK, BK, BV)

    b_dm_re = tl.load(dmT_re + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    b_dm_im = tl.zeros([BK, BV], dtype=tl.float32)
    if COMPLEX:
        b_dm_im += tl.load(dmT_im + i_b * K * D + p_kv, mask=mkv, other=0.).to(tl.float32)
    b_do_acc_re = tl.zeros([BK, BV], dtype=tl.float32)
    b_do_acc_im = tl.zeros([BK, BV], dtype=tl.float32)

    if not O_T:
        b_o_re = _load_o(o_re + i_b * stride_ob, ok, ov, mk, mv, D, O_K, O_D)
        b_o_im = b_o_re
        if COMPLEX:
            b_o_im = _load_o(o_im + i_b * stride_ob, ok, ov, mk, mv, D, O_K, O_D)
    for i_c in range(NC):
        c = NC - 1 - i_c
        t0 = c * CK
        L = tl.minimum(CK, T - t0)
        tl.debug_barrier()   # the previous chunk's reads of the scratch are done before it is rewritten
        # recompute this chunk's memories m_{t0}, ..., m_{t0+L} into the scratch slots 0..L
        b_m_re = tl.load(ck_re + (i_b * NC + c) * K * D + p_kv, mask=mkv, other=0.)
        b_m_im = tl.zeros([BK, BV], dtype=tl.float32)
        if COMPLEX:
            b_m_im += tl.load(ck_im + (i_b * NC + c) * K * D + p_kv, mask=mkv, other=0.)
        tl.store(sc_re + p_sc, b_m_re)
        if COMPLEX:
            tl.store(sc_im + p_sc, b_m_im)
        for j in range(L):
            t = t0 + j
            b_i_re = tl.load(i_re + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_e_re = tl.load(e_re + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            if O_T:
                b_o_re = _load_o(o_re + i_b * stride_ob + t * KO * DO, ok, ov, mk, mv, D, O_K, O_D)
            if COMPLEX:
                b_i_im = tl.load(i_im + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
                b_e_im = tl.load(e_im + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
                if O_T:
                    b_o_im = _load_o(o_im + i_b * stride_ob + t * KO * DO, ok, ov, mk, mv, D, O_K, O_D)
                n_re = b_o_re * b_m_re - b_o_im * b_m_im + (b_e_re[:, None] * b_i_re[None, :]
                                                            - b_e_im[:, None] * b_i_im[None, :])
                n_im = b_o_re * b_m_im + b_o_im * b_m_re + (b_e_re[:, None] * b_i_im[None, :]
                                                            + b_e_im[:, None] * b_i_re[None, :])
                b_m_re, b_m_im = n_re, n_im
                tl.store(sc_im + p_sc + (j + 1) * BK * BV, b_m_im)
            else:
                b_m_re = b_o_re * b_m_re + b_e_re[:, None] * b_i_re[None, :]
            tl.store(sc_re + p_sc + (j + 1) * BK * BV, b_m_re)

        # the scratch slots are read back with the layout they were written in, so each thread
        # reads its own writes; the barrier makes that hold even if the layouts ever differ
        tl.debug_barrier()
        # adjoint recurrence through the chunk, last step first; b_m_* holds m_t
        for jj in range(L):
            j = L - 1 - jj
            t = t0 + j
            b_dy = tl.load(dy + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_i_re = tl.load(i_re + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
            b_e_re = tl.load(e_re + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            b_s_re = tl.load(s_re + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
            if O_T:
                b_o_re = _load_o(o_re + i_b * stride_ob + t * KO * DO, ok, ov, mk, mv, D, O_K, O_D)
            b_p_re = tl.load(sc_re + p_sc + j * BK * BV)          # m_{t-1}
            p_gk = ((i_v * B + i_b) * T + t) * K + ok               # partial-over-d layout
            p_do = (((i_vo * B + i_b) * TO + (t if O_T else 0)) * KO) * DO
            if COMPLEX:
                b_i_im = tl.load(i_im + (i_b * T + t) * D + ov, mask=mv, other=0.).to(tl.float32)
                b_e_im = tl.load(e_im + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
                b_s_im = tl.load(s_im + (i_b * T + t) * K + ok, mask=mk, other=0.).to(tl.float32)
                if O_T:
                    b_o_im = _load_o(o_im + i_b * stride_ob + t * KO * DO, ok, ov, mk, mv, D, O_K, O_D)
                b_p_im = tl.load(sc_im + p_sc + j * BK * BV)
                # y = Re(mᵀ s): dm += dy conj(s), ds = Σ_d dy conj(m)
                b_dm_re += b_s_re[:, None] * b_dy[None, :]
                b_dm_im -= b_s_im[:, None] * b_dy[None, :]
                tl.store(ds_re + p_gk, tl.sum(b_m_re * b_dy[None, :], 1), mask=mk)
                tl.store(ds_im + p_gk, -tl.sum(b_m_im * b_dy[None, :], 1), mask=mk)
                # expand e iᵀ: de = dm conj(i), di = dmᵀ conj(e)
                tl.store(de_re + p_gk, tl.sum(b_dm_re * b_i_re[None, :] + b_dm_im * b_i_im[None, :], 1), mask=mk)
                tl.store(de_im + p_gk, tl.sum(b_dm_im * b_i_re[None, :] - b_dm_re * b_i_im[None, :], 1), mask=mk)
                tl.store(di_re + (i_b * T + t) * D + ov,
                         tl.sum(b_dm_re * b_e_re[:, None] + b_dm_im * b_e_im[:, None], 0), mask=mv)
                tl.store(di_im + (i_b * T + t) * D + ov,
                         tl.sum(b_dm_im * b_e_re[:, None] - b_dm_re * b_e_im[:, None], 0), mask=mv)
                # oscillation: do = dm conj(m_{t-1}), dm_{t-1} = conj(o) dm
                g_re = b_dm_re * b_p_re + b_dm_im * b_p_im
                g_im = b_dm_im * b_p_re - b_dm_re * b_p_im
                n_re = b_o_re * b_dm_re + b_o_im * b_dm_im
                n_im = b_o_re * b_dm_im - b_o_im * b_dm_re
                b_dm_re, b_dm_im = n_re, n_im
                b_m_im = b_p_im
            else:
                b_dm_re += b_s_re[:, None] * b_dy[None, :]
                tl.store(ds_re + p_gk, tl.sum(b_m_re * b_dy[None, :], 1), mask=mk)
                tl.store(de_re + p_gk, tl.sum(b_dm_re * b_i_re[None, :], 1), mask=mk)
                tl.store(di_re + (i_b * T + t) * D + ov, tl.sum(b_dm_re * b_e_re[:, None], 0), mask=mv)
                g_re = b_dm_re * b_p_re
                g_im = g_re
                b_dm_re = b_o_re * b_dm_re
            b_m_re = b_p_re
            if O_T:
                _store_o_grad(do_re + p_do, g_re, ok, ov, mk, mv, D, O_K, O_D)
                if COMPLEX:
                    _store_o_grad(do_im + p_do, g_im, ok, ov, mk, mv, D, O_K, O_D)
            else:
                b_do_acc_re += g_re
                if COMPLEX:
                    b_do_acc_im += g_im

    if not O_T:
        p_do = (i_vo * B + i_b) * KO * DO
        _store_o_grad(do_re + p_do, b_do_acc_re, ok, ov, mk, mv, D, O_K, O_D)
        if COMPLEX:
            _store_o_grad(do_im + p_do, b_do_acc_im, ok, ov, mk, mv, D, O_K, O_D)
    if HAS_M0:
        tl.store(dm0_re + i_b * K * D + p_kv, b_dm_re, mask=mkv)
        if COMPLEX:
            tl.store(dm0_im + i_b * K * D + p_kv, b_dm_im, mask=mkv)


def _blocks(K: int, D: int):
    BK = next_pow2(K)
    BV = min(next_pow2(D), 16)   # k=128: a 128×16 slice per program stays in registers
    return BK, BV, triton.cdiv(D, BV)


def fused_recurrent_eos_fwd(i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im, m0_re, m0_im,
                            checkpoint: int, save: bool):
    """Launch the forward. Real parts (B, T, d), (B, T, k), (Bo, T|1, k|1, d|1), (B, T, k), (B, k, d);
    imaginary parts the same or None (real mode). Returns fp32 y (B, T, d), m_T parts, checkpoints."""
    B, T, D = i_re.shape
    K = e_re.shape[-1]
    cplx = i_im is not None
    BK, BV, NV = _blocks(K, D)
    NC = triton.cdiv(T, checkpoint)
    f32 = dict(dtype=torch.float32, device=i_re.device)
    y = torch.empty(B, T, D, **f32)
    mT_re = torch.empty(B, K, D, **f32)
    mT_im = torch.empty(B, K, D, **f32) if cplx else mT_re
    ck_re = torch.empty(B, NC, K, D, **f32) if save else mT_re
    ck_im = torch.empty(B, NC, K, D, **f32) if save and cplx else ck_re
    stride_ob = 0 if o_re.shape[0] == 1 else o_re[0].numel()

    def grid(meta):
        return (B, triton.cdiv(D, meta["BV"]))

    if B > 0:   # an empty batch launches nothing (a zero-size grid is an error on CUDA)
        eos_fused_recurrent_fwd_kernel[grid](
            i_re, i_im if cplx else i_re, e_re, e_im if cplx else e_re, o_re, o_im if cplx else o_re,
            s_re, s_im if cplx else s_re, m0_re if m0_re is not None else mT_re,
            m0_im if (cplx and m0_im is not None) else mT_re,
            y, mT_re, mT_im, ck_re, ck_im,
            T, K, D, stride_ob, NC,
            BK=BK, BV=BV, CK=checkpoint,
            O_T=o_re.shape[1] != 1, O_K=o_re.shape[2] != 1, O_D=o_re.shape[3] != 1,
            COMPLEX=cplx, HAS_M0=m0_re is not None, SAVE=save, num_warps=num_warps(BK * BV),
        )
    return y, mT_re, (mT_im if cplx else None), ck_re, (ck_im if cplx else None)


def fused_recurrent_eos_bwd(i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im, has_m0: bool,
                            ck_re, ck_im, dy, dmT_re, dmT_im, checkpoint: int):
    """Launch the backward; returns fp32 gradients of every part (imaginary ones None in real mode),
    d o summed to o's stored shape (Bo, T|1, k|1, d|1)."""
    B, T, D = i_re.shape
    K = e_re.shape[-1]
    cplx = i_im is not None
    BK, BV, NV = _blocks(K, D)
    NC = triton.cdiv(T, checkpoint)
    Bo, TO, KO, DO = o_re.shape
    O_T = TO != 1
    f32 = dict(dtype=torch.float32, device=i_re.device)

    def pair(*shape):
        re = torch.empty(*shape, **f32)
        return re, (torch.empty(*shape, **f32) if cplx else re)

    di = pair(B, T, D)
    de = pair(NV, B, T, K)
    ds = pair(NV, B, T, K)
    do = pair(1 if DO != 1 else NV, B, TO, KO, DO)
    dm0 = pair(B, K, D)
    sc = pair(B * NV, checkpoint + 1, BK, BV)
    dmT_im = dmT_im if cplx else dmT_re
    stride_ob = 0 if Bo == 1 else o_re[0].numel()
    if B > 0:   # an empty batch launches nothing (a zero-size grid is an error on CUDA)
        eos_fused_recurrent_bwd_kernel[(B, NV)](
            i_re, i_im if cplx else i_re, e_re, e_im if cplx else e_re, o_re, o_im if cplx else o_re,
            s_re, s_im if cplx else s_re,
            ck_re, ck_im if cplx else ck_re, dy, dmT_re, dmT_im, sc[0], sc[1],
            di[0], di[1], de[0], de[1], ds[0], ds[1], do[0], do[1], dm0[0], dm0[1],
            T, K, D, B, stride_ob, NC,
            BK=BK, BV=BV, CK=checkpoint, O_T=O_T, O_K=KO != 1, O_D=DO != 1,
            COMPLEX=cplx, HAS_M0=has_m0, num_warps=num_warps(BK * BV),
        )

    def o_grad(g):
        g = g.sum(0)                                   # partial sums over d-blocks
        if Bo == 1:
            g = g.sum(0, keepdim=True)                 # o shared by the batch
        return g.reshape(o_re.shape)

    out = []
    for g, how in ((di, None), (de, "sum0"), (ds, "sum0"), (do, "o"), (dm0, None)):
        parts = []
        for p in (g[0], g[1] if cplx else None):
            if p is not None:
                p = p.sum(0) if how == "sum0" else o_grad(p) if how == "o" else p
            parts.append(p)
        out.append(parts)
    return out


class FusedRecurrentEOSFunction(torch.autograd.Function):
    """Real-pair scan: inputs and outputs are real tensors, so torch's complex autograd
    convention comes for free when the caller splits/joins complex tensors with .real/.imag."""

    @staticmethod
    def forward(ctx, i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im, m0_re, m0_im, checkpoint):
        save = any(ctx.needs_input_grad)   # checkpoints only when a backward will come
        y, mT_re, mT_im, ck_re, ck_im = fused_recurrent_eos_fwd(
            i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im, m0_re, m0_im, checkpoint, save=save)
        ctx.save_for_backward(i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im, ck_re, ck_im)
        ctx.has_m0 = m0_re is not None
        ctx.checkpoint = checkpoint
        ctx.dtypes = [None if x is None else x.dtype for x in (i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im,
                                                                  m0_re, m0_im)]
        if mT_im is None:
            mT_im = mT_re.new_zeros(0)
        return y, mT_re, mT_im

    @staticmethod
    @once_differentiable
    def backward(ctx, dy, dmT_re, dmT_im):
        i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im, ck_re, ck_im = ctx.saved_tensors
        cplx = i_im is not None
        di, de, ds, do, dm0 = fused_recurrent_eos_bwd(
            i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im, ctx.has_m0, ck_re, ck_im,
            dy.float().contiguous(), dmT_re.float().contiguous(),
            dmT_im.float().contiguous() if cplx else None, ctx.checkpoint)
        grads = [di[0], di[1], de[0], de[1], do[0], do[1], ds[0], ds[1]]
        grads += dm0 if ctx.has_m0 else [None, None]
        grads = [None if (g is None or dt is None) else g.to(dt) for g, dt in zip(grads, ctx.dtypes, strict=True)]
        return (*grads, None)


def run_fused_recurrent(flat: Flat, checkpoint: int = 32):
    """Flattened states (see `utils.Flat`) → fp32 y (B, T, d) and m_T (B, k, d), complex64 when complex."""
    check_device(flat.i, flat.e, flat.o, flat.s, flat.m0)
    check_checkpoint(checkpoint)
    cplx = any(x is not None and x.is_complex() for x in (flat.i, flat.e, flat.o, flat.s, flat.m0))
    i_re, i_im = split(flat.i, cplx)
    e_re, e_im = split(flat.e, cplx)
    o_re, o_im = split(flat.o, cplx)
    s_re, s_im = split(flat.s, cplx)
    m0_re, m0_im = split(flat.m0, cplx)
    y, mT_re, mT_im = FusedRecurrentEOSFunction.apply(
        i_re, i_im, e_re, e_im, o_re, o_im, s_re, s_im, m0_re, m0_im, checkpoint)
    mT = torch.complex(mT_re, mT_im) if cplx else mT_re
    return y, mT

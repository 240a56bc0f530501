"""The hand-written backward of the recurrent form (LCSM appendix 5.1, corrected).

With dM_t the total gradient reaching m_t (from y_t and from m_{t+1}) and torch's
convention for complex tensors (the gradient of a real loss is taken w.r.t. the
conjugate, so every multiplier appears conjugated):

    Type 1 (⊙):  dM_t   = s̄_t dy_tᵀ + ō_{t+1} ⊙ dM_{t+1}
                 do_t   = dM_t ⊙ m̄_{t−1}          (k×d; reduced to o's broadcast shape)
    Type 2 (×):  dM_t   = s̄_t dy_tᵀ + ō_{t+1}ᵀ dM_{t+1}
                 do_t   = dM_t m̄_{t−1}ᵀ           (k×k)
    both:        ds_t = m̄_t dy_t,  de_t = dM_t ī_t,  di_t = dM_tᵀ ē_t;
                 dm_0 = the first oscillation step applied backwards to dM_1

`lcsm_core.backward_formulas` records which of the paper's printed lines hold.
"""
from __future__ import annotations

import torch

from .inputs import ScanInputs
from .reference import scan_recurrent


def _reduce_to(grad: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Sum a broadcast gradient back to the shape of `like`; drop the imaginary part for real inputs."""
    if not like.is_complex() and grad.is_complex():
        grad = grad.real
    return grad.sum_to_size(like.shape).to(like.dtype)


class RecurrentEOS(torch.autograd.Function):
    """Forward: the reference recurrence, keeping every memory m_t. Backward: the formulas above."""

    @staticmethod
    def forward(ctx, i, e, o, s, m0, psi: str, batch: tuple):
        inp = ScanInputs(i=i, e=e, o=o, s=s, psi=psi, batch=batch, T=i.shape[-2], k=e.shape[-1], d=i.shape[-1])
        y, m, memories = scan_recurrent(inp, m0, keep_memories=True)
        ctx.save_for_backward(i, e, o, s, memories)
        ctx.has_m0 = m0 is not None
        ctx.m0_like = m0
        ctx.psi = psi
        return y, m

    @staticmethod
    def backward(ctx, dy, dm_final):
        i, e, o, s, M = ctx.saved_tensors          # M (..., T+1, k, d): m_0 .. m_T
        psi, T = ctx.psi, i.shape[-2]
        dtype = M.dtype
        dy = dy.to(dtype) if dy is not None else torch.zeros(*M.shape[:-3], T, M.shape[-1], dtype=dtype)
        dM = torch.zeros_like(M[..., 0, :, :]) if dm_final is None else dm_final.to(dtype).expand_as(M[..., 0, :, :])
        static_o = o.shape[-3] == 1
        do_steps = []
        do_static = None                     # a static o's gradient: the running Σ_t, never a stack over t
        di, de, ds = [], [], []
        for t in range(T - 1, -1, -1):
            m_t, m_prev = M[..., t + 1, :, :], M[..., t, :, :]
            s_t = s[..., t, :].to(dtype)
            ds.append((m_t.conj() * dy[..., t, None, :]).sum(-1))                 # m̄_t dy_t
            dM = dM + s_t.conj()[..., :, None] * dy[..., t, None, :]              # s̄_t dy_tᵀ
            de.append((dM * i[..., t, None, :].to(dtype).conj()).sum(-1))         # dM_t ī_t
            di.append((dM * e[..., t, :, None].to(dtype).conj()).sum(-2))         # dM_tᵀ ē_t
            o_t = o[..., 0 if static_o else t, :, :].to(dtype)
            do_t = dM * m_prev.conj() if psi == "elementwise" else dM @ m_prev.conj().transpose(-1, -2)
            if static_o:
                do_static = do_t if do_static is None else do_static + do_t
            else:
                do_steps.append(do_t)
            dM = o_t.conj() * dM if psi == "elementwise" else o_t.conj().transpose(-1, -2) @ dM
        flip = lambda xs: torch.stack(xs[::-1], dim=-2)
        if static_o:
            do_full = do_static.unsqueeze(-3)
        else:
            do_full = torch.stack(do_steps[::-1], dim=-3)
        grads_m0 = _reduce_to(dM, ctx.m0_like) if ctx.has_m0 else None
        return (_reduce_to(flip(di), i), _reduce_to(flip(de), e), _reduce_to(do_full, o), _reduce_to(flip(ds), s),
                grads_m0, None, None)


def scan_recurrent_manual(inp: ScanInputs, m0):
    return RecurrentEOS.apply(inp.i, inp.e, inp.o, inp.s, m0, inp.psi, inp.batch)

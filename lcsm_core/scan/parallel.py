"""The parallel (masked, attention-like) form: the whole sequence as one block.

Quadratic in T; elementwise psi only (a matrix oscillation has no such
factorization — its decays are products of k×k matrices).
"""
from __future__ import annotations

import torch

from .blocks import block_final_expand, block_outputs, carried_outputs, decay_matrix
from .inputs import ScanInputs


def common_dtype(inp: ScanInputs):
    dt = inp.state_dtype
    return inp.i.to(dt), inp.e.to(dt), inp.o.to(dt), inp.s.to(dt)


def scan_parallel(inp: ScanInputs, m0):
    if inp.psi != "elementwise":
        raise ValueError("form='parallel' exists for psi='elementwise' only; "
                         "use form='recurrent' or form='chunked' with psi='matrix'")
    i, e, o, s = common_dtype(inp)
    batch = inp.batch
    o = o.expand(*batch, inp.T, *o.shape[-2:])
    i, e, s = (x.expand(*batch, *x.shape[-2:]) for x in (i, e, s))
    D = decay_matrix(o)                                          # (..., T, T, ko, do)
    y = block_outputs(i, e, o, s, D)
    m = block_final_expand(i, e, D[..., -1, :, :, :])
    m = m.expand(*batch, inp.k, inp.d)
    if m0 is not None:
        P = torch.cumprod(o, dim=-3)
        y = y + carried_outputs(s, P, m0.to(y.dtype).expand(*batch, inp.k, inp.d))
        m = m + P[..., -1, :, :] * m0.to(y.dtype)
    return y, m

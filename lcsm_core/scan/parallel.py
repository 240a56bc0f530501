"""The parallel (masked, attention-like) form: the whole sequence as one block.

Quadratic in T; elementwise psi only (a matrix oscillation has no such
factorization — its decays are products of k×k matrices).
"""
from __future__ import annotations

import math

import torch

from .blocks import block_final_expand, block_outputs, carried_outputs, decay_matrix
from .inputs import ScanInputs


def common_dtype(inp: ScanInputs):
    dt = inp.state_dtype
    return inp.i.to(dt), inp.e.to(dt), inp.o.to(dt), inp.s.to(dt)


# The parallel form's (..., T, T, ko, do) decays (and the cumulative product building them, and the scores) are
# refused beyond this many bytes: B=1, T=2048, k=d=64 asked for 64 GiB and died in the allocator.
PARALLEL_MAX_BYTES = 2 ** 30
PARALLEL_COPIES = 3


def check_parallel_size(inp: ScanInputs) -> None:
    """ValueError naming the sizes when the parallel form's decays would pass PARALLEL_MAX_BYTES."""
    ko, do = inp.o.shape[-2], inp.o.shape[-1]
    sequences = math.prod(inp.batch)
    item = torch.empty((), dtype=inp.state_dtype).element_size()
    need = PARALLEL_COPIES * sequences * inp.T * inp.T * ko * do * item
    if need > PARALLEL_MAX_BYTES:
        raise ValueError(
            f"form='parallel' would build decays of {sequences} sequence(s) × T × T × {ko} × {do} with T = {inp.T}: "
            f"about {need / 2 ** 30:.1f} GiB, over the parallel form's {PARALLEL_MAX_BYTES / 2 ** 30:.0f} GiB; "
            f"use form='chunked' (the same outputs, linear in T) or a shorter sequence")


def scan_parallel(inp: ScanInputs, m0):
    if inp.psi != "elementwise":
        raise ValueError("form='parallel' exists for psi='elementwise' only; "
                         "use form='recurrent' or form='chunked' with psi='matrix'")
    check_parallel_size(inp)
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

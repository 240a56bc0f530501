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


# The parallel form's (..., T, T) decays (and the cumulative product building them, and the scores) are refused
# beyond this many bytes (B=1, T=2048, k=d=64 would ask for 64 GiB).
PARALLEL_MAX_BYTES = 2 ** 30
PARALLEL_COPIES = 3


def decay_width(inp: ScanInputs) -> int:
    """Numbers per (t, s) pair in the widest (..., T, T, ·) tensor the form builds: ko × do, except that a decay
    without a d axis is used at width k (block_outputs' einsum broadcasts a scalar decay over the k it sums), so
    a scalar decay per step costs as much as a k-vector one."""
    ko, do = inp.o.shape[-2], inp.o.shape[-1]
    return inp.k if do == 1 else ko * do


def parallel_bytes(inp: ScanInputs) -> int:
    """The bytes the parallel form holds at its peak, from above: PARALLEL_COPIES (T × T) tensors of decay_width
    (decay_matrix's where, cumprod and mask; the scores), plus what grows with T alone (the states, a decay along
    d times e iᵀ in block_final_expand and carried_outputs, the memory)."""
    ko, do = inp.o.shape[-2], inp.o.shape[-1]
    T, k, d = inp.T, inp.k, inp.d
    sequences = math.prod(inp.batch)
    item = torch.empty((), dtype=inp.state_dtype).element_size()
    pairs = PARALLEL_COPIES * T * T * decay_width(inp)
    per_step = T * (k + d + ko * do + (k * d if do > 1 else 0)) + k * d
    return sequences * (pairs + per_step) * item


def check_parallel_size(inp: ScanInputs) -> None:
    """ValueError naming the sizes when the parallel form would hold more than PARALLEL_MAX_BYTES."""
    need = parallel_bytes(inp)
    if need <= PARALLEL_MAX_BYTES:
        return
    ko, do = inp.o.shape[-2], inp.o.shape[-1]
    spread = f" (spread over k = {inp.k} in the scores)" if decay_width(inp) != ko * do else ""
    raise ValueError(
        f"form='parallel' would build decays of {math.prod(inp.batch)} sequence(s) × T × T × {ko} × {do}{spread} "
        f"with T = {inp.T}: about {need / 2 ** 30:.1f} GiB, over the parallel form's "
        f"{PARALLEL_MAX_BYTES / 2 ** 30:.0f} GiB; use form='chunked' (the same outputs, linear in T) or a shorter "
        "sequence")


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

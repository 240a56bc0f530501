"""The chunked form: blocks of C steps, parallel inside a block, the recurrence
across blocks. Linear in T; the fast CPU training form.

Inside a block, with L_t = Σ_{r≤t} log o_r (cumulative log-decay from the block
start), the decay from step s to t is exp(L_t − L_s). When the oscillation has no
zeros and is positive or complex, and the block's decay stays within floating
range, that factorizes into matmuls:
  - o = r cᵀ: a k-vector (c = 1), a d-vector (r = 1) or an Outer(k_part, d_part):
    chunked_factors.py, two matmuls per block, never a (T, k, d) decay; the block
    is halved until its log-decays fit the dtype's range
  - o full k×d:       m_t = e^{L_t} ⊙ cumsum_s(e^{−L_s} ⊙ e_s i_sᵀ), y_t = m_tᵀ s_t
Otherwise (zeros, negative reals, extreme decay) an exact path is used: decay
products by cumulative product for k×1 / 1×d, or all blocks stepping side by
side for full k×d and matrix psi.

Matrix psi: a k×k oscillation has no attention-like block form, so blocks run
side by side: every block scans its C steps from zero memory at once, keeping the
running product P_t = o_t ⋯ o_1; then T/C sequential steps join the blocks
(m_next = P_C m + local memory) and y_t gains (P_t m_start)ᵀ s_t.
A DeltaRule(k, β) runs in WY/UT form instead (chunked_delta.py).

A static full k×d o (the same (k, d) tensor at every step) is never expanded over batch and time: it steps block
by block, keeping only the memory entering each block, and recomputes the blocks in its backward
(chunked_static.py).
"""
from __future__ import annotations

import torch

from .blocks import block_final_expand, block_outputs, carried_outputs, decay_matrix, join_blocks, split_blocks
from .chunked_delta import scan_chunked_delta
from .chunked_factors import in_range, scan_chunked_factors
from .chunked_static import scan_chunked_static
from .inputs import ScanInputs
from .parallel import common_dtype
from .structured import Outer


def scan_chunked(inp: ScanInputs, m0, chunk_size: int):
    dtype, batch = inp.state_dtype, inp.batch
    i, e, s = (x.to(dtype).expand(*batch, *x.shape[-2:]) for x in (inp.i, inp.e, inp.s))
    m = torch.zeros(*batch, inp.k, inp.d, dtype=dtype, device=i.device)
    if m0 is not None:
        m = m + m0.to(dtype)
    if inp.structure == "delta":
        keys, beta = (x.to(dtype).expand(*batch, inp.T, x.shape[-1]) for x in (inp.o.k, inp.o.beta))
        return scan_chunked_delta(i, e, s, keys, beta, m, inp.T, chunk_size)
    if static_full(inp):
        return scan_chunked_static(i, e, inp.o.to(dtype), s, m, chunk_size)
    factors = _vector_factors(inp)
    if factors is not None:
        rows, cols = (None if x is None else x.to(dtype).expand(*batch, inp.T, x.shape[-1]) for x in factors)
        done = scan_chunked_factors(i, e, s, rows, cols, m, inp.T, chunk_size)
        if done is not None:
            return done
    return _scan_dense(inp.densified(), m, chunk_size)


def static_full(inp: ScanInputs) -> bool:
    """A dense elementwise o that is one k×d tensor for every step (k, d > 1)."""
    o = inp.o
    return inp.structure == "dense" and inp.psi == "elementwise" and o.shape[-3] == 1 and o.shape[-2] > 1 \
        and o.shape[-1] > 1


def _vector_factors(inp: ScanInputs):
    """An elementwise o as (rows (..., T|1, k|1) or None, cols (..., T|1, d) or None) when it is a k-vector, a
    d-vector, a scalar or an Outer; None for a full k×d or a matrix o."""
    o = inp.o
    if isinstance(o, Outer):
        return o.k_part[..., 0], o.d_part[..., 0, :]
    if inp.psi != "elementwise" or (o.shape[-2] > 1 and o.shape[-1] > 1):
        return None
    return (o[..., 0], None) if o.shape[-1] == 1 else (None, o[..., 0, :])


def _scan_dense(inp: ScanInputs, m: torch.Tensor, chunk_size: int):
    """A dense o with no vector factors (full k×d, matrix) or whose log-decays are unsafe."""
    C = min(chunk_size, inp.T)
    i, e, o, s = common_dtype(inp)
    batch = inp.batch
    i, e, s = (x.expand(*batch, *x.shape[-2:]) for x in (i, e, s))
    o = o.expand(*batch, inp.T, *o.shape[-2:])
    # Padding steps carry an identity oscillation and zero expand: the memory is untouched.
    identity = torch.eye(inp.k, dtype=o.dtype, device=o.device) if inp.psi == "matrix" else 1.0
    ib, eb, sb = (split_blocks(x, C, -2, 0.0) for x in (i, e, s))     # (..., N, C, .)
    ob = split_blocks(o, C, -3, identity)                              # (..., N, C, ko|k, do|k)
    if inp.psi == "elementwise" and ob.shape[-1] > 1 and ob.shape[-2] > 1:
        L = _log_decay(ob)
        if L is not None:
            return _scan_full_oscillation(ib, eb, sb, L, m, inp.T)
    if inp.psi == "matrix":
        y, P_last, U, carry = _blocks_side_by_side(ib, eb, ob, sb, matrix=True)
    else:
        y, P_last, U, carry = _blocks_elementwise(ib, eb, ob, sb)
    starts = []
    # unbind once: indexing block n N times would make autograd zero-fill a full-size gradient per block
    for P_n, U_n in zip(P_last.unbind(-3), U.unbind(-3)):             # the only sequential loop: T / C steps
        starts.append(m)
        m = (P_n @ m if inp.psi == "matrix" else P_n * m) + U_n
    y = y + carry(torch.stack(starts, dim=-3))                         # memory entering each block
    return join_blocks(y, inp.T), m


def _log_decay(ob: torch.Tensor):
    """Cumulative log-decay per block, or None when the factorized path is unsafe.

    log of a zero is −inf and of a negative real is NaN; both fail the range check,
    so one reduction decides (growth too: |L| is bounded both ways). An empty batch
    has nothing to overflow.
    """
    L = torch.cumsum(torch.log(ob), dim=-3)                            # (..., N, C, ko, do)
    return L if in_range(L) else None


def _blocks_elementwise(i, e, o, s):
    """The exact per-block pieces (decays by cumulative product): outputs from zero memory, the block's decay
    P_C, what it adds U, and the carry reader. A full k×d o steps its blocks side by side instead."""
    if o.shape[-2] > 1 and o.shape[-1] > 1:
        return _blocks_side_by_side(i, e, o, s, matrix=False)
    D = decay_matrix(o)                                                # (..., N, C, C, ko, do)
    P = torch.cumprod(o, dim=-3)
    y = block_outputs(i, e, o, s, D)
    U = block_final_expand(i, e, D[..., -1, :, :, :])
    return y, P[..., -1, :, :], U, lambda M: carried_outputs(s, P, M)


def _scan_full_oscillation(i, e, s, L, m, T: int):
    """Full k×d oscillation: block by block, m_t = P_t ⊙ (m_enter + Σ_{s≤t} P_s⁻¹ ⊙ e_s i_sᵀ).

    One block's (C, k, d) memory stays small enough to live in cache, which matters
    more here than vectorizing across blocks. L (..., N, C, k, d).
    """
    ys = []
    for n in range(L.shape[-4]):
        Ln = L[..., n, :, :, :]                                        # (..., C, k, d)
        expand = e[..., n, :, :, None] * i[..., n, :, None, :]         # e_s i_sᵀ  (..., C, k, d)
        memory = torch.exp(Ln) * (m.unsqueeze(-3) + torch.cumsum(torch.exp(-Ln) * expand, dim=-3))
        ys.append((memory * s[..., n, :, :, None]).sum(-2))            # (..., C, d)
        m = memory[..., -1, :, :]
    return join_blocks(torch.stack(ys, dim=-3), T), m


def _blocks_side_by_side(i, e, o, s, matrix: bool):
    """Every block scans its C steps from zero memory at once (exact for any o).

    Keeps the running decay P_t (product of oscillations since the block start) and
    the reader P_tᵀ s_t, so the memory entering the block is read in one matmul later.
    """
    C = o.shape[-3]
    batch_n = torch.broadcast_shapes(i.shape[:-2], o.shape[:-3])
    k, d = e.shape[-1], i.shape[-1]
    local = torch.zeros(*batch_n, k, d, dtype=o.dtype, device=o.device)
    if matrix:
        P = torch.eye(k, dtype=o.dtype, device=o.device).expand(*batch_n, k, k)
    else:
        P = torch.ones(*batch_n, *o.shape[-2:], dtype=o.dtype, device=o.device)
    ys, Ps, readers = [], [], []
    for t in range(C):
        o_t = o[..., t, :, :]
        local = (o_t @ local if matrix else o_t * local) + e[..., t, :, None] * i[..., t, None, :]
        P = o_t @ P if matrix else o_t * P
        ys.append((local * s[..., t, :, None]).sum(-2))
        if matrix:
            readers.append((P * s[..., t, :, None]).sum(-2))           # P_tᵀ s_t  (..., N, k)
        else:
            Ps.append(P)
    y = torch.stack(ys, dim=-2)
    if matrix:
        reader = torch.stack(readers, dim=-2)                          # (..., N, C, k)
        return y, P, local, lambda M: reader @ M
    P_all = torch.stack(Ps, dim=-3)
    return y, P, local, lambda M: carried_outputs(s, P_all, M)

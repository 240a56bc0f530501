"""The index set-up every (sequence, value block) kernel starts with: which slice of the k×d memory a program
holds, and the scratch rows of the recomputing backwards. One place, so the kernels read from their first line
of math; jitted helpers (inlined by Triton, their block sizes still tl.constexpr), plain functions under the
interpreter (utils.helper)."""
from __future__ import annotations

import triton.language as tl

from .utils import helper


@helper
def memory_slice(K, D, BK: tl.constexpr, BV: tl.constexpr):
    """A program of grid (sequence, value block) and its (BK, BV) slice of a k×d memory: i_b (int64, so offsets
    past 2³¹ elements stay right at long sequences of wide states), i_v, the row and column indices ok, ov, their
    masks mk, mv, the slice's mask mkv and its offsets p_kv inside one k×d memory."""
    i_b, i_v = tl.program_id(0).to(tl.int64), tl.program_id(1)
    ok = tl.arange(0, BK)
    ov = i_v * BV + tl.arange(0, BV)
    mk, mv = ok < K, ov < D
    return i_b, i_v, ok, ov, mk, mv, mk[:, None] & mv[None, :], ok[:, None] * D + ov[None, :]


@helper
def scratch_slice(i_b, i_v, CK: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr):
    """Offsets of slot 0 of this program's own scratch: CK + 1 memories of (BK, BV), slot j at + j · BK · BV."""
    NV = tl.num_programs(1)
    return (i_b * NV + i_v) * (CK + 1) * BK * BV + tl.arange(0, BK)[:, None] * BV + tl.arange(0, BV)[None, :]

"""What every EOS kernel launcher shares: the interpreter check, the flattened states they take, splitting
complex states into real and imaginary parts."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

import torch
import triton

# Triton decides at decoration time whether a @triton.jit function is compiled or
# interpreted, so what counts is the environment when `kernels` was first imported.
INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"


# fp32 matmuls: exact "ieee" under the interpreter (the tests' tolerance is fp32 round-off);
# on a GPU "tf32x3" — three tensor-core passes, about fp32 accuracy — because the FMA path of
# "ieee" spills a 128×128 oscillation tile to local memory (tests/kernels/compile_check.py).
DOT_PRECISION = "ieee" if INTERPRET else "tf32x3"


def operand_dtype(dot_dtype):
    """The type tl.dot's operands are handed in: the 16-bit tensor-core type on a GPU. The interpreter's
    bf16 dot multiplies the raw bit patterns, so there the operands are rounded to dot_dtype and widened
    back to fp32 (same rounding, fp32 products; the interpreter's cast truncates where a GPU rounds)."""
    import triton.language as tl
    return tl.float32 if INTERPRET else dot_dtype


def num_warps(tile_elements: int) -> int:
    """4 warps for small tiles, 8 from 2048 fp32 elements per tile (keeps k=128 tiles in registers,
    per tests/kernels/compile_check.py on sm_90)."""
    return 8 if tile_elements >= 2048 else 4


def helper(fn):
    """@triton.jit for a small function called from kernels. Under the interpreter every call of
    a jitted helper re-patches triton.language (~3 ms), which dominates a per-step loop; there a
    plain Python function does the same job, since the interpreted kernel is Python anyway."""
    return fn if INTERPRET else triton.jit(fn)


def check_device(*tensors: torch.Tensor) -> None:
    """CPU tensors run only under the Triton interpreter; say so instead of failing deep in Triton."""
    if INTERPRET:
        return
    for t in tensors:
        if t is not None and not t.is_cuda:
            raise RuntimeError(
                "the Triton kernels need CUDA tensors; on CPU they run only under the Triton interpreter, "
                "and TRITON_INTERPRET=1 must be set before `kernels` is first imported "
                "(or use eos_scan(form='chunked'|'recurrent'))")


def check_offsets(T: int, *widths: int) -> None:
    """The chunk and delta-chunk kernels index a sequence's rows with int32 tile offsets from an int64 base
    (int64 tiles spilled, kernels-design.md §5): T · width must stay below 2³¹ for every row width."""
    widest = max(widths)
    if T * widest >= 2 ** 31:
        raise ValueError(f"a sequence of T = {T} steps of width {widest} is past the kernels' int32 row offsets "
                         f"(T · width < 2³¹); split the sequence or use eos_scan(form='chunked')")


def check_checkpoint(checkpoint) -> None:
    if not isinstance(checkpoint, int) or isinstance(checkpoint, bool) or checkpoint < 1:
        raise ValueError(f"checkpoint must be a positive int (steps between saved memories), got {checkpoint!r}")


def next_pow2(n: int) -> int:
    return 1 << max(0, math.ceil(math.log2(max(1, n))))


@dataclass
class Flat:
    """States with the leading batch dims flattened to one B (the core's adapter, `lcsm_core.scan.kernel`,
    validates and flattens them).

    i (B, T, d)   e, s (B, T, k)   o (Bo, T|1, k|1, d|1) elementwise or (Bo, T|1, k, k) matrix,
    Bo = 1 when o is shared by the whole batch (a static parameter), else B.
    m0 (B, k, d) or None.
    """

    i: torch.Tensor
    e: torch.Tensor
    o: torch.Tensor
    s: torch.Tensor
    m0: torch.Tensor | None
    B: int


def split(x: torch.Tensor | None, complex_mode: bool):
    """(real part, imaginary part) as contiguous real tensors; imag is None for a real x in real mode."""
    if x is None:
        return None, None
    if x.is_complex():
        return x.real.contiguous(), x.imag.contiguous()
    x = x.contiguous()
    return x, (torch.zeros_like(x) if complex_mode else None)

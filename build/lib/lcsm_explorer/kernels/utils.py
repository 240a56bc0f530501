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


# How tl.dot multiplies fp32 operands on a GPU, per kernel family (bf16/fp16 operands ignore it: 16-bit products,
# fp32 accumulation). Never "ieee" there: its FMA path spills a 128×128 tile (tests/kernels/compile_check.py).
#   "tf32x3": three tensor-core passes on split operands, about fp32 accuracy, more registers;
#   "tf32":   one pass on operands rounded to 10 mantissa bits, ~1e-3 relative (fla's choice for fp32).
GPU_DOT_PRECISION = {
    # GLA-family chunk kernels (chunk.py): at tf32x3 every forward kernel holds its tiles at k = 128 (sm_90).
    "chunk": "tf32x3",
    # Structured delta rule, chunked WY form (delta.py, delta_wy.py): at tf32x3 the split 64×128 operands spill
    # (prep 2784 B, state 792 B, backward walk 1216 B at k = 128), at tf32 none do; the memory is rounded once per
    # 64-step chunk, not per step. The CUDA check's tolerance follows (tests/kernels/dot_tolerance.py).
    "delta": "tf32",
    # The dense per-step k×k matrix kernel (fused_recurrent_matrix.py): the memory goes through a dot every step,
    # so tf32 would round it T times; it keeps tf32x3 and its recorded forward spill (kernels-design.md §5).
    "matrix": "tf32x3",
}


# Under the interpreter every family is exact "ieee": the CPU tests' tolerance is fp32 round-off.
def _on_this_device(family: str) -> str:
    return "ieee" if INTERPRET else GPU_DOT_PRECISION[family]


CHUNK_DOT_PRECISION = _on_this_device("chunk")
DELTA_DOT_PRECISION = _on_this_device("delta")
MATRIX_DOT_PRECISION = _on_this_device("matrix")


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

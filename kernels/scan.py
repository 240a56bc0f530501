"""`eos_kernel_scan`: the Triton path behind `eos_scan(form="kernel")`, choosing a kernel
by the shape of the oscillation."""
from __future__ import annotations

import torch

from .chunk import chunk_eligible, run_chunk
from .fused_recurrent import finish, run_fused_recurrent
from .fused_recurrent_matrix import run_fused_recurrent_matrix
from .utils import flatten

IMPLS = ("auto", "chunk", "fused_recurrent")


def eos_kernel_scan(inp, m0: torch.Tensor | None, impl: str = "auto"):
    """Run validated `ScanInputs` through a kernel.

    psi="matrix" → fused recurrent matrix kernel (real states only).
    psi="elementwise" → the chunked kernel when o = g 1ᵀ with real g > 0 and real i, e, s
    (GLA, RetNet, linear attention, HGRN: the training form), otherwise the fused recurrent
    kernel (any broadcast o, real or complex). Checking g > 0 reads o (one sync on CUDA).
    impl="chunk" / "fused_recurrent" forces an elementwise kernel.

    The memory is fp32 inside the kernels whatever the input dtype (fp64 inputs therefore get
    fp32 accuracy). Returns y (*batch, T, d), real, in the state dtype's real counterpart, and
    m_T (*batch, k, d) in the state dtype (complex when any state is complex).
    """
    if impl not in IMPLS:
        raise ValueError(f"impl must be one of {IMPLS}, got {impl!r}")
    flat = flatten(inp, m0)
    if inp.psi == "matrix":
        return finish(inp, *run_fused_recurrent_matrix(flat))
    real_ies = not any(x is not None and x.is_complex() for x in (inp.i, inp.e, inp.s, m0))
    eligible = real_ies and chunk_eligible(inp.o)
    if impl == "chunk" and not eligible:
        raise ValueError("impl='chunk' needs real i, e, s and a real, positive o of shape (..., T|1, k|1, 1)")
    if impl == "chunk" or (impl == "auto" and eligible):
        return finish(inp, *run_chunk(flat))
    return finish(inp, *run_fused_recurrent(flat))

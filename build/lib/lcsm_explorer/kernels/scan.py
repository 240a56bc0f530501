"""`eos_kernel_scan`: the Triton path behind `eos_scan(form="kernel")`, choosing a kernel by the shape of the
oscillation. It takes plain tensors whose shapes the caller has validated and flattened
(`lcsm_core.scan.kernel` does both); nothing here knows the core."""
from __future__ import annotations

import torch

from .chunk import chunk_eligible, run_chunk
from .fused_recurrent import run_fused_recurrent
from .fused_recurrent_matrix import run_fused_recurrent_matrix
from .rotation import rotation_eligible, run_rotation
from .utils import Flat

IMPLS = ("auto", "chunk", "fused_recurrent")
PSI = ("elementwise", "matrix")


def eos_kernel_scan(i: torch.Tensor, e: torch.Tensor, o: torch.Tensor, s: torch.Tensor,
                    m0: torch.Tensor | None = None, *, psi: str = "elementwise", impl: str = "auto"):
    """Run flattened EOS states through a kernel.

    i (B, T, d); e, s (B, T, k); o (Bo, T|1, k|1, d|1) elementwise or (Bo, T|1, k, k) matrix, Bo = 1 when o
    is shared by the whole batch, else B; m0 (B, k, d) or None.

    psi="matrix" → fused recurrent matrix kernel (real states only).
    psi="elementwise" → the chunked kernel when o = g 1ᵀ with real g > 0 and real i, e, s
    (GLA, RetNet, linear attention, HGRN: the training form); the same chunked kernel over 2k rows when
    o = r e^{iθ} 1ᵀ is complex with r > 0 and i real (LRPE, Cosformer, LRU: rotation.py); otherwise the fused
    recurrent kernel (any broadcast o, real or complex). Checking g > 0 reads o (one sync on CUDA).
    impl="chunk" / "fused_recurrent" forces an elementwise kernel.

    The memory is fp32 inside the kernels whatever the input dtype. Returns y (B, T, d) fp32, real, and
    m_T (B, k, d) fp32, complex64 when any state is complex.
    """
    if impl not in IMPLS:
        raise ValueError(f"impl must be one of {IMPLS}, got {impl!r}")
    if psi not in PSI:
        raise ValueError(f"psi must be one of {PSI}, got {psi!r}")
    flat = Flat(i=i, e=e, o=o, s=s, m0=m0, B=i.shape[0])
    if psi == "matrix":
        return run_fused_recurrent_matrix(flat)
    if impl != "fused_recurrent" and rotation_eligible(flat):
        return run_rotation(flat)
    real_ies = not any(x is not None and x.is_complex() for x in (i, e, s, m0))
    eligible = real_ies and chunk_eligible(o)
    if impl == "chunk" and not eligible:
        raise ValueError("impl='chunk' needs real i, e, s and a real, positive o of shape (..., T|1, k|1, 1)")
    if impl == "chunk" or (impl == "auto" and eligible):
        return run_chunk(flat)
    return run_fused_recurrent(flat)

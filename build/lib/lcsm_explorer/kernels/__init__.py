"""Triton kernels behind `eos_scan(form="kernel")`. The readable reference is
`lcsm_core.scan.reference` (`eos_scan(form="recurrent")`); every kernel is tested against it.

chunk.py: GLA-family gates on tensor cores (chunk 64, sub-chunks 16); rotation.py: complex k-vector
oscillations (LRPE, Cosformer, LRU) on the same kernel over 2k rows; delta.py / delta_wy.py: the structured delta
rule (fused recurrent, chunked WY forward and backward); fused_recurrent*.py: any other elementwise or matrix o;
slices.py: the index set-up the walking kernels share.
Design and the sm_90 compile record: benchmarks/results/kernels-design.md.

A leaf: the kernels take plain, already validated and flattened tensors and import nothing of `lcsm_core`;
`lcsm_core.scan.kernel` validates, flattens and offers the user-facing `chunk_eos`, `fused_recurrent_eos`
and `fused_recurrent_eos_matrix`.

On CPU the kernels run only under Triton's interpreter: set TRITON_INTERPRET=1 before
this package is first imported.
"""
from .chunk import chunk_eligible, run_chunk
from .delta import run_delta
from .fused_recurrent import run_fused_recurrent
from .fused_recurrent_matrix import run_fused_recurrent_matrix
from .rotation import run_rotation
from .scan import eos_kernel_scan
from .utils import INTERPRET, Flat

__all__ = ["INTERPRET", "Flat", "chunk_eligible", "eos_kernel_scan", "run_chunk", "run_delta", "run_fused_recurrent",
           "run_fused_recurrent_matrix", "run_rotation"]

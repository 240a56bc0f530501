"""Triton kernels behind `eos_scan(form="kernel")`. The readable reference is
`lcsm_core.eos_scan(form="recurrent")`; every kernel is tested against it.

On CPU the kernels run only under Triton's interpreter: set TRITON_INTERPRET=1 before
this package is first imported.
"""
from .chunk import chunk_eos
from .fused_recurrent import fused_recurrent_eos
from .fused_recurrent_matrix import fused_recurrent_eos_matrix
from .scan import eos_kernel_scan
from .utils import INTERPRET

__all__ = ["INTERPRET", "chunk_eos", "eos_kernel_scan", "fused_recurrent_eos", "fused_recurrent_eos_matrix"]

"""The CUDA half of the form chooser (`choose.choose_form` asks `cuda_form` when the states live on a GPU and the
Triton kernels are installed): the kernels, or the torch chunked form where the kernels would be slower.

The rule, by the shapes alone (no device sync, usable by the cost model before any tensor exists):

1. Launch-bound scans go to the torch chunked form. Below LAUNCH_BOUND_WORK memory-cell updates per scan
   (sequences · T · k · d) a forward+backward is a handful of microsecond-scale launches either way, and the
   kernel path launches more of them (3 Triton kernels forward and 4 backward for the chunk kernel, plus the
   log-gate and its cumsum in torch) than the torch chunked form's few batched matmuls over one or two blocks.
   Measured on an H100 (issue 23): at the Train live shapes (batch 32, T = 64, k = d = 64, 2 layers:
   8.4·10⁶ updates per scan) the previous kernels ran 70 training steps/s against 86 for torch chunked, so the
   threshold sits above them: `form="auto"` is never slower than torch chunked there, by construction.
2. A structured Outer(k_part, d_part) oscillation goes to the torch chunked form: it has a factored chunked path
   (scan/chunked_factors.py); the kernels would read it as a dense (T, k, d) tensor.
3. Everything else goes to the kernels: the chunk kernel for GLA-family gates, the structured delta-rule kernels
   for DeltaRule(k, β), the fused recurrent kernels for any other elementwise or matrix oscillation.

Owed on a GPU (benchmarks/kernels.py prints the rows this rule needs, the live-training shape included): the
crossover in 1 measured with the new tensor-core kernels, which launch as many kernels as before but do less
work per launch; and whether a per-step k×k dense matrix (whose fused kernel spills at k = 128) should go chunked.
"""
from __future__ import annotations

# Memory-cell updates per scan (sequences · T · k · d) below which the kernels' extra launches cost more than
# they save. 2²⁴: the Train live defaults (2²³) stay on torch chunked; the benchmark shape (128 sequences,
# T = 4096, k = d = 128: 2³³) runs the kernels. To be re-measured on a GPU (see the module docstring).
LAUNCH_BOUND_WORK = 1 << 24


def cuda_form(shape) -> str:
    """"kernel" or "chunked" for a scan on CUDA with the Triton kernels installed. `shape`: choose.ScanShape."""
    work = shape.sequences * shape.T * shape.k * shape.d
    if work < LAUNCH_BOUND_WORK:
        return "chunked"
    if getattr(shape, "structure", "dense") == "outer":
        return "chunked"
    return "kernel"

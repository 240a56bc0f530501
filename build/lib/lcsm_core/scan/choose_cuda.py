"""The CUDA half of the form chooser (`choose.choose_form` asks `cuda_form` when the states live on a GPU and the
Triton kernels are installed): the kernels, or the torch chunked form where the kernels are not known to win.

No timing of the tensor-core kernels exists yet, so the rule is conservative: the
kernels run only where their design says they win, and every shape the Train live page can make stays on torch
chunked until measured. By the shapes alone (no device sync, usable by the cost model before any tensor exists):

1. Sequences of at most LIVE_MAX_T steps go to the torch chunked form. The server caps a training run's sequence
   length at 256 (`SizeLimits.max_seq_len`; tests/kernels/test_choose_cuda.py pins the two), so every live
   training shape lands here, whatever its batch, k, d or variant. There the torch chunked form is at most
   ⌈256 / 64⌉ = 4 blocks of batched matmuls, while the kernel path launches as many kernels (3 forward and 5
   backward for the chunk kernel, plus the log-gate and its cumsum in torch), each with little work. Measured on
   an H100 with the previous kernels: at the Train live defaults (batch 32, T = 64, k = d = 64,
   2 layers) the kernels ran 70 training steps/s against 86 for torch chunked.
2. Launch-bound scans go to the torch chunked form: below LAUNCH_BOUND_WORK memory-cell updates per scan
   (sequences · T · k · d), a long but narrow scan (the dynamics lessons' few modes over thousands of steps).
3. A structured Outer(k_part, d_part) oscillation goes to the torch chunked form: it has a factored chunked path
   (scan/chunked_factors.py); the kernels would read it as a dense (T, k, d) tensor.
4. Everything else — long sequences with real work — goes to the kernels: the chunk kernel for GLA-family gates
   and complex k-vector oscillations, the structured delta-rule kernels for DeltaRule(k, β), the fused recurrent
   kernels for any other elementwise or matrix oscillation. There the torch chunked form walks T / 64 blocks in
   Python (64 at the benchmark shape, T = 4096) and the kernels' one sequential walk per (sequence, value block)
   runs on tensor cores.

Owed on a GPU (benchmarks/kernels.py prints the rows this rule needs, the live-training shape included): the
live_gla row (`auto` vs torch chunked vs the chunk kernel at batch 32, T = 64, k = d = 64) and the benchmark
rows. Only when the kernels beat torch chunked at live shapes may LIVE_MAX_T come down (and the test with it).
"""
from __future__ import annotations

# Longest sequence kept on torch chunked whatever its size: the server's cap on a training run's sequence length
# (lcsm_core.training.config.SizeLimits.max_seq_len, not imported: the scan package stays below training).
LIVE_MAX_T = 256
# Memory-cell updates per scan (sequences · T · k · d) below which the kernels' extra launches cost more than
# they save. The benchmark shape (128 sequences, T = 4096, k = d = 128: 2³³) runs the kernels.
LAUNCH_BOUND_WORK = 1 << 24


def cuda_form(shape) -> str:
    """"kernel" or "chunked" for a scan on CUDA with the Triton kernels installed. `shape`: choose.ScanShape."""
    if shape.T <= LIVE_MAX_T:
        return "chunked"
    if shape.sequences * shape.T * shape.k * shape.d < LAUNCH_BOUND_WORK:
        return "chunked"
    if getattr(shape, "structure", "dense") == "outer":
        return "chunked"
    return "kernel"

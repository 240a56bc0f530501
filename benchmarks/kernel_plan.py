"""The plan of benchmarks/kernels.py: each row's implementations, do_bench's planned repetitions and an estimated
wall time on the GPU, so that the run fits its budget by design and `--dry-run` shows the plan without a GPU.

The estimates are guesses until the first GPU run replaces them (no kernel of issue 23 has been timed): a call's
time is the bytes its forward must move at an assumed fraction of the copy bandwidth, a forward+backward three
times that, and every implementation's first call per dtype pays its compiles (fla's chunk ops also autotune).
kernels.py does not start a row whose estimate no longer fits the budget, and says so in the table.
"""
from __future__ import annotations

from dataclasses import dataclass

WARMUP_MS, REP_MS = 25, 100     # do_bench's warmup and rep in kernels.py (milliseconds of calls, not counts)
SIZING_CALLS = 5                # do_bench first times 5 calls to size its loops
ASSUMED_BANDWIDTH = 3.0e12      # H100 copy rate (issue 5); the run measures the real one
# Fraction of that a forward is assumed to reach: ours 5 % (the previous kernels' best, issue 23), fla 30 %
# (ours measured 0.15× of chunk_gla), torch chunked 3 %.
BANDWIDTH_FRACTION = {"ours": 0.05, "fla chunk": 0.30, "fla fused": 0.30, "torch": 0.03}
CALL_FLOOR_MS = 0.05            # a handful of launches, whatever the bytes
# An implementation's first call, seconds, paid once per (implementation, dtype, k) — Triton caches a compiled
# kernel for the rest of the run: our compiles (the 8 chunk kernels took 7 s of CPU cold on this project's CPU
# machine, Python's start included), fla's autotuning of its chunk ops (tens of configs per kernel, each compiled
# and timed: the guess that decides what fits), torch's first cuBLAS calls.
FIRST_CALL_S = {"ours": 6.0, "fla chunk": 40.0, "fla fused": 4.0, "torch": 0.5}
ELEMENT_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}


def kind(impl: str) -> str:
    """What an implementation's name says about its cost: ours, fla chunk, fla fused or torch."""
    if impl.startswith("fla"):
        return "fla chunk" if "chunk" in impl else "fla fused"
    if impl.startswith("torch") or "picks chunked" in impl:
        return "torch"
    return "ours"


def forward_bytes(op: str, B: int, T: int, H: int, K: int, V: int, dtype: str) -> int:
    """The bytes a forward must move at least: q, k (and a gate or β per k) and v once, the fp32 output once;
    a dense k×k oscillation per step for delta_dense."""
    n, el = B * H * T, ELEMENT_BYTES[dtype]
    per_step = {"delta_dense": K * K + 2 * K + V, "delta": 2 * K + V + 1}.get(op, 3 * K + V)
    return n * per_step * el + n * V * 4


def do_bench_calls(call_ms: float) -> tuple[int, int]:
    """(repetitions timed, calls in all) of one triton.testing.do_bench(fn, warmup=25, rep=100) of a call_ms call."""
    reps = max(1, int(REP_MS / call_ms))
    return reps, SIZING_CALLS + max(1, int(WARMUP_MS / call_ms)) + reps


@dataclass
class Planned:
    impl: str
    fwd_ms: float
    reps_fwd: int
    reps_both: int
    seconds: float


@dataclass
class Row:
    op: str
    dtype: str
    shape: str
    impls: list
    seconds: float


def plan_row(op: str, dtype: str, dims: dict, impls: list, compiled: set) -> Row:
    """One row (operator, dtype) at dims (B, T, H, K, V): every implementation's planned repetitions and time.
    compiled: the (implementation, dtype, k) already planned by earlier rows, whose first call costs nothing more
    (updated here)."""
    moved = forward_bytes(op, dims["B"], dims["T"], dims["H"], dims["K"], dims["V"], dtype)
    planned = []
    for impl in impls:
        what = kind(impl)
        fwd = max(CALL_FLOOR_MS, 1e3 * moved / (ASSUMED_BANDWIDTH * BANDWIDTH_FRACTION[what]))
        reps_fwd, calls_fwd = do_bench_calls(fwd)
        reps_both, calls_both = do_bench_calls(3 * fwd)
        first = 0.0 if (impl, dtype, dims["K"]) in compiled else FIRST_CALL_S[what]
        compiled.add((impl, dtype, dims["K"]))
        seconds = first + (calls_fwd * fwd + calls_both * 3 * fwd + 4 * fwd) / 1e3
        planned.append(Planned(impl, fwd, reps_fwd, reps_both, seconds))
    shape = " ".join(f"{n}={dims[n]}" for n in "BTHKV")
    return Row(op, dtype, shape, planned, sum(p.seconds for p in planned))


def describe(rows: list, budget_s: float) -> str:
    """The plan as lines: a row per implementation, each operator's estimate, the total against the budget."""
    lines = [f"plan (estimates, to be replaced by the first GPU run; budget {budget_s:.0f} s):"]
    total = 0.0
    for row in rows:
        total += row.seconds
        fits = "" if total <= budget_s else "  <- over the budget: skipped unless the run goes faster"
        lines.append(f"  {row.op} {row.dtype} {row.shape}: ~{row.seconds:.0f} s (cumulative {total:.0f} s){fits}")
        for p in row.impls:
            lines.append(f"    {p.impl}: ~{p.fwd_ms:.2f} ms/fwd, {p.reps_fwd} fwd reps + {p.reps_both} fwd+bwd "
                         f"reps, ~{p.seconds:.0f} s")
    lines.append(f"estimated total {total:.0f} s of a {budget_s:.0f} s budget")
    return "\n".join(lines)

"""benchmarks/kernels.py fits its budget by design: `--dry-run` prints the GPU plan (every row's repetitions and
estimated time, the live-training row included) and runs the whole script on tiny shapes through the interpreter;
the plan's arithmetic is do_bench's."""
import subprocess
import sys
from pathlib import Path

from benchmarks import kernel_plan

ROOT = Path(__file__).resolve().parents[2]


def test_dry_run_prints_the_plan_and_runs_every_row():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "kernels.py"), "--dry-run"], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    text = out.stdout
    assert "live_gla bf16 B=32 T=64 H=1 K=64 V=64" in text                  # the live-training shape, planned
    assert "fla chunk_gla" in text and "fla chunk_delta_rule" in text        # fla's rows are counted in the plan
    assert "fwd reps" in text and "estimated total" in text
    for header in ("% bw", "fwd vs fla", "fwd+bwd vs fla", "fwd+bwd vs torch"):
        assert header in text
    for op in ("live_gla", "gla", "delta", "simple_gla", "lrpe", "delta_dense"):
        assert f"| {op} | B=1 T=20" in text, op                             # every operator ran end to end
    assert "error" not in text[text.index("| operator |"):]                 # no implementation failed


def test_do_bench_arithmetic():
    assert kernel_plan.do_bench_calls(1.0) == (100, 5 + 25 + 100)
    assert kernel_plan.do_bench_calls(500.0) == (1, 5 + 1 + 1)             # a slow call: one of each


def test_the_bf16_pass_fits_the_budget_and_compiles_are_paid_once():
    dims = dict(B=8, T=4096, H=16, K=128, V=128)
    compiled = set()
    impls = ["eos chunk (ours)", "torch eos_scan chunked", "fla chunk_gla", "fla fused_recurrent_gla"]
    first = kernel_plan.plan_row("gla", "bf16", dims, impls, compiled)
    again = kernel_plan.plan_row("simple_gla", "bf16", dims, impls, compiled)
    assert again.seconds < first.seconds - kernel_plan.FIRST_CALL_S["fla chunk"] + 1
    assert kernel_plan.kind("eos_scan form=auto (picks chunked)") == "torch"
    assert kernel_plan.kind("eos_scan form=auto (picks kernel)") == "ours"
    assert kernel_plan.kind("fla fused_recurrent_delta_rule") == "fla fused"


def test_the_default_bf16_rows_fit_the_default_budget():
    """The training dtype's pass over every operator fits by the plan's own estimates; fp32 rows that do not fit
    are skipped by name (the run says which --ops/--dtypes to run next)."""
    import argparse

    import benchmarks.kernels as bench
    args = argparse.Namespace(B=8, T=4096, H=16, K=128, V=128, matrix_B=1, matrix_T=1024, smoke=False,
                              ops=bench.DEFAULT_OPS, dtypes="bf16")
    plan = bench.make_plan(args)
    assert [op for op, _ in plan] == bench.DEFAULT_OPS.split(",")
    assert sum(row.seconds for row in plan.values()) < 270

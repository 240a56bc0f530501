"""The kernels compile for an H100 (sm_90) with the launchers' block sizes, without a GPU:
the interpreter never runs Triton's compiler, so this is the check that the GPU path builds.
Runs tests/kernels/compile_check.py in a child process without TRITON_INTERPRET."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# one variant per kernel family and the complex one, every chunk kernel; `--all` builds all 40
SUBSET = ",".join([
    "fused_recurrent fwd O_T=True O_K=True O_D=True complex=False",
    "fused_recurrent bwd O_T=False O_K=True O_D=True complex=True",
    "matrix fwd O_T=True", "matrix bwd O_T=False", "chunk fwd", "chunk bwd", "delta",
])
# their dots must lower to tensor-core instructions (wgmma/mma in the PTX)
TENSOR_CORE = ("chunk fwd intra", "chunk fwd state", "chunk fwd out", "chunk bwd dstate", "chunk bwd dv",
               "chunk bwd dqk", "chunk bwd dscores", "chunk bwd dintra", "delta chunk prep", "delta chunk state",
               "delta chunk out", "delta chunk bwd walk")
# k = 128, bf16 inputs (the training dtype) and fp32 inputs (dots at kernels/utils.py GPU_DOT_PRECISION: tf32x3 for
# the GLA chunk and the dense matrix, tf32 for the delta chunk form): every kernel built here holds its tiles in
# registers, forward and backward, except these (bytes spilled, 2026-11-25, Triton 3.9.0; a rise is a regression).
# The one forward among them is the dense per-step k×k matrix kernel (S4/S5): a 128×128 fp32 oscillation per step is
# 64 KiB per program, more than a register-file slice, and at tf32 (no spill) its memory would be rounded every step.
# The GLA chunk bwd dv at fp32 is tf32x3's split operands (tf32 fits; kernels-design.md §5).
RECORDED_SPILL = {
    "bf16": {"matrix fwd O_T=True": 232, "matrix bwd O_T=False": 776},
    "fp32": {"matrix fwd O_T=True": 464, "matrix bwd O_T=False": 1000, "chunk bwd dv": 456},
}
FORWARD_SPILL_ALLOWED = {"matrix fwd O_T=True"}   # the forward kernels in RECORDED_SPILL, named once more


def stack_bytes(line: str) -> int:
    return int(line.split("STACK:")[1].split()[0])


@pytest.mark.parametrize("in_dtype", ["bf16", "fp32"])
def test_kernels_compile_for_sm90(in_dtype):
    triton = pytest.importorskip("triton")
    if not (Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas").exists():
        pytest.skip("this triton build has no bundled ptxas: cannot compile for CUDA without a GPU toolchain")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, str(ROOT / "tests" / "kernels" / "compile_check.py"), "--only", SUBSET,
                          "--max-spill", "2048", "--in-dtype", in_dtype],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert out.stdout.count("ok ") == 18, out.stdout
    ok = [line for line in out.stdout.splitlines() if line.startswith("ok")]
    lines = {line.split(":")[0].removeprefix("ok   "): line for line in ok}
    for name in TENSOR_CORE:
        assert "mma" in lines[name] and "no-mma" not in lines[name], lines[name]
    recorded = RECORDED_SPILL[in_dtype]
    assert {name for name in recorded if " fwd" in name} <= FORWARD_SPILL_ALLOWED
    for name, line in lines.items():
        if name in recorded:
            assert stack_bytes(line) <= recorded[name], f"{line} (recorded: STACK:{recorded[name]})"
        else:
            assert stack_bytes(line) == 0, line
    print("\n".join(ok))

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
# k = 128, bf16 inputs (the training dtype): every chunk, delta and elementwise fused kernel, forward and backward,
# holds its tiles in registers (issue 23: no spills in the forward kernels; the backward's are now none as well).
NO_SPILL = TENSOR_CORE + ("delta fused fwd", "delta bwd",
                          "fused_recurrent fwd O_T=True O_K=True O_D=True complex=False",
                          "fused_recurrent bwd O_T=False O_K=True O_D=True complex=True")
# The dense per-step k×k matrix kernel (S4/S5), recorded (bytes spilled, 2026-11-25, Triton 3.9.0), a rise is a
# regression: a 128×128 fp32 oscillation per step is 64 KiB per program, more than a register-file slice.
RECORDED_SPILL = {"matrix fwd O_T=True": 232, "matrix bwd O_T=False": 776}


def stack_bytes(line: str) -> int:
    return int(line.split("STACK:")[1].split()[0])


def test_kernels_compile_for_sm90():
    triton = pytest.importorskip("triton")
    if not (Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas").exists():
        pytest.skip("this triton build has no bundled ptxas: cannot compile for CUDA without a GPU toolchain")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, str(ROOT / "tests" / "kernels" / "compile_check.py"), "--only", SUBSET,
                          "--max-spill", "2048"], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert out.stdout.count("ok ") == 18, out.stdout
    ok = [line for line in out.stdout.splitlines() if line.startswith("ok")]
    lines = {line.split(":")[0].removeprefix("ok   "): line for line in ok}
    for name in TENSOR_CORE:
        assert "mma" in lines[name] and "no-mma" not in lines[name], lines[name]
    for name in NO_SPILL:
        assert stack_bytes(lines[name]) == 0, lines[name]
    for name, recorded in RECORDED_SPILL.items():
        assert stack_bytes(lines[name]) <= recorded, f"{lines[name]} (recorded: STACK:{recorded})"
    print("\n".join(ok))

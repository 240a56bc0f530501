"""`eos_scan(form="kernel")` and `form="auto"` reach the kernels; without the interpreter a
CPU call fails with a clear message; on CUDA the compiled kernels match the reference."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from lcsm_core import eos_scan
from tests.kernels.kernel_check import check_against_reference, make_states

kernels = pytest.importorskip("lcsm_explorer.kernels")
ROOT = Path(__file__).resolve().parents[2]


def scan(form, psi="elementwise"):
    return lambda i, e, o, s, m0: eos_scan(i, e, o, s, psi=psi, form=form, initial_state=m0, return_state=True)


@pytest.mark.parametrize("o_shape, complex_o", [
    ((3, 20, 5, 1), False),      # chunked kernel; o shared over the first batch dim
    ((20, 5, 7), True),          # fused recurrent, complex; o shared over both batch dims
], ids=["B2x3-T20-k5-d7-kx1-chunk", "B2x3-T20-k5-d7-kxd-complex-fused"])
def test_form_kernel_with_leading_dims(o_shape, complex_o):
    states = make_states(None, 20, 5, 7, o_shape, lead=(2, 3), complex_o=complex_o)
    check_against_reference(scan("kernel"), states)


def test_form_kernel_matrix():
    i, e, _, s, m0 = make_states(2, 37, 5, 7, ())
    o = 0.8 * torch.eye(5) + 0.1 * torch.randn(2, 37, 5, 5, generator=torch.Generator().manual_seed(2))
    check_against_reference(scan("kernel", "matrix"), [i, e, o, s, m0], psi="matrix")


def test_form_auto_forced_to_kernel(monkeypatch):
    calls = []
    real = kernels.eos_kernel_scan

    def spy(*states, psi, impl):
        calls.append(psi)
        return real(*states, psi=psi, impl=impl)

    monkeypatch.setattr(kernels, "eos_kernel_scan", spy)
    monkeypatch.setenv("LCSM_SCAN_FORM", "kernel")
    states = make_states(2, 37, 5, 7, (2, 37, 5, 7))
    check_against_reference(scan("auto"), states)
    assert calls == ["elementwise"]


@pytest.mark.parametrize("impl", ["chunk", "fused_recurrent"])
def test_both_elementwise_kernels_on_a_gla_input(impl):
    from lcsm_core.scan.inputs import check_initial_state, prepare
    from lcsm_core.scan.kernel import scan_kernel

    def fn(i, e, o, s, m0):
        inp = prepare(i, e, o, s, "elementwise")
        return scan_kernel(inp, check_initial_state(m0, inp), impl=impl)

    check_against_reference(fn, make_states(2, 37, 5, 7, (2, 37, 5, 1)))


def test_cpu_without_interpreter_is_a_clear_error():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    code = ("import torch\n"
            "from lcsm_core.scan.kernel import fused_recurrent_eos\n"
            "x = torch.randn(1, 4, 3)\n"
            "try:\n"
            "    fused_recurrent_eos(x, x, torch.ones(()), x)\n"
            "except RuntimeError as err:\n"
            "    print('ERR', err)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "ERR" in out.stdout and "TRITON_INTERPRET=1" in out.stdout, out.stdout + out.stderr


# The tolerance of each fp32 case follows the precision its kernel's dots run at on the GPU (dot_tolerance.py):
# 1e-4 for none/"tf32x3", 3e-3 for the delta chunk form's "tf32"; bf16 operands 3e-2.
CUDA_CHECK = """
import torch, kernels
from lcsm_explorer.kernels.utils import CHUNK_DOT_PRECISION, DELTA_DOT_PRECISION, MATRIX_DOT_PRECISION
from lcsm_core import eos_scan
from tests.kernels.dot_tolerance import BF16_TOLERANCE, TOLERANCE
torch.manual_seed(0)
B, T, k, d = 2, 300, 64, 96
dev = "cuda"
x = lambda *s: torch.randn(*s, device=dev)
cases = {
  "fused-kxd": (x(B, T, d), x(B, T, k) / 8, torch.rand(B, T, k, d, device=dev) * 0.4 + 0.6, x(B, T, k), "elementwise"),
  "rotation-complex-kx1": (x(B, T, d), x(B, T, k) / 8,
                           (torch.rand(k, 1, device=dev) * 0.4 + 0.6) * torch.exp(1j * x(k, 1)), x(B, T, k),
                           "elementwise"),
  "chunk-kx1": (x(B, T, d), x(B, T, k) / 8, torch.rand(B, T, k, 1, device=dev) * 0.4 + 0.6, x(B, T, k), "elementwise"),
  "fused-complex-kxd": (x(B, T, d), x(B, T, k) / 8, 0.95 * torch.exp(1j * x(k, d)), x(B, T, k), "elementwise"),
  "matrix": (x(B, T, d), x(B, T, k) / 8, 0.9 * torch.eye(k, device=dev) + 0.01 * x(B, T, k, k), x(B, T, k), "matrix"),
}
precision = {"chunk-kx1": CHUNK_DOT_PRECISION, "matrix": MATRIX_DOT_PRECISION}   # the rest have no dots
for name, (i, e, o, s, psi) in cases.items():
    tol = TOLERANCE[precision.get(name, "ieee")]
    leaves = [t.clone().requires_grad_() for t in (i, e, o, s)]
    y = eos_scan(*leaves, psi=psi, form="kernel")
    y.square().sum().backward()
    ref = [t.detach().double() if not t.is_complex() else t.detach().to(torch.complex128) for t in (i, e, o, s)]
    ref = [t.requires_grad_() for t in ref]
    yr = eos_scan(*ref, psi=psi, form="recurrent")
    yr.square().sum().backward()
    for n, a, b in [("y", y, yr)] + [(f"d{n}", p.grad, q.grad) for n, p, q in zip("ieos", leaves, ref)]:
        err = (a.double() - b).abs().max().item() if not a.is_complex() else (a - b).abs().max().item()
        scale = max(b.abs().max().item(), 1.0)
        assert err <= tol * scale, (name, n, err, scale, tol)
    print("ok", name)

# the structured delta rule, both kernels, and the chunk kernel in bf16 (tensor-core operands)
from lcsm_core.scan.structured import DeltaRule
from lcsm_core.scan import kernel as adapter
from lcsm_core.scan.inputs import prepare
keys = torch.nn.functional.normalize(x(B, T, k), dim=-1)
beta = torch.rand(B, T, device=dev)
for impl in ("chunk", "fused_recurrent"):
    tol = TOLERANCE[DELTA_DOT_PRECISION if impl == "chunk" else "ieee"]   # the fused delta kernel has no dots
    states = [x(B, T, d), x(B, T, k) / 8, keys, beta, x(B, T, k)]
    outs = []
    for dt in (torch.float32, torch.float64):
        leaves = [t.detach().to(dt).requires_grad_() for t in states]
        i, e, kk, bb, s = leaves
        inp = prepare(i, e, DeltaRule(kk, bb), s, "matrix")
        y = (adapter.scan_kernel_delta(inp, None, impl=impl)[0] if dt == torch.float32
             else eos_scan(i, e, DeltaRule(kk, bb), s, psi="matrix", form="recurrent"))
        y.square().sum().backward()
        outs.append([y] + [t.grad for t in leaves])
    for n, a, b in zip(["y", "di", "de", "dk", "dbeta", "ds"], *outs):
        err, scale = (a.double() - b).abs().max().item(), max(b.abs().max().item(), 1.0)
        assert err <= tol * scale, ("delta " + impl, n, err, scale, tol)
    print("ok delta", impl)
i, e, o, s = x(B, T, d), x(B, T, k) / 8, torch.rand(B, T, k, 1, device=dev) * 0.4 + 0.6, x(B, T, k)
y16 = eos_scan(i.bfloat16(), e.bfloat16(), o, s.bfloat16(), form="kernel").double()
y64 = eos_scan(*(t.bfloat16().double() for t in (i, e)), o.double(), s.bfloat16().double(), form="recurrent")
assert (y16 - y64).abs().max().item() <= BF16_TOLERANCE * max(y64.abs().max().item(), 1.0), "chunk bf16"
print("ok chunk bf16")
"""


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device: compiled kernels vs the reference")
def test_compiled_kernels_on_cuda():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", CUDA_CHECK], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU the benchmark runs for real")
def test_kernel_benchmark_skips_cleanly_without_cuda():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "kernels.py")], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and "no CUDA: skipped" in out.stdout, out.stdout + out.stderr


@pytest.mark.parametrize("o_shape, psi", [((0, 20, 5, 1), "elementwise"), ((0, 20, 5, 7), "elementwise"),
                                          ((0, 20, 5, 5), "matrix")], ids=["kx1", "kxd", "matrix"])
def test_form_kernel_with_an_empty_batch_is_empty_as_in_the_other_forms(o_shape, psi):
    """Zero programs to launch: the kernel form returns the same empty y and m_T as the recurrent form."""
    i, e, s, o = torch.randn(0, 20, 7), torch.randn(0, 20, 5), torch.randn(0, 20, 5), torch.rand(o_shape)
    y, m = eos_scan(i, e, o, s, psi=psi, form="kernel", return_state=True)
    want_y, want_m = eos_scan(i, e, o, s, psi=psi, form="recurrent", return_state=True)
    assert (y.shape, y.dtype, m.shape, m.dtype) == (want_y.shape, want_y.dtype, want_m.shape, want_m.dtype)

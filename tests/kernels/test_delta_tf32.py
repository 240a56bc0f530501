"""The chunked delta form at the precision its dots run at on a GPU for fp32 inputs (DELTA_DOT_PRECISION, "tf32"),
emulated on the CPU: the interpreter's dot rounds its fp32 operands to tf32 (10 mantissa bits, nearest even) before
multiplying in fp32. The output and every gradient stay within the tolerance the CUDA check asks of the compiled
kernel (dot_tolerance.py), so the owed GPU run fails only on a real fault, not on a tolerance we guessed."""
import numpy as np
import pytest

from tests.kernels.dot_tolerance import TOLERANCE
from tests.kernels.test_delta import NAMES, delta_loop, delta_states, outputs_and_grads

kernels = pytest.importorskip("lcsm_explorer.kernels")
interpreter = pytest.importorskip("triton.runtime.interpreter")
if not (hasattr(interpreter, "_round_f32_to_tf32") and hasattr(interpreter.InterpreterBuilder, "create_dot")):
    pytest.skip("this Triton's interpreter has no tf32 rounding to emulate with", allow_module_level=True)


@pytest.fixture
def gpu_delta_dots(monkeypatch):
    """The delta launchers ask for their GPU precision, and the interpreter's dot honours "tf32" (it ignores
    input_precision otherwise; "tf32x3" is about fp32, which it computes already). Returns that precision."""
    from lcsm_explorer.kernels import delta, delta_wy
    from lcsm_explorer.kernels.utils import DELTA_DOT_PRECISION, GPU_DOT_PRECISION
    assert DELTA_DOT_PRECISION == "ieee"   # the interpreter's own choice stays exact
    exact = interpreter.InterpreterBuilder.create_dot

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if str(input_precision).endswith(".TF32") and a.data.dtype == np.float32:
            a = interpreter.TensorHandle(interpreter._round_f32_to_tf32(a.data), a.dtype)
            b = interpreter.TensorHandle(interpreter._round_f32_to_tf32(b.data), b.dtype)
        return exact(self, a, b, d, input_precision, max_num_imprecise_acc)

    monkeypatch.setattr(interpreter.InterpreterBuilder, "create_dot", create_dot)
    monkeypatch.setattr(delta, "DELTA_DOT_PRECISION", GPU_DOT_PRECISION["delta"])
    monkeypatch.setattr(delta_wy, "DELTA_DOT_PRECISION", GPU_DOT_PRECISION["delta"])
    return GPU_DOT_PRECISION["delta"]


def relative_errors(states):
    """max |err| / max(|ref|, 1) of the chunked form's output, final state and every gradient vs fp64."""
    from lcsm_explorer.kernels.delta import run_delta
    got = outputs_and_grads(lambda *x: run_delta(*x, impl="chunk"), states)
    ref = outputs_and_grads(delta_loop, [None if x is None else x.double() for x in states])
    pairs = [("y", got[0], ref[0]), ("m_T", got[1], ref[1])] + list(zip((f"grad {n}" for n in NAMES), got[2], ref[2]))
    return {name: (a.double() - b).abs().max().item() / max(b.abs().max().item(), 1.0) for name, a, b in pairs}


def test_delta_chunk_at_its_gpu_precision_meets_the_cuda_tolerance(gpu_delta_dots):
    errors = relative_errors(delta_states(1, 130, 64, 40))
    assert max(errors.values()) <= TOLERANCE[gpu_delta_dots], errors
    if gpu_delta_dots == "tf32":   # the emulation is real: tf32 rounding shows, far above fp32 round-off (~1e-7)
        assert max(errors.values()) > 3e-5, errors

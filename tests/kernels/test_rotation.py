"""Complex k-vector oscillation (LRPE, Cosformer, LRU) on the chunk kernel over 2k rows (kernels/rotation.py):
output, final state and every gradient against the fp64 reference, through eos_scan(form="kernel")."""
import pytest
import torch

from lcsm_core import eos_scan
from tests.kernels.kernel_check import check_against_reference, make_states

kernels = pytest.importorskip("lcsm_explorer.kernels")


def scan(i, e, o, s, m0):
    return eos_scan(i, e, o, s, form="kernel", initial_state=m0, return_state=True)


@pytest.fixture
def rotation_calls(monkeypatch):
    import lcsm_explorer.kernels.scan as dispatch
    calls = []
    real = dispatch.run_rotation
    monkeypatch.setattr(dispatch, "run_rotation", lambda flat: calls.append(1) or real(flat))
    return calls


BF16 = torch.bfloat16
CASES = [   # (B, T, k, d, o_shape, dtype, complex_e)
    pytest.param(2, 37, 5, 7, (5, 1), torch.float32, False, id="LRPE-static-kx1-T37"),
    pytest.param(1, 130, 5, 40, (5, 1), torch.float32, False, id="LRPE-static-kx1-T130-d40"),
    pytest.param(2, 70, 5, 7, (2, 70, 5, 1), torch.float32, False, id="per-step-kx1-T70"),
    pytest.param(2, 1, 3, 7, (), torch.float32, False, id="scalar-T1"),
    pytest.param(1, 37, 5, 7, (5, 1), torch.float32, True, id="LRU-like-complex-e"),
    pytest.param(1, 70, 5, 7, (5, 1), BF16, False, id="static-kx1-T70-bfloat16"),
    pytest.param(2, 1, 3, 7, (), BF16, False, id="scalar-T1-bfloat16"),          # bf16 at every awkward T
    pytest.param(1, 37, 5, 7, (5, 1), BF16, True, id="LRU-like-complex-e-T37-bfloat16"),
    pytest.param(1, 130, 5, 40, (1, 130, 5, 1), BF16, False, id="per-step-kx1-T130-d40-bfloat16"),
]


@pytest.mark.parametrize("B, T, k, d, o_shape, dtype, complex_e", CASES)
def test_rotation_matches_reference(B, T, k, d, o_shape, dtype, complex_e, rotation_calls):
    states = make_states(B, T, k, d, o_shape, dtype=dtype, complex_o=True, complex_e=complex_e)
    check_against_reference(scan, states, dtype=dtype)
    assert rotation_calls, "the complex k-vector oscillation did not take the rotation path"


def test_rotation_with_complex_shrink_and_long_phase(rotation_calls):
    """LRU-like complex C (s) and a phase that winds many times over the sequence (angles up to 3 rad per step)."""
    i, e, o, s, m0 = make_states(1, 130, 4, 5, (4, 1), complex_o=True, complex_e=True)
    g = torch.Generator().manual_seed(9)
    s = torch.complex(s, torch.randn(s.shape, generator=g))
    check_against_reference(scan, [i, e, o, s, m0])
    assert rotation_calls


def test_zero_entry_or_complex_input_takes_the_fused_kernel(rotation_calls):
    i, e, o, s, m0 = make_states(1, 20, 4, 5, (4, 1), complex_o=True)
    o = o.clone()
    o[0, 0] = 0
    check_against_reference(scan, [i, e, o, s, m0])
    i2, e2, o2, s2, m02 = make_states(1, 20, 4, 5, (4, 1), complex_o=True)
    check_against_reference(scan, [torch.complex(i2, i2), e2, o2, s2, m02])
    assert not rotation_calls

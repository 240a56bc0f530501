"""The hand-written backward (LCSM appendix 5.1, corrected) against autograd."""
import pytest
import torch

from lcsm_core import eos_scan
from lcsm_core.backward_formulas import FORMULAS, check, check_all
from tests.closeness import assert_close

CASES = [
    pytest.param("elementwise", (2, 6, 4, 3), False, id="type1-kxd-real"),
    pytest.param("elementwise", (2, 6, 4, 1), True, id="type1-kx1-complex"),
    pytest.param("elementwise", (4, 3), False, id="type1-static-kxd-real"),
    pytest.param("elementwise", (1, 1), True, id="type1-static-scalar-complex"),
    pytest.param("matrix", (2, 6, 4, 4), False, id="type2-real"),
    pytest.param("matrix", (2, 6, 4, 4), True, id="type2-complex"),
    pytest.param("matrix", (4, 4), False, id="type2-static-real"),
]


def leaves(o_shape, complex_o, T=6, k=4, d=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)
    o = r(*o_shape) * 0.6
    m0 = r(2, k, d)
    if complex_o:
        o = torch.polar(o.abs(), r(*o_shape))
        m0 = torch.complex(m0, r(2, k, d))
    return [x.requires_grad_() for x in (r(2, T, d), r(2, T, k), o, r(2, T, k), m0)]


@pytest.mark.parametrize("psi,o_shape,complex_o", CASES)
def test_manual_backward_passes_gradcheck(psi, o_shape, complex_o):
    def f(i, e, o, s, m0):
        y, m = eos_scan(i, e, o, s, psi=psi, initial_state=m0, return_state=True, backward="manual")
        return y, torch.view_as_real(m) if m.is_complex() else m
    assert torch.autograd.gradcheck(f, tuple(leaves(o_shape, complex_o)))


@pytest.mark.parametrize("psi,o_shape,complex_o", CASES)
def test_manual_backward_equals_autograd(psi, o_shape, complex_o):
    xs = leaves(o_shape, complex_o)
    grads = {}
    for backward in ("autograd", "manual"):
        y, m = eos_scan(*xs[:4], psi=psi, initial_state=xs[4], return_state=True, backward=backward)
        loss = (y ** 3).sum() + (m.abs() ** 2).sum()
        grads[backward] = torch.autograd.grad(loss, xs)
    for name, a, b in zip(["i", "e", "o", "s", "m0"], grads["manual"], grads["autograd"]):
        assert_close(a, b, f"d{name}", scale=100)


def test_manual_backward_needs_recurrent_form():
    xs = leaves((2, 6, 4, 3), False)
    with pytest.raises(ValueError, match="recurrent"):
        eos_scan(*xs[:4], form="chunked", backward="manual")


@pytest.mark.parametrize("formula", FORMULAS, ids=lambda f: f.id)
def test_recorded_verdict_on_printed_formula(formula):
    """What the core records about each printed formula is what the numbers say."""
    printed = check(formula.id, seed=3)
    corrected = check(formula.id, corrected=True, seed=3)
    assert corrected < 1e-9, f"the corrected {formula.id} must hold"
    assert (printed < 1e-9) == formula.holds, f"{formula.id}: printed error {printed}"


def test_three_printed_formulas_fail():
    rows = check_all()
    assert sorted(r["id"] for r in rows if not r["printed_holds"]) == ["t1-df", "t2-df", "t2-dm"]

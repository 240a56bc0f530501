"""Each registered variant computes its method's own recurrence, in every form."""
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lcsm_core
from lcsm_core import VARIANTS, build_layer
from tests.closeness import assert_close

from .variant_formulas import FORMULAS

D_MODEL, EXPAND = 6, 4


def test_every_variant_has_a_formula_test():
    assert set(FORMULAS) == set(VARIANTS)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("T", [1, 37])
def test_variant_equals_its_papers_formula(name, T):
    torch.manual_seed(0)
    layer = build_layer(name, D_MODEL, EXPAND, form="recurrent").double()
    x = torch.randn(2, T, D_MODEL, dtype=torch.float64)
    with torch.no_grad():
        want = FORMULAS[name](layer, x)
        assert_close(layer.mix(x), want, name, scale=100)


@pytest.mark.parametrize("name", VARIANTS)
def test_variant_forms_agree_with_gradients(name):
    torch.manual_seed(1)
    x = torch.randn(2, 45, D_MODEL, dtype=torch.float64)
    results = {}
    for form in ("recurrent", "chunked"):
        torch.manual_seed(2)
        layer = build_layer(name, D_MODEL, EXPAND, form=form, chunk_size=16).double()
        y = layer(x)
        grads = torch.autograd.grad(y.pow(2).sum(), list(layer.parameters()))
        results[form] = (y, grads)
    assert_close(results["chunked"][0], results["recurrent"][0], name, scale=100)
    for g, g_ref in zip(results["chunked"][1], results["recurrent"][1]):
        assert_close(g, g_ref, f"{name} parameter gradient", scale=1000)


@pytest.mark.parametrize("name", VARIANTS)
def test_variant_layer_contract(name):
    layer = build_layer(name, 8, 4)
    x = torch.randn(3, 11, 8)
    y = layer(x)
    assert y.shape == x.shape and torch.isfinite(y).all()
    ev = layer.eigenvalues(x)
    assert ev.is_complex() and ev.ndim == 1 and ev.numel() > 0
    st_ = layer.states(x)
    assert st_.psi in ("elementwise", "matrix")
    with pytest.raises(ValueError, match="d_model"):
        layer(torch.randn(3, 11, 5))


def test_unknown_variant_lists_the_choices():
    with pytest.raises(ValueError, match="longhorn"):
        build_layer("transformer", 8, 4)
    with pytest.raises(ValueError, match="bad options"):
        build_layer("gla", 8, 4, nonsense=3)


@settings(max_examples=60, deadline=None)
@given(st.floats(-50, 50), st.floats(0.01, 100.0))
def test_longhorn_oscillation_stays_in_unit_interval(shift, scale):
    """1 − (k⊙k) εᵀ lies in (0, 1] for any input, however large."""
    torch.manual_seed(0)
    layer = build_layer("longhorn", 8, 4).double()
    x = (torch.randn(2, 9, 8, dtype=torch.float64) + shift) * scale
    o = layer.states(x).o
    assert bool((o > 0).all()) and bool((o <= 1).all())


def test_longhorn_forgets_only_where_it_writes():
    """A key with one nonzero entry decays only that row of the memory."""
    layer = build_layer("longhorn", 4, 3).double()
    with torch.no_grad():
        layer.k_proj.weight.zero_()
        layer.k_proj.weight[0, 0] = 2.0
    o = layer.states(torch.ones(1, 2, 4, dtype=torch.float64)).o
    assert bool((o[..., 0, :] < 1).all()) and torch.equal(o[..., 1:, :], torch.ones_like(o[..., 1:, :]))


def test_deltanet_reports_spectral_radius_outside_unit_disk():
    """Without key normalization I − βkkᵀ has eigenvalue 1 − β‖k‖², which leaves the disk for long keys."""
    torch.manual_seed(0)
    layer = build_layer("deltanet", 8, 4, normalize_keys=False)
    x = torch.randn(2, 10, 8) * 20
    assert layer.spectral_radius(x) > 1
    stable = build_layer("deltanet", 8, 4, normalize_keys=True)
    assert stable.spectral_radius(x) <= 1 + 1e-6


def test_variant_table_rows():
    rows = lcsm_core.variant_table()
    assert [r["name"] for r in rows] == list(VARIANTS)
    assert all(r["psi"] in ("elementwise", "matrix") for r in rows)

"""The edges of the core API (issue 13, item 7): bad arguments raise a ValueError naming the argument,
never a deep torch error, and an empty batch is an empty result in every form."""
import math

import pytest
import torch

from lcsm_core import VARIANTS, build_layer, build_layer_from_code, eos_scan
from lcsm_core.codes import parse_code
from lcsm_core.variants import VARIANT_CLASSES
from lcsm_core.variants.coded import CodedLayer
from lcsm_core.variants.sizes import MAX_PARAMETERS, estimated_parameters

T, k, d = 5, 3, 4


def states(batch=(2,)):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(*batch, T, d, generator=g), torch.randn(*batch, T, k, generator=g),
            torch.randn(*batch, T, k, generator=g))


# -- o that is not a tensor ---------------------------------------------------------------------------

@pytest.mark.parametrize("o", ["0.9", None, b"0.9", [["a"]], object()], ids=["str", "None", "bytes", "list-str", "obj"])
def test_an_oscillation_that_is_not_numbers_is_a_value_error_naming_o(o):
    i, e, s = states()
    with pytest.raises(ValueError, match=r"^o must be a tensor or numbers"):
        eos_scan(i, e, o, s)


@pytest.mark.parametrize("o", [0.9, 1, [[0.9]], 0.9 + 0.1j], ids=["float", "int", "list", "complex"])
def test_an_oscillation_given_as_numbers_still_works(o):
    i, e, s = states()
    want = eos_scan(i, e, torch.as_tensor(o).to(torch.complex64 if isinstance(o, complex) else torch.float32), s)
    torch.testing.assert_close(eos_scan(i, e, o, s), want)


# -- variant names -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [["gla"], None, 3, ("gla",)], ids=["list", "None", "int", "tuple"])
def test_a_variant_name_that_is_not_a_string_is_a_value_error(name):
    with pytest.raises(ValueError, match="unknown variant"):
        build_layer(name, 8, 4)


# -- an empty batch ------------------------------------------------------------------------------------

OSCILLATIONS = {
    "kx1-per-step": (lambda b: torch.rand(*b, T, k, 1), "elementwise"),
    "1xd-per-step": (lambda b: torch.rand(*b, T, 1, d), "elementwise"),
    "kxd-per-step": (lambda b: torch.rand(*b, T, k, d), "elementwise"),
    "kxd-with-zeros": (lambda b: torch.zeros(*b, T, k, d), "elementwise"),   # the exact (non-log) path
    "static-kxd": (lambda b: torch.rand(k, d), "elementwise"),
    "static-complex": (lambda b: torch.polar(torch.ones(k, 1), torch.rand(k, 1)), "elementwise"),
    "matrix": (lambda b: torch.rand(*b, T, k, k), "matrix"),
}


@pytest.mark.parametrize("batch", [(0,), (2, 0)], ids=["B0", "B2x0"])
@pytest.mark.parametrize("case", OSCILLATIONS)
def test_an_empty_batch_is_an_empty_result_in_the_chunked_form_as_in_the_recurrent_one(case, batch):
    make_o, psi = OSCILLATIONS[case]
    i, e, s = (x.requires_grad_() for x in states(batch))
    o = make_o(batch)
    want_y, want_m = eos_scan(i, e, o, s, psi=psi, form="recurrent", return_state=True)
    y, m = eos_scan(i, e, o, s, psi=psi, form="chunked", chunk_size=2, return_state=True)
    assert (y.shape, y.dtype, m.shape, m.dtype) == (want_y.shape, want_y.dtype, want_m.shape, want_m.dtype)
    assert y.shape == (*batch, T, d)
    y.sum().backward()                                       # still attached to the graph: empty gradients
    assert i.grad.shape == i.shape


# -- the input of a layer ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.complex64])
def test_a_layer_refuses_a_non_real_floating_input_naming_x(dtype):
    layer = build_layer("gla", 8, 4)
    with pytest.raises(ValueError, match=r"^x must be a real floating tensor"):
        layer(torch.ones(2, 5, 8, dtype=dtype))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_a_layer_refuses_an_input_of_another_precision_naming_x_and_its_dtype(dtype):
    """Refused, not cast: a silent cast would drop the precision the caller asked for."""
    layer = build_layer("mamba", 8, 4)                    # Mamba has its own forward: it checks too
    with pytest.raises(ValueError, match=r"^x must have the layer's dtype torch.float32, got " + str(dtype)):
        layer(torch.ones(2, 5, 8, dtype=dtype))
    with pytest.raises(ValueError, match=r"^x must have the layer's dtype"):
        layer.eigenvalues(torch.ones(2, 5, 8, dtype=dtype))


def test_a_float64_layer_takes_a_float64_input():
    layer = build_layer("gla", 8, 4).double()
    assert layer(torch.ones(2, 5, 8, dtype=torch.float64)).dtype == torch.float64


# -- τ ----------------------------------------------------------------------------------------------

BAD_TAUS = [math.nan, math.inf, -1.0, 0.0, "x", None]


@pytest.mark.parametrize("tau", BAD_TAUS, ids=["nan", "inf", "negative", "zero", "str", "None"])
@pytest.mark.parametrize("build", [
    lambda tau: build_layer("gla", 8, 4, tau=tau),
    lambda tau: build_layer("dur", 8, 4, tau=tau),
    lambda tau: build_layer_from_code("1-1-1-0", 8, 4, tau=tau),
    lambda tau: CodedLayer(8, 4, code=parse_code("0-7-0-0"), tau=tau),
], ids=["gla", "dur", "code", "coded-layer"])
def test_a_bad_tau_is_refused_everywhere(build, tau):
    with pytest.raises(ValueError, match=r"^tau must be a positive finite number"):
        build(tau)


# -- widths --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, d_model, expand_dim", [
    ("expand_dim", 8, 10 ** 9), ("d_model", 10 ** 6, 4),     # 32 GB and 16 TB of float32
])
def test_an_absurd_width_is_refused_before_anything_is_allocated(name, d_model, expand_dim):
    with pytest.raises(ValueError, match=rf"^{name}=\d+ is too large"):
        build_layer("gla", d_model, expand_dim)
    with pytest.raises(ValueError, match=rf"^{name}=\d+ is too large"):
        build_layer_from_code("1-1-1-0", d_model, expand_dim)


def test_a_code_with_a_data_dependent_kxd_gate_counts_its_d_to_kd_projection():
    assert estimated_parameters(4096, 4096) < MAX_PARAMETERS               # 1.5e8 numbers without the gate
    with pytest.raises(ValueError, match=r"^d_model=4096 is too large"):
        build_layer_from_code("1-6-1-0", 4096, 4096)        # + d²k = 6.9e10 numbers (275 GB) in the gate


@pytest.mark.parametrize("value", [4.5, "4", True, 0, -3])
@pytest.mark.parametrize("argument", ["d_model", "expand_dim"])
def test_a_width_that_is_not_a_positive_int_is_a_value_error_naming_it(argument, value):
    widths = {"d_model": 8, "expand_dim": 4, argument: value}
    with pytest.raises(ValueError, match=rf"^{argument} must be a positive int"):
        build_layer("gla", **widths)
    with pytest.raises(ValueError, match=rf"^{argument} must be a positive int"):
        build_layer_from_code("1-9-1-0", **widths)


def stored_numbers(layer) -> int:
    tensors = list(layer.parameters()) + list(layer.buffers())
    return sum(t.numel() * (2 if t.is_complex() else 1) for t in tensors)


@pytest.mark.parametrize("d_model, expand_dim", [(1, 1), (1, 40), (40, 1), (12, 30), (33, 7)])
def test_the_size_estimate_bounds_every_layer(d_model, expand_dim):
    for name in VARIANTS:
        layer = VARIANT_CLASSES[name](d_model, expand_dim)
        assert stored_numbers(layer) <= estimated_parameters(d_model, expand_dim), name
    for code in ("1-6-1-0", "1-7-1-0", "1-1-1-0", "0-0-0-0", "1-11-1-0"):
        layer = build_layer_from_code(code, d_model, expand_dim)
        extra = d_model ** 2 * expand_dim if code.split("-")[1] in ("6", "7") else 0
        assert stored_numbers(layer) <= estimated_parameters(d_model, expand_dim, extra), code
    assert estimated_parameters(4096, 4096) < MAX_PARAMETERS          # Train live's largest widths

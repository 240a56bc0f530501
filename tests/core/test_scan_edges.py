"""The core's edges (issue 24 item 9): each refused with a ValueError a person can act on, never a NaN output,
an allocator failure or a silent cast."""
import math

import pytest
import torch

from lcsm_core import build_layer, build_layer_from_code, eos_scan
from lcsm_core.codes import parse_code
from lcsm_core.scan import parallel

B, T, K, D = 2, 6, 3, 4


def states(dtype=torch.float32, T=T):
    g = torch.Generator().manual_seed(0)
    r = lambda *shape: torch.randn(*shape, generator=g).to(dtype)
    return dict(i=r(B, T, D), e=r(B, T, K), o=torch.rand(B, T, K, 1, generator=g).to(dtype), s=r(B, T, K))


@pytest.mark.parametrize("name", ["i", "e", "o", "s"])
@pytest.mark.parametrize("bad", [math.nan, math.inf], ids=["nan", "inf"])
@pytest.mark.parametrize("form", ["recurrent", "chunked", "parallel"])
def test_a_nan_or_inf_state_is_refused_naming_it(name, bad, form):
    st = states()
    st[name] = st[name].clone()
    st[name].view(-1)[3] = bad
    with pytest.raises(ValueError, match=f"^{name} holds {'NaN' if math.isnan(bad) else 'inf'} values"):
        eos_scan(st["i"], st["e"], st["o"], st["s"], form=form)


def test_a_nan_initial_state_is_refused_naming_it():
    st = states()
    m0 = torch.zeros(B, K, D)
    m0[0, 0, 0] = math.nan
    with pytest.raises(ValueError, match="^initial_state holds NaN"):
        eos_scan(**st, initial_state=m0)


def test_a_growing_memory_from_finite_inputs_is_the_recurrence_s_own_and_not_refused():
    st = states()
    y = eos_scan(st["i"], st["e"], torch.full((K, 1), 1e30), st["s"])
    assert not torch.isnan(y[..., :2, :]).any()


@pytest.mark.parametrize("m0_dtype,states_dtype", [(torch.complex64, torch.float32), (torch.float64, torch.float32),
                                                    (torch.complex128, torch.complex64)])
def test_an_initial_state_the_memory_cannot_hold_is_refused(m0_dtype, states_dtype):
    st = states(states_dtype)
    with pytest.raises(ValueError, match=f"initial_state has dtype {m0_dtype}"):
        eos_scan(**st, initial_state=torch.ones(B, K, D, dtype=m0_dtype))


@pytest.mark.parametrize("m0_dtype,states_dtype", [(torch.float32, torch.float64), (torch.float32, torch.complex64),
                                                    (torch.float64, torch.float64)])
def test_an_initial_state_the_memory_holds_exactly_is_taken(m0_dtype, states_dtype):
    st = states(states_dtype)
    y_ref = eos_scan(**st, initial_state=torch.ones(B, K, D, dtype=states_dtype))
    y = eos_scan(**st, initial_state=torch.ones(B, K, D, dtype=m0_dtype))
    torch.testing.assert_close(y, y_ref)


def test_the_parallel_form_refuses_decays_beyond_its_limit_naming_the_sizes():
    x = torch.zeros(1, 2048, 64)
    with pytest.raises(ValueError, match=r"1 sequence\(s\) × T × T × 64 × 64 with T = 2048.*form='chunked'"):
        eos_scan(x, x, torch.full((1, 2048, 64, 64), 0.9), x, form="parallel")


def test_a_gla_layer_with_the_parallel_form_at_t_4096_is_refused():
    layer = build_layer("gla", 16, 16, form="parallel")
    with pytest.raises(ValueError, match="T = 4096.*form='chunked'"):
        layer(torch.zeros(4, 4096, 16))


def test_the_parallel_form_still_runs_under_its_limit():
    st = states()
    torch.testing.assert_close(eos_scan(**st, form="parallel"), eos_scan(**st), rtol=1e-5, atol=1e-5)
    assert parallel.PARALLEL_MAX_BYTES == 2 ** 30


@pytest.mark.parametrize("make", [lambda: build_layer("gla", 8, 4), lambda: build_layer("s4", 8, 4),
                                  lambda: build_layer_from_code("1-1-1-0", 8, 4)], ids=["gla", "s4", "1-1-1-0"])
def test_a_layer_at_t_0_names_x_in_forward_and_eigenvalues(make):
    layer = make()
    x = torch.zeros(1, 0, 8)
    for call in (layer, layer.eigenvalues, layer.spectral_radius):
        with pytest.raises(ValueError, match=r"^x must have at least one time step.*got \(1, 0, 8\)"):
            call(x)


def test_the_scan_at_t_0_names_i():
    st = states(T=0)
    with pytest.raises(ValueError, match="^i must have at least one time step"):
        eos_scan(**st)


def test_a_5000_digit_code_field_gets_a_message_naming_the_field():
    with pytest.raises(ValueError, match=r"field o = a 5000-digit number is out of range; allowed: 0..11") as err:
        parse_code("1-" + "9" * 5000 + "-1-0")
    assert len(str(err.value)) < 200


def test_nonfinite_propagate_lets_them_through_for_a_model_s_divergence_policy():
    st = states()
    st["i"] = st["i"].clone()
    st["i"][0, 2, 1] = math.nan
    y = eos_scan(**st, nonfinite="propagate")
    assert torch.isnan(y[0, 2:]).any() and not torch.isnan(y[1]).any()
    with pytest.raises(ValueError, match="nonfinite must be one of"):
        eos_scan(**st, nonfinite="ignore")


def test_a_diverging_layer_inside_a_model_gives_a_nan_loss_not_an_error():
    """The trainer's one divergence policy reads the loss: a layer fed inf by the layer before it must not raise."""
    layer = build_layer("gla", 8, 4)
    x = torch.zeros(1, 5, 8)
    x[0, 2, 3] = math.inf
    assert not torch.isfinite(layer(x)).all()

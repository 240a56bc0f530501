"""Model codes e-o-s-a: the parser never crashes, and every code builds and runs."""
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lcsm_core import all_codes, build_layer_from_code, parse_code
from lcsm_core.variants.coded import CodedLayer


@given(st.text(max_size=20))
def test_any_string_parses_or_raises_value_error(text):
    try:
        code = parse_code(text)
    except ValueError as err:
        assert str(err)
    else:
        assert parse_code(str(code)) == code


@given(st.integers(0, 1), st.integers(0, 11), st.integers(0, 1), st.integers(0, 7))
def test_valid_codes_round_trip(e, o, s, a):
    code = parse_code(f" {e} – {o} - {s}-{a} ")
    assert (code.e, code.o, code.s, code.a) == (e, o, s, a)
    assert str(code) == f"{e}-{o}-{s}-{a}"


@pytest.mark.parametrize("bad,field", [("2-1-1-0", "field e"), ("1-12-1-0", "field o"), ("1-1-x-0", "field s"),
                                       ("1-1-1-8", "field a"), ("1-1-1", "four fields"), ("", "empty"),
                                       ("1--1-1", "field o")])
def test_malformed_code_names_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        parse_code(bad)


def test_all_384_codes_build_and_run():
    codes = all_codes()
    assert len(codes) == 2 * 12 * 2 * 8
    x = torch.randn(1, 5, 4)
    for code in codes:
        layer = build_layer_from_code(code, 4, 2)
        y = layer(x)
        assert y.shape == x.shape and torch.isfinite(y).all(), code


def test_bare_zero_is_the_ssm_parameterization():
    layer = build_layer_from_code("0", 8, 4)
    assert layer.info.name == "dss"


@pytest.mark.parametrize("code", ["1-1-1-0", "0-6-0-3", "1-11-1-2", "1-9-1-0"])
def test_code_forms_agree(code):
    x = torch.randn(2, 40, 6, dtype=torch.float64)
    torch.manual_seed(0)
    layer = build_layer_from_code(code, 6, 3, form="recurrent", chunk_size=8).double()
    y_ref = layer(x)
    layer.form = "chunked"
    torch.testing.assert_close(layer(x), y_ref, atol=1e-10, rtol=1e-10)


def test_data_dependent_oscillation_uses_tau():
    """o = sigmoid(W x)^(1/τ): a larger τ keeps o closer to 1 (slower forgetting)."""
    x = torch.randn(2, 7, 6)
    mean_o = {}
    for tau in (1.0, 16.0):
        torch.manual_seed(0)
        layer = build_layer_from_code("1-3-1-0", 6, 3, tau=tau)
        assert isinstance(layer, CodedLayer)
        mean_o[tau] = float(layer.states(x).o.mean().detach())
    assert mean_o[16.0] > mean_o[1.0]


def test_data_independent_oscillation_starts_alibi_style():
    layer = build_layer_from_code("1-4-1-0", 6, 4)
    o = layer.states(torch.randn(1, 3, 6)).o.squeeze(-1)
    expected = torch.exp(-(2.0 ** (-8.0 * torch.arange(1, 5) / 4)))
    torch.testing.assert_close(o, expected)


@pytest.mark.parametrize("code,carrier", [("1-1-1-0", "k"), ("1-2-1-0", "d"), ("1-3-1-0", "k"), ("1-8-1-0", None)])
def test_data_dependent_gates_start_at_the_alibi_decays(code, carrier):
    """At τ = 16 and a zero input the data-dependent decays equal the ALiBi decays along the carrier's axis;
    a gate that is not the carrier (1-8: the static k-vector carries them) starts near 1."""
    k, d = 4, 6
    layer = build_layer_from_code(code, d, k, tau=16.0)
    alibi = {"k": torch.exp(-(2.0 ** (-8.0 * torch.arange(1, k + 1) / k))),
             "d": torch.exp(-(2.0 ** (-8.0 * torch.arange(1, d + 1) / d)))}
    with torch.no_grad():
        for gate in (layer.gate_k, layer.gate_d):
            if gate is not None:
                gate.weight.zero_()
        o = layer.states(torch.zeros(1, 1, d)).o[0, 0]                      # (k|1, d|1), dense
    if carrier == "k":
        torch.testing.assert_close(o[:, 0], alibi["k"] * (0.999 if code == "1-1-1-0" else 1.0), rtol=1e-4, atol=1e-5)
    elif carrier == "d":
        torch.testing.assert_close(o[0, :], alibi["d"], rtol=1e-4, atol=1e-5)
    else:
        torch.testing.assert_close(layer.gate_d.bias.sigmoid() ** (1 / 16), torch.full((d,), 0.999))


def test_data_dependent_gates_start_leaning_on_the_input_a_little():
    """The gate weights are scaled down, not zeroed: o still varies with x (the EOS view shows it), a little."""
    layer = build_layer_from_code("1-1-1-0", 16, 8)
    o = layer.states(torch.randn(2, 5, 16)).o                            # (B, T, k, d), dense
    spread = (o.amax(dim=(0, 1)) - o.amin(dim=(0, 1))).max().item()
    assert 0 < spread < 0.05

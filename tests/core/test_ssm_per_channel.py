"""DSS, TNN and the model code "0" are banks of per-channel SISO SSMs (LCSM §2.3, Table 5):
every channel has its own kernel, the layer counts the parameters that gives it, and every form agrees."""
import pytest
import torch

from lcsm_core import build_layer, build_layer_from_code, parse_code
from lcsm_core.variants import VARIANT_CLASSES, parameter_count
from tests.closeness import assert_close

PER_CHANNEL = ("dss", "tnn", "code 0")


def make(name: str, d: int, k: int, **options):
    if name == "code 0":
        return build_layer_from_code("0", d, k, **options)
    return build_layer(name, d, k, **options)


def impulse_response(layer, T: int = 40) -> torch.Tensor:
    """y (T, d) of the EOS part for a unit impulse at t = 0 on every channel."""
    x = torch.zeros(1, T, layer.d_model, dtype=torch.float64)
    x[0, 0] = 1.0
    with torch.no_grad():
        return layer.mix(x)[0]


@pytest.mark.parametrize("name", PER_CHANNEL)
def test_each_channel_has_its_own_impulse_response(name):
    torch.manual_seed(0)
    y = impulse_response(make(name, 6, 4, form="recurrent").double())
    gaps = (y[:, :, None] - y[:, None, :]).abs().amax(0)           # (d, d): max over t of |y_c − y_c'|
    off_diagonal = gaps[~torch.eye(6, dtype=torch.bool)]
    assert bool((off_diagonal > 1e-3 * y.abs().max()).all()), gaps


def test_dss_starts_with_one_step_size_per_channel_and_shares_a():
    torch.manual_seed(0)
    layer = build_layer("dss", 8, 4)
    dt = torch.exp(layer.log_dt)
    assert layer.log_dt.shape == (8,) and len(set(dt.tolist())) == 8
    assert bool(((dt >= 1e-3) & (dt <= 1e-1)).all())                 # log-uniform in [1e-3, 1e-1]
    assert layer.B.shape == (8, 4) and layer.C.shape == (8, 4) and layer.C.is_complex()
    assert layer.a_real_log.shape == layer.a_imag.shape == (4,)        # A = Diag{a}, one for the bank
    Abar, Bbar = layer.discrete()
    assert Abar.shape == Bbar.shape == (8, 4) and bool((Abar.abs() < 1).all())


def test_tnn_has_its_own_b_per_channel_and_c_all_ones():
    torch.manual_seed(0)
    layer = build_layer("tnn", 8, 4)
    assert layer.B.shape == (8, 4) and not torch.equal(layer.B[0], layer.B[1])
    assert torch.equal(layer.C, torch.ones(4)) and "C" not in dict(layer.named_parameters())   # C = J, fixed


def test_per_channel_states_run_one_system_per_channel():
    x = torch.randn(2, 7, 5)
    for name in PER_CHANNEL:
        st = make(name, 5, 3).states(x)
        assert st.layout == "channels" and st.i.shape == (2, 5, 7, 1), name


@pytest.mark.parametrize("d,k", [(32, 32), (8, 4), (16, 64)])
def test_parameter_counts(d, k):
    """Complex parameters count twice. DSS: a (2k), Δ (d), B (dk), C (2dk), out (d²); TNN: λ (k), B (dk), out (d²)."""
    assert parameter_count(build_layer("dss", d, k)) == 2 * k + d + 3 * d * k + d * d
    assert parameter_count(build_layer("tnn", d, k)) == k + d * k + d * d
    assert parameter_count(build_layer_from_code("0", d, k)) == parameter_count(build_layer("dss", d, k))
    # 0-0-0-0: W_v, W_out (d² each), static k and q (k each), static k×d decay
    assert parameter_count(build_layer_from_code("0-0-0-0", d, k)) == 2 * d * d + 2 * k + d * k


def test_code_zero_has_more_parameters_than_0_0_0_0_like_table_5():
    """LCSM Table 5: "0" 43.78M > 0-0-0-0 43.45M (Table 4), and < 1-1-1-0 44.04M."""
    counts = {code: parameter_count(build_layer_from_code(code, 32, 32)) for code in ("0", "0-0-0-0", "1-1-1-0")}
    assert counts == {"0": 4192, "0-0-0-0": 3136, "1-1-1-0": 6208}
    assert counts["0-0-0-0"] < counts["0"] < counts["1-1-1-0"]


def test_parameter_count_skips_frozen_parameters():
    layer = build_layer("tnn", 4, 3)
    layer.rate_log.requires_grad_(False)
    assert parameter_count(layer) == 4 * 3 + 4 * 4


@pytest.mark.parametrize("name", PER_CHANNEL)
def test_every_torch_form_gives_the_recurrent_output_and_gradients(name):
    torch.manual_seed(1)
    x = torch.randn(2, 29, 5, dtype=torch.float64)
    results = {}
    for form in ("recurrent", "parallel", "chunked"):
        torch.manual_seed(2)
        layer = make(name, 5, 3, form=form, chunk_size=8).double()
        y = layer(x)
        results[form] = (y, torch.autograd.grad(y.pow(2).sum(), list(layer.parameters())))
    y_ref, g_ref = results["recurrent"]
    for form in ("parallel", "chunked"):
        assert_close(results[form][0], y_ref, f"{name} {form}", scale=100)
        for g, want in zip(results[form][1], g_ref):
            assert_close(g, want, f"{name} {form} parameter gradient", scale=1000)


def test_the_table_says_what_is_per_channel():
    dss, tnn = VARIANT_CLASSES["dss"].info, VARIANT_CLASSES["tnn"].info
    assert "Δ_c, B_c, C_c per channel" in dss.note and "a shared" in dss.note
    assert tnn.e == "B_c" and tnn.s == "C = J (ones)" and "λ shared" in tnn.note
    assert build_layer_from_code("0", 4, 2).info is dss
    assert "Δ, B, C per channel" in parse_code("0").describe()


def test_s5_and_lru_fold_the_input_into_e_alike():
    """Both carry x_t in e with i = 1, and neither computes a parameter from x_t: the same label."""
    s5, lru = VARIANT_CLASSES["s5"].info, VARIANT_CLASSES["lru"].info
    assert s5.data_dependent == lru.data_dependent == ""
    assert s5.i.startswith("1") and lru.i.startswith("1")

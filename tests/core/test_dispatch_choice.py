"""form="auto" on a CPU picks the torch form that is faster for the shapes at hand: one chooser
(lcsm_core.scan.choose) for the core, the dynamics and the training cost model."""
import pytest
import torch

from lcsm_core import build_layer
from lcsm_core.scan import choose_form, prepare
from lcsm_core.variants import build_layer_from_code


@pytest.mark.parametrize("name,k,d,expected", [
    ("gla", 16, 16, "chunked"), ("linear_attention", 64, 64, "chunked"), ("longhorn", 16, 64, "recurrent"),
    ("longhorn", 64, 64, "recurrent"), ("mamba", 64, 64, "recurrent"), ("lru", 16, 16, "recurrent"),
    ("dss", 16, 16, "recurrent"), ("tnn", 16, 16, "recurrent"), ("hgrn", 8, 16, "recurrent"),
    ("rwkv4", 8, 16, "recurrent"), ("s4", 8, 16, "recurrent"), ("deltanet", 16, 16, "chunked"),
    ("1-0-1-0", 32, 32, "chunked"), ("1-1-1-0", 32, 32, "chunked"), ("1-0-1-0", 8, 8, "chunked"),
    ("0-0-0-0", 128, 128, "chunked"), ("dur", 16, 16, "chunked"), ("m3", 16, 16, "chunked"),
])
def test_auto_form_on_cpu(name, k, d, expected, monkeypatch):
    """What the layer hands to eos_scan (its declared o: a static (k, d) tensor, an Outer, a DeltaRule, a
    Diagonal or a dense tensor)."""
    monkeypatch.delenv("LCSM_SCAN_FORM", raising=False)
    layer = build_layer_from_code(name, d, k) if "-" in name else build_layer(name, d, k)
    st = layer.states(torch.randn(2, 9, d))
    assert choose_form(prepare(st.i, st.e, st.scan_o, st.s, st.psi)) == expected


@pytest.mark.parametrize("k,d", [(16, 16), (32, 32), (64, 64)])
def test_a_per_step_full_oscillation_stays_recurrent(k, d, monkeypatch):
    """The dense (B, T, k, d) tensor of an Outer still runs step by step: the chunked form would build its decays."""
    monkeypatch.delenv("LCSM_SCAN_FORM", raising=False)
    st = build_layer_from_code("1-1-1-0", d, k).states(torch.randn(2, 9, d))
    assert choose_form(prepare(st.i, st.e, st.o, st.s, st.psi)) == "recurrent"


def test_environment_forces_a_form(monkeypatch):
    st = build_layer("gla", 8, 8).states(torch.randn(1, 4, 8))
    inp = prepare(st.i, st.e, st.o, st.s, st.psi)
    monkeypatch.setenv("LCSM_SCAN_FORM", "recurrent")
    assert choose_form(inp) == "recurrent"
    monkeypatch.setenv("LCSM_SCAN_FORM", "warp")
    with pytest.raises(ValueError, match="LCSM_SCAN_FORM"):
        choose_form(inp)


def modes_input(eigenvalues, T, outputs=3):
    """The dynamics lessons' scan: one memory row per mode (k = n, d = 1), a few outputs as the batch."""
    lam = torch.tensor(eigenvalues, dtype=torch.complex128)[:, None]
    n = len(eigenvalues)
    return prepare(torch.ones(1, T, 1, dtype=torch.float64), torch.ones(1, T, n, dtype=torch.complex128), lam,
                   torch.ones(outputs, 1, T, n, dtype=torch.complex128), "elementwise")


def test_a_few_stable_modes_over_a_long_sequence_run_chunked(monkeypatch):
    monkeypatch.delenv("LCSM_SCAN_FORM", raising=False)
    stable, growing = [0.9, 0.5j], [1.01, 0.5]
    assert choose_form(modes_input(stable, 1000)) == "chunked"
    assert choose_form(modes_input(growing, 1000)) == "recurrent"      # growing modes stay exact
    assert choose_form(modes_input(stable, 100)) == "recurrent"
    assert choose_form(modes_input([0.9] * 16, 1000, outputs=18)) == "recurrent"   # many modes: steps are matmuls


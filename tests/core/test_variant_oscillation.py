"""Every variant declares the shape of its oscillation itself (VariantInfo.oscillation_shape), and the
declaration matches what the layer really hands to eos_scan; the cost model reads it from the registry and
asks the same form chooser as eos_scan."""
import pytest
import torch

from lcsm_core import VARIANTS, build_layer, build_layer_from_code
from lcsm_core.scan import choose_form, prepare
from lcsm_core.scan.structured import factors, steps
from lcsm_core.training import cost
from lcsm_core.training.config import ModelConfig
from lcsm_core.variants import VARIANT_CLASSES
from lcsm_core.variants.oscillation import Oscillation

D_MODEL, EXPAND, B, T = 12, 8, 2, 5
CODES = ["1-0-1-0", "1-1-1-0", "1-6-1-0", "0-9-1-2", "1-8-1-0", "1-11-0-0", "1-4-1-0", "0"]


def layer_of(name: str):
    return build_layer_from_code(name, D_MODEL, EXPAND) if name[0].isdigit() else build_layer(name, D_MODEL, EXPAND)


def config_of(name: str) -> ModelConfig:
    return ModelConfig(code=name, d_model=D_MODEL, expand_dim=EXPAND) if name[0].isdigit() else \
        ModelConfig(variant=name, d_model=D_MODEL, expand_dim=EXPAND)


@pytest.mark.parametrize("name", VARIANTS)
def test_every_registered_variant_declares_its_oscillation(name):
    osc = VARIANT_CLASSES[name].info.oscillation_shape(EXPAND, D_MODEL)
    assert isinstance(osc, Oscillation)


@pytest.mark.parametrize("name", [*VARIANTS, *CODES])
def test_the_declaration_matches_the_scan_inputs(name):
    torch.manual_seed(0)
    st = layer_of(name).states(torch.randn(B, T, D_MODEL))
    inp = prepare(st.i, st.e, st.scan_o, st.s, st.psi)                  # what the layer hands to eos_scan
    osc = cost.oscillation_of(config_of(name))
    assert osc.psi == inp.psi
    assert osc.structure == inp.structure
    assert (osc.memory_rows, osc.memory_cols) == (inp.k, inp.d)
    dense_o = inp.densified().o
    rows_cols = tuple(dense_o.shape[-2:]) if inp.psi == "elementwise" else (inp.k, inp.k)
    assert (osc.rows, osc.cols) == rows_cols
    assert osc.per_step == (steps(inp.o) == T)
    assert osc.complex == any(x.is_complex() for x in (inp.i, inp.e, *factors(inp.o), inp.s))
    assert bool(osc.channels) == (st.layout == "channels")
    if osc.channels:
        assert osc.channels in inp.batch


@pytest.mark.parametrize("name", [*VARIANTS, *CODES])
@pytest.mark.parametrize("seq_len", [5, 300])
def test_the_cost_model_predicts_the_form_eos_scan_picks(name, seq_len, monkeypatch):
    monkeypatch.delenv("LCSM_SCAN_FORM", raising=False)
    torch.manual_seed(0)
    st = layer_of(name).states(torch.randn(B, seq_len, D_MODEL))
    picked = choose_form(prepare(st.i, st.e, st.scan_o, st.s, st.psi))
    m = config_of(name)
    assert cost.scan_form(m, cost.oscillation_of(m), B, seq_len) == picked

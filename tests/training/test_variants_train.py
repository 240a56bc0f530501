"""Every registered variant, and a few model codes, can be trained by the loop and snapshotted."""
import math

import pytest
import torch

import lcsm_core
from lcsm_core.scan import choose_form, prepare
from lcsm_core.training import ModelConfig, Trainer
from lcsm_core.training.model import SequenceModel
from tests.training.tiny import tiny_config


@pytest.mark.parametrize("layer", [*lcsm_core.VARIANTS, "code:1-9-1-0", "code:1-3-1-2", "code:0"])
def test_two_steps_and_a_snapshot(layer):
    config = tiny_config(max_steps=2, eval_every=2, snapshot_every=2, batch_size=4, test_examples=8)
    config.model.d_model = config.model.expand_dim = 8
    if layer.startswith("code:"):
        config.model.code = layer[5:]
    else:
        config.model.variant = layer
    records = list(Trainer(config).records())
    assert all(math.isfinite(r.loss) for r in records if r.loss is not None)
    last = records[-1]
    assert last.status == "completed" and last.step == 2
    assert len(last.eigenvalues) == 2 and all(e.is_complex() and e.ndim == 1 and len(e) for e in last.eigenvalues)


@pytest.mark.parametrize("variant, step_by_step", [("gla", False), ("retnet", False), ("dss", True),
                                                   ("lru", True), ("s4", True), ("deltanet", True)])
def test_layers_leave_the_form_to_the_core(variant, step_by_step, monkeypatch):
    """Layers stay on form="auto"; on a CPU eos_scan then picks the faster form for their shapes."""
    monkeypatch.delenv("LCSM_SCAN_FORM", raising=False)
    layer = SequenceModel(ModelConfig(variant=variant, d_model=8, expand_dim=8, n_layers=1), 16).blocks[0].eos
    assert layer.form == "auto"
    st = layer.states(torch.randn(2, 5, 8))
    assert choose_form(prepare(st.i, st.e, st.o, st.s, st.psi)) == ("recurrent" if step_by_step else "chunked")

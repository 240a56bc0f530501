"""Lesson 7 page and its core: the four rules through eos_scan match their textbook updates; the presets'
captions agree with the measured errors; the unit-disk exercise needs a real exit."""
import re

import numpy as np
import pytest
import torch

from lcsm_core.divergence import DIVERGENCE_BOUND
from lcsm_core.online_learning import key_value_stream, recall_study
from lcsm_explorer.app.lessons.online_learners import PRESETS, SETTINGS, compute, quantities, radius_figure
from tests.app.pages import assert_clean, open_page


def preset_quantities(label: str) -> dict:
    v = {**SETTINGS.defaults, **next(p for p in PRESETS if label in p.label).values}
    return quantities(v, compute(v))


def test_page_loads_presets_and_extremes():
    at = open_page("online_learners")
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3 and len(at.metric) == 4
    for n, _ in enumerate(PRESETS):
        at.button(key=f"online_learners.preset.{n}").click().run()
        assert_clean(at, PRESETS[n].label)
    for name in ("n_keys", "key_dim", "repeats", "beta", "gate", "key_scale"):
        slider = at.slider(key=f"online_learners.{name}")
        for value in (slider.min, slider.max):
            slider.set_value(value).run()
            assert not at.exception, (name, value)


def test_the_fixed_decay_rule_is_called_retnet():
    """Longhorn's Table 4: m_t = γ m_{t−1} + k_t v_tᵀ is RetNet's row; GLA's decay depends on the input."""
    at = open_page("online_learners")
    labels = [m.label for m in at.metric]
    assert "RetNet (fixed decay): final error" in labels and not any("GLA" in label for label in labels)
    assert at.slider(key="online_learners.gate").label == "RetNet decay γ"
    assert "RetNet (fixed decay)" in compute(SETTINGS.defaults).rules
    study = recall_study(n_keys=3, key_dim=4, value_dim=2, repeats=1, decay=0.5, seed=2)
    keys, values, order = key_value_stream(3, 4, 2, 1, 1.0, seed=2)
    m = torch.zeros(4, 2, dtype=torch.float64)
    for j in order.tolist():
        m = 0.5 * m + torch.outer(keys[j], values[j])                            # RetNet: γ m + k vᵀ
    want = (((keys @ m) - values) ** 2).mean(-1).numpy()
    np.testing.assert_allclose(study.final_error[study.rules.index("RetNet (fixed decay)")], want, rtol=1e-9)


def test_deltanet_and_longhorn_match_their_update_rules():
    keys, values, order = key_value_stream(5, 4, 3, 2, 1.3, seed=1)
    beta = 0.7
    W_delta = torch.zeros(4, 3, dtype=torch.float64)
    S_long = torch.zeros(4, 3, dtype=torch.float64)
    for j in order.tolist():
        k, v = keys[j], values[j]
        W_delta = W_delta + beta * torch.outer(k, v - W_delta.T @ k)                 # delta rule
        eps = beta / (1 + beta * k @ k)
        S_long = (1 - eps * (k * k))[:, None] * S_long + eps * torch.outer(k, v)   # Longhorn, scalar β
    study = recall_study(n_keys=5, key_dim=4, value_dim=3, repeats=2, beta=beta, key_scale=1.3, seed=1)
    for rule, W in (("DeltaNet", W_delta), ("Longhorn", S_long)):
        want = (((keys @ W) - values) ** 2).mean(-1).numpy()
        np.testing.assert_allclose(study.final_error[study.rules.index(rule)], want, rtol=1e-9, atol=1e-12)


def test_long_keys_push_deltanet_off_the_disk_but_not_longhorn():
    study = recall_study(key_scale=2.0, beta=1.0)
    radius = dict(zip(study.rules, study.radius.max(axis=1)))
    assert radius["DeltaNet"] > 2.9 and radius["Longhorn"] <= 1.0


def test_presets_captions_match_the_measured_errors():
    room = preset_quantities("Room to spare")
    assert room["deltanet_error"] == pytest.approx(0.001, abs=1e-4)      # "ends with a recall error of 0.001"
    assert room["longhorn_error"] == pytest.approx(0.19, abs=0.01)       # "not exact — it ends at 0.19"
    assert room["la_error"] == pytest.approx(4.9, abs=0.1)               # "linear attention (4.9)"
    assert room["la_over_longhorn"] == pytest.approx(26, abs=1)          # "26× below linear attention"
    over = preset_quantities("Overloaded")
    assert over["n_keys"] > over["key_dim"]
    assert min(over["retnet_error"], over["deltanet_error"], over["longhorn_error"]) > 0.5     # every rule interferes
    assert 30 < over["la_over_longhorn"] < 50                   # "~40× above Longhorn's"
    assert over["deltanet_error"] > over["retnet_error"]           # "even DeltaNet's overwrites disturb the others"
    long = preset_quantities("Long keys")
    assert long["deltanet_eigenvalue"] == pytest.approx(-3.0) and long["deltanet_radius"] == pytest.approx(3.0)
    assert long["longhorn_radius"] <= 1.0
    for p in PRESETS:                                          # the numbers hold because the stream is pinned
        assert set(p.values) == set(SETTINGS.defaults), p.label


def test_leave_the_unit_disk_needs_a_real_exit():
    at = open_page("online_learners")                          # defaults: |λ| = 1 up to rounding
    at.button(key="online_learners.exercise.0.check").click().run()
    assert any("Not yet" in e.value for e in at.error)
    at = open_page("online_learners", dict(key_scale="2"))
    at.button(key="online_learners.exercise.0.check").click().run()
    assert any("Correct" in s.value for s in at.success)


def test_radius_chart_clips_at_the_divergence_bound():
    study = recall_study()
    study.radius[2] = 1e12
    fig = radius_figure(study)
    assert max(max(trace.y) for trace in fig.data) == DIVERGENCE_BOUND


def test_the_equation_line_does_not_give_away_the_overwrite_eigenvalue():
    """Exercise 3 asks for the eigenvalue 1 − β‖k‖² at β = 1, ‖k‖ = 1 (answer 0), which are the defaults: the
    equation line shows the formula and the settings, not its value."""
    at = open_page("online_learners")
    assert_clean(at)
    latex = " ".join(e.value for e in at.latex)
    assert r"1-\beta\lVert k\rVert^2" in latex and r"\beta = 1" in latex
    assert not re.search(r"=\s*-?0(?![.\d])", latex), latex

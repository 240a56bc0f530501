"""Lesson 7 page and its core: the four rules through eos_scan match their textbook updates."""
from pathlib import Path

import numpy as np
import torch
from streamlit.testing.v1 import AppTest

from app.ui.settings.online_learners import PRESETS
from lcsm_core.online_learning import key_value_stream, recall_study

PAGE = str(Path(__file__).resolve().parent.parent / "app" / "app_pages" / "online_learners.py")


def test_page_loads_presets_and_extremes():
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception
    for n, _ in enumerate(PRESETS):
        at.button(key=f"online_learners.preset.{n}").click().run()
        assert not at.exception
    for name in ("n_keys", "key_dim", "repeats", "beta", "gate", "key_scale"):
        slider = at.slider(key=f"online_learners.{name}")
        for value in (slider.min, slider.max):
            slider.set_value(value).run()
            assert not at.exception, (name, value)


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

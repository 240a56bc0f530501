"""Lesson 7's queries: reading one memory with every key equals a scan with the keys as a batch of shrinks."""
from __future__ import annotations

import pytest
import torch

from lcsm_core.online_learning import RULES, key_value_stream, read_every_key, recall_study, rule_states
from lcsm_core.scan import eos_scan


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("key_scale, beta", [(1.0, 1.0), (2.0, 1.0), (0.5, 0.3)])
def test_reading_every_key_is_the_batched_scan(rule, key_scale, beta):
    keys, values, order = key_value_stream(9, 6, 4, 3, key_scale, seed=2)
    k, v = keys[order], values[order]
    i, e, o, psi = rule_states(rule, k, v, beta, 0.8)
    T = len(order)
    batched = eos_scan(i, e, o, keys[:, None, :].expand(len(keys), T, keys.shape[1]), psi=psi)
    torch.testing.assert_close(read_every_key(i, e, o, psi, keys), batched, rtol=1e-10, atol=1e-12)


def test_the_largest_stream_is_computed():
    study = recall_study(n_keys=64, key_dim=64, repeats=10, seed=1)
    assert study.errors.shape == (len(RULES), 640)


def test_transition_radius_per_distinct_key_is_per_step():
    from lcsm_core.online_learning import transition_radius
    keys, values, order = key_value_stream(7, 5, 3, 4, 1.7, seed=3)
    _, _, o, psi = rule_states("DeltaNet", keys[order], values[order], 0.9, 0.8)
    every_step = torch.linalg.eigvals(o).abs().amax(-1)
    torch.testing.assert_close(transition_radius(o, psi, len(order)), every_step, rtol=0, atol=0)

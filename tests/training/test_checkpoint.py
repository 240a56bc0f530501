"""Exact checkpoint and resume: a run checkpointed after k steps and resumed in a fresh Trainer records what an
uninterrupted run records (losses, accuracies, eigenvalue snapshots, learning rates, statuses) and ends with the
same weights and optimiser state, to the last digit (==, torch.equal: never a tolerance). Only the wall clock
differs."""
import random

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lcsm_core.tasks import SelectiveCopyingConfig
from lcsm_core.training import RunControl, Trainer
from tests.training.tiny import tiny_config

STEPS = 12


def small(layer: str = "gla", **optim):
    """A d = 8 run of STEPS steps that never stops early (target accuracy 1 is out of its reach in 12 steps)."""
    settings_ = dict(max_steps=STEPS, eval_every=3, snapshot_every=4, batch_size=8, test_examples=16,
                     target_acc=1.0)
    settings_.update(optim)
    config = tiny_config(**settings_)
    config.model.d_model = config.model.expand_dim = 8
    if layer.startswith("code:"):
        config.model.code = layer[5:]
    else:
        config.model.variant = layer
    return config


def comparable(record) -> tuple:
    """A record without its wall clock, eigenvalues as tensors (compared with torch.equal)."""
    return (record.step, record.status, record.lr, record.loss, record.train_acc, record.test_acc, record.reason,
            record.is_heartbeat)


def assert_same_records(expected: list, actual: list) -> None:
    assert [comparable(r) for r in actual] == [comparable(r) for r in expected]
    for want, got in zip(expected, actual):
        assert (want.eigenvalues is None) == (got.eigenvalues is None), want.step
        for a, b in zip(want.eigenvalues or [], got.eigenvalues or []):
            assert torch.equal(a, b), f"eigenvalues differ at step {want.step}"


def assert_same_state(expected: Trainer, actual: Trainer) -> None:
    want, got = expected.model.state_dict(), actual.model.state_dict()
    assert list(want) == list(got)
    assert all(torch.equal(want[name], got[name]) for name in want)
    want_opt, got_opt = expected.optimizer.state_dict(), actual.optimizer.state_dict()
    assert want_opt["param_groups"] == got_opt["param_groups"]
    for index, moments in want_opt["state"].items():
        assert set(moments) == set(got_opt["state"][index])
        assert all(torch.equal(moments[key], got_opt["state"][index][key]) for key in moments)
    assert expected.step == actual.step


def uninterrupted(config) -> tuple[list, Trainer]:
    trainer = Trainer(config)
    return list(trainer.records()), trainer


def interrupted(config, k: int, control: RunControl | None = None) -> tuple[list, Trainer]:
    """Train to step k, checkpoint, drop that Trainer, go on in a fresh one to the end."""
    first = Trainer(config, control)
    records = []
    for record in first.records():
        records.append(record)
        if record.loss is not None and record.step == k:
            break
    checkpoint = first.checkpoint()
    del first
    resumed = Trainer(config, checkpoint=checkpoint)
    return records + list(resumed.records()), resumed


_REFERENCE: dict = {}


def reference(layer: str):
    """The uninterrupted run of small(layer), trained once per test session."""
    if layer not in _REFERENCE:
        _REFERENCE[layer] = uninterrupted(small(layer))
    return _REFERENCE[layer]


@pytest.mark.parametrize("layer", ["gla", "s5", "deltanet", "lru", "code:1-9-1-0"])
def test_a_resumed_run_equals_an_uninterrupted_one_to_the_last_digit(layer):
    expected, whole = reference(layer)
    actual, resumed = interrupted(small(layer), k=5)
    assert_same_records(expected, actual)
    assert_same_state(whole, resumed)


@settings(max_examples=8, deadline=None)
@given(k=st.integers(1, STEPS))
def test_any_step_is_a_place_to_resume_from(k):
    expected, whole = reference("gla")
    actual, resumed = interrupted(small("gla"), k)
    assert_same_records(expected, actual)
    assert_same_state(whole, resumed)


def test_selective_copying_with_a_short_conv_resumes_exactly():
    config = small("gla")
    config.task = SelectiveCopyingConfig(vocab_size=12, seq_len=16, num_tokens=3)
    config.model.short_conv = 3
    (expected, whole), (actual, resumed) = uninterrupted(config), interrupted(config, k=7)
    assert_same_records(expected, actual)
    assert_same_state(whole, resumed)


def test_twice_interrupted_is_still_the_same_run():
    expected, whole = reference("gla")
    config = small("gla")
    first = Trainer(config)
    records = []
    for record in first.records():
        records.append(record)
        if record.step == 3 and record.loss is not None:
            break
    second = Trainer(config, checkpoint=first.checkpoint())
    for record in second.records():
        records.append(record)
        if record.step == 8 and record.loss is not None:
            break
    third = Trainer(config, checkpoint=second.checkpoint())
    records += list(third.records())
    assert_same_records(expected, records)
    assert_same_state(whole, third)


def test_the_learning_rate_in_effect_goes_with_the_checkpoint_unless_a_control_says_otherwise():
    config = small("gla")
    control = RunControl(lr=config.optim.lr)
    first = Trainer(config, control)
    records = first.records()
    next(records)
    control.set_lr(2e-3)
    next(records)
    checkpoint = first.checkpoint()
    assert Trainer(config, checkpoint=checkpoint).control.lr == 2e-3
    assert Trainer(config, RunControl(lr=4e-3), checkpoint=checkpoint).control.lr == 4e-3


def test_a_checkpoint_resumes_only_its_own_config():
    trainer = Trainer(small("gla"))
    next(trainer.records())
    with pytest.raises(ValueError, match="another configuration"):
        Trainer(small("gla", lr=3e-3), checkpoint=trainer.checkpoint())


def test_the_loop_draws_nothing_from_the_global_random_generators():
    """Why a checkpoint keeps no numpy or Python RNG state (and torch's only for a layer that might draw): the
    batches come from their own generator per (seed, step)."""
    trainer = Trainer(small("gla"))
    before = (torch.get_rng_state(), np.random.get_state()[1].copy(), random.getstate())
    list(trainer.records())
    after = (torch.get_rng_state(), np.random.get_state()[1].copy(), random.getstate())
    assert torch.equal(before[0], after[0]) and np.array_equal(before[1], after[1]) and before[2] == after[2]

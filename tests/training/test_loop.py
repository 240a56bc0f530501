"""The training loop: learns, obeys pause / step / learning rate, stops, flags divergence."""
import math
import threading

import numpy as np
import torch

from lcsm_core.divergence import DIVERGENCE_BOUND
from lcsm_core.training import RunControl, Trainer, train
from tests.training.tiny import tiny_config


def test_a_tiny_config_learns_within_seconds():
    records = list(train(tiny_config(max_steps=40)))
    losses = np.array([r.loss for r in records if r.loss is not None])
    assert len(losses) == 40 and np.isfinite(losses).all()
    assert losses[-8:].mean() < 0.8 * losses[:8].mean()
    assert records[-1].status == "completed"   # speed is the benchmark's job (benchmarks/train_speed.py), not a test's


def test_records_carry_test_accuracy_and_eigenvalue_snapshots_on_schedule():
    records = list(train(tiny_config(max_steps=20)))
    assert records[0].step == 0 and records[0].test_acc is not None and len(records[0].eigenvalues) == 2
    assert [r.step for r in records if r.test_acc is not None] == [0, 10, 20, 20]
    snap = [r for r in records if r.eigenvalues is not None][1]
    assert snap.step == 10 and all(e.is_complex() and e.ndim == 1 for e in snap.eigenvalues)


def test_same_seed_same_losses():
    a = [r.loss for r in train(tiny_config(max_steps=6)) if r.loss is not None]
    b = [r.loss for r in train(tiny_config(max_steps=6)) if r.loss is not None]
    assert a == b


def test_pause_step_resume_and_learning_rate_while_running():
    config = tiny_config(max_steps=10)
    control = RunControl(lr=config.optim.lr, start_paused=True)
    records = Trainer(config, control).records()
    assert next(records).step == 0
    heartbeat = next(records)                       # paused: only heartbeats
    assert heartbeat.is_heartbeat and heartbeat.status == "paused" and heartbeat.step == 0
    control.step(2)
    stepped = [next(records), next(records)]
    assert [r.step for r in stepped] == [1, 2] and stepped[-1].status == "paused"
    assert next(records).is_heartbeat
    control.set_lr(1e-3)
    control.resume()
    rest = list(records)
    assert rest[0].step == 3 and rest[0].lr == 1e-3 and rest[-1].status == "completed"


def test_stop_from_another_thread_ends_with_status_stopped():
    config = tiny_config(max_steps=10_000, max_seconds=60)
    control = RunControl(lr=config.optim.lr)
    records = train(config, control)
    threading.Timer(0.5, control.stop).start()
    last = list(records)[-1]
    assert last.status == "stopped" and last.step < 10_000


def test_non_finite_loss_marks_the_run_diverged():
    trainer = Trainer(tiny_config(max_steps=20))
    with torch.no_grad():
        trainer.model.head.weight.fill_(math.inf)
    last = list(trainer.records())[-1]
    assert last.status == "diverged" and "loss" in last.reason and last.step == 1


def test_a_finite_loss_past_the_divergence_bound_marks_the_run_diverged():
    trainer = Trainer(tiny_config(max_steps=20))
    with torch.no_grad():
        trainer.model.head.bias.zero_()
        trainer.model.head.bias[0] = 1e8              # every answer is token 0, a filler: loss ~ 1e8
    last = list(trainer.records())[-1]
    assert last.status == "diverged" and last.step == 1 and math.isfinite(last.loss) and last.loss > DIVERGENCE_BOUND


def test_early_stop_at_target_accuracy():
    last = list(train(tiny_config(max_steps=40, target_acc=0.01)))[-1]
    assert last.status == "completed" and last.step == 10 and "target" in last.reason

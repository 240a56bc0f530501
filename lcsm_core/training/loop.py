"""The training loop as an iterator of records: the CLI, the page's worker and the
tests all drive this same code.

    for record in train(config, control):   # one TrainRecord per optimiser step,
        ...                                  # plus a heartbeat every ~0.5 s while paused

A Trainer's `checkpoint()` is everything the loop carries between two steps (weights, AdamW's moments and step
counts, the step, the training time, torch's RNG); `Trainer(config, control, checkpoint=...)` goes on from it
exactly: the resumed run's losses, accuracies, eigenvalues and weights equal an uninterrupted run's to the last
digit on a CPU. Nothing else needs saving: a batch is a pure function of (seed, step) (`Trainer.batch`), the test
set and the probe are rebuilt from the config, and the loop draws no numbers from numpy's or Python's global RNG.
"""
from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import torch

from lcsm_core.divergence import DIVERGENCE_BOUND, is_diverged
from lcsm_core.tasks import IGNORE

from .config import RunConfig
from .control import RunControl
from .model import SequenceModel

TRAIN_STREAM, TEST_STREAM = 1, 0
PAUSE_HEARTBEAT_S = 0.5
PREEMPTED = "preempted"     # a record's status: the run gave its slot back at a step boundary (its turn was over)
WAITING = "waiting: "       # how the reason of a run that waits for its turn again begins
CHECKPOINT_FORMAT = 1
_INIT_LOCK = threading.Lock()  # torch's global RNG seeds the init; runs in threads take turns


@dataclass
class TrainRecord:
    """What happened at one step. `status` is "running", "paused" or a final status
    ("completed", "diverged", "stopped") on the last record. `wall_s` counts training
    time only (pauses excluded). `test_acc` is set on evaluation steps, `eigenvalues`
    (per layer, complex 1-D) on snapshot steps."""

    step: int
    status: str
    wall_s: float
    lr: float
    loss: float | None = None
    train_acc: float | None = None
    test_acc: float | None = None
    eigenvalues: list[torch.Tensor] | None = None
    reason: str | None = None
    is_heartbeat: bool = False      # no step was taken: a heartbeat while paused, or a PREEMPTED record


def preempted_reason(step: int) -> str:
    """What a run that gave its slot back says while it waits for its turn again."""
    return f"{WAITING}others' turn, resumes from step {step}"


def suspended_reason(step: int) -> str:
    """What a run says that the server saved when it stopped (a restart, a restore), until the next one takes it."""
    return f"{WAITING}the server restarted; goes on from step {step}"


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was asked for but no CUDA device is available")
    return torch.device(device)


def check_runnable(config: RunConfig) -> torch.device:
    """The device `config` trains on; ValueError (one line) when this machine cannot run it — checked before a
    run is created, so nothing half-made is stored. `form="kernel"` needs the Triton kernels on a CUDA device
    (or Triton's CPU interpreter, TRITON_INTERPRET=1, as the kernel tests use)."""
    device = resolve_device(config.optim.device)
    if config.model.form == "kernel":
        from lcsm_core.scan.choose import kernels_available
        if not kernels_available():
            raise ValueError("form 'kernel' needs the Triton kernels in kernels/, which are not importable here")
        if device.type != "cuda" and os.environ.get("TRITON_INTERPRET") != "1":
            raise ValueError(f"form 'kernel' runs the Triton kernels on a CUDA device; this run is on {device.type}"
                             " (use form 'auto' or 'chunked' on a CPU)")
    return device


def masked_accuracy(logits: torch.Tensor, labels: torch.Tensor) -> float:
    """Share of labelled positions (label ≠ -100) whose argmax is right. logits (B, T, V), labels (B, T)."""
    mask = labels != IGNORE
    if not mask.any():
        return float("nan")
    return (logits.argmax(-1)[mask] == labels[mask]).float().mean().item()


class Trainer:
    """Builds data, model and optimiser from a RunConfig; `records()` trains."""

    def __init__(self, config: RunConfig, control: RunControl | None = None, checkpoint: bytes | None = None):
        """`checkpoint`: a `checkpoint()` of a run of this same config to go on from. The learning rate in effect
        is `control`'s when one is given (a scheduler's control keeps the one set while the run waited), else
        the checkpoint's."""
        self.config = config.validate()
        saved = _read_checkpoint(checkpoint, config) if checkpoint is not None else None
        lr = saved["lr"] if saved is not None else config.optim.lr
        self.control = control or RunControl(lr=lr)                  # the lr in effect lives in the control
        opt = config.optim
        self.device = check_runnable(config)
        with _INIT_LOCK:
            torch.manual_seed(opt.seed)
            self.model = SequenceModel(config.model, config.task.vocab_size).to(self.device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.control.lr, weight_decay=opt.weight_decay)
        test_x, test_y = config.task.build(opt.test_examples, (opt.seed, TEST_STREAM))
        self.test_inputs, self.test_labels = test_x.to(self.device), test_y.to(self.device)
        self.probe = self.test_inputs[: min(32, len(self.test_inputs))]   # (≤32, T) for eigenvalue snapshots
        self.step = 0
        self.train_s = 0.0
        if saved is not None:
            self._restore(saved)

    def checkpoint(self) -> bytes:
        """Everything the loop carries between two steps, as bytes (torch.save): weights, AdamW's state (moments,
        step counts, its groups), the step, the training time, the learning rate in effect, and torch's RNG (the
        loop draws none after the init today; a layer with dropout would, and would still resume exactly in a
        process of its own). Take it between two records: the step of the last record is done."""
        state = dict(format=CHECKPOINT_FORMAT, config=_config_key(self.config), step=self.step, train_s=self.train_s,
                     lr=self.control.lr, model=self.model.state_dict(), optimizer=self.optimizer.state_dict(),
                     torch_rng=torch.get_rng_state(),
                     cuda_rng=torch.cuda.get_rng_state(self.device) if self.device.type == "cuda" else None)
        buffer = io.BytesIO()
        torch.save(state, buffer)
        return buffer.getvalue()

    def _restore(self, saved: dict) -> None:
        self.model.load_state_dict(saved["model"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self.step, self.train_s = int(saved["step"]), float(saved["train_s"])
        with _INIT_LOCK:                   # a Trainer built in another thread seeds torch's RNG under this lock
            torch.set_rng_state(saved["torch_rng"])
            if saved["cuda_rng"] is not None and self.device.type == "cuda":
                torch.cuda.set_rng_state(saved["cuda_rng"], self.device)

    def batch(self, step: int):
        x, y = self.config.task.build(self.config.optim.batch_size, (self.config.optim.seed, TRAIN_STREAM, step))
        return x.to(self.device), y.to(self.device)

    @torch.no_grad()
    def test_accuracy(self) -> float:
        self.model.eval()
        correct = total = 0
        for start in range(0, len(self.test_inputs), 256):
            x, y = self.test_inputs[start:start + 256], self.test_labels[start:start + 256]
            mask = y != IGNORE
            correct += (self.model(x).argmax(-1)[mask] == y[mask]).sum().item()
            total += mask.sum().item()
        self.model.train()
        return correct / max(total, 1)

    def eigenvalues(self) -> list[torch.Tensor]:
        self.model.eval()
        eig = self.model.oscillation_eigenvalues(self.probe)
        self.model.train()
        return eig

    def train_step(self) -> tuple[float, float]:
        """One AdamW step on a fresh batch (none once the loss diverged); returns (loss, batch accuracy)."""
        for group in self.optimizer.param_groups:
            group["lr"] = self.control.lr
        x, y = self.batch(self.step)
        logits = self.model(x)                                    # (B, T, V)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten(), ignore_index=IGNORE)
        self.optimizer.zero_grad(set_to_none=True)
        value = loss.item()
        if not is_diverged(value):
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.optim.grad_clip)
            self.optimizer.step()
        return value, masked_accuracy(logits.detach(), y)

    def records(self) -> Iterator[TrainRecord]:
        opt, ctl = self.config.optim, self.control
        turn_began_s = self.train_s          # a turn on the slot counts training time from here (resumed: not 0)
        if self.step == 0:
            yield TrainRecord(step=0, status="paused" if ctl.paused else "running", wall_s=0.0, lr=ctl.lr,
                              test_acc=self.test_accuracy(), eigenvalues=self.eigenvalues())
        while True:
            if ctl.stop_reason:
                yield self._final("stopped", ctl.stop_reason)
                return
            if self.step >= opt.max_steps:
                yield self._final("completed", f"reached max steps {opt.max_steps}")
                return
            if self.train_s >= opt.max_seconds:
                yield self._final("completed", f"reached max seconds {opt.max_seconds:g}")
                return
            if ctl.suspended or ctl.turn_over(self.train_s - turn_began_s):
                yield TrainRecord(step=self.step, status=PREEMPTED, wall_s=self.train_s, lr=ctl.lr,
                                  reason=(suspended_reason if ctl.suspended else preempted_reason)(self.step),
                                  is_heartbeat=True)
                return
            if not ctl.may_step(PAUSE_HEARTBEAT_S):
                if not ctl.stop_reason:
                    yield TrainRecord(step=self.step, status="paused", wall_s=self.train_s, lr=ctl.lr,
                                      is_heartbeat=True)
                continue
            t0 = time.perf_counter()
            loss, acc = self.train_step()
            self.step += 1
            record = TrainRecord(step=self.step, status="paused" if ctl.paused else "running",
                                 wall_s=0.0, lr=ctl.lr, loss=loss, train_acc=acc)
            if is_diverged(loss):                # the one divergence policy of the explorer
                self.train_s += time.perf_counter() - t0
                record.wall_s = self.train_s
                record.status = "diverged"
                record.reason = f"loss became {loss:.3g} at step {self.step} (divergence bound {DIVERGENCE_BOUND:g})"
                yield record
                return
            if self.step % opt.eval_every == 0:
                record.test_acc = self.test_accuracy()
            if self.step % opt.snapshot_every == 0:
                record.eigenvalues = self.eigenvalues()
            self.train_s += time.perf_counter() - t0
            record.wall_s = self.train_s
            if record.test_acc is not None and record.test_acc >= opt.target_acc:
                if record.eigenvalues is None:
                    record.eigenvalues = self.eigenvalues()
                record.status, record.reason = "completed", f"test accuracy {record.test_acc:.3f} ≥ target"
                yield record
                return
            yield record

    def _final(self, status: str, reason: str) -> TrainRecord:
        return TrainRecord(step=self.step, status=status, wall_s=self.train_s, lr=self.control.lr,
                           test_acc=self.test_accuracy(), eigenvalues=self.eigenvalues(), reason=reason)


def _config_key(config: RunConfig) -> str:
    """The config as the store keeps it (JSON), so a checkpoint recognises its run's config after a round trip."""
    return json.dumps(config.to_dict(), sort_keys=True)


def _read_checkpoint(checkpoint: bytes, config: RunConfig) -> dict:
    """A checkpoint's contents; ValueError for another format or another run's config."""
    saved = torch.load(io.BytesIO(checkpoint), map_location="cpu", weights_only=True)
    if saved.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"checkpoint format {saved.get('format')!r} is not {CHECKPOINT_FORMAT}: start the run again")
    if saved["config"] != _config_key(config):
        raise ValueError("the checkpoint belongs to a run of another configuration")
    return saved


def train(config: RunConfig, control: RunControl | None = None) -> Iterator[TrainRecord]:
    """Train `config`; yields one record per step (see TrainRecord)."""
    return Trainer(config, control).records()

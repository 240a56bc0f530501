"""Typed configs of a training run: task + model + optimisation, and the size caps a
shared server puts on them. A config round-trips through a plain dict (JSON in the
run store)."""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Literal

from lcsm_core.codes import parse_code
from lcsm_core.tasks import MQARConfig, SelectiveCopyingConfig, TaskConfig, task_config
from lcsm_core.variants import VARIANTS

Device = Literal["auto", "cpu", "cuda"]
Form = Literal["auto", "chunked", "recurrent", "parallel", "kernel"]

CODE_PATTERN = re.compile(r"^\s*\d+(\s*-\s*\d+){3}\s*$|^\s*0\s*$")


@dataclass
class ModelConfig:
    """embedding → n_layers × [norm → EOS layer → norm → MLP] → norm → head.

    The EOS layer is a registered variant (`variant`, e.g. "gla") or, when `code` is
    set, an LCSM model code "e-o-s-a" (e.g. "1-9-1-0") with temperature `tau`.
    `expand_dim` is k, the rows of the memory m ∈ R^{k×d}. `short_conv` > 1 puts a causal
    depthwise convolution of that width before each EOS layer (0 or 1: none).
    """

    variant: str = "gla"
    code: str | None = None
    d_model: int = 64
    expand_dim: int = 64
    n_layers: int = 2
    mlp_ratio: int = 2
    short_conv: int = 4
    tau: float = 16.0
    form: Form = "auto"

    @property
    def layer_label(self) -> str:
        return f"code {self.code}" if self.code else self.variant

    def validate(self) -> None:
        if self.code is not None:
            if not CODE_PATTERN.match(self.code):
                raise ValueError(f"model code {self.code!r} is not of the form e-o-s-a (e.g. 1-9-1-0) or 0")
            parse_code(self.code)      # raises ValueError with the core's message
        elif not self.variant:
            raise ValueError("choose a variant or give a model code")
        else:
            _check_variant(self.variant)
        if self.short_conv < 0:
            raise ValueError(f"short_conv must be ≥ 0, got {self.short_conv}")
        for name in ("d_model", "expand_dim", "n_layers", "mlp_ratio"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.tau > 0:
            raise ValueError(f"tau must be positive, got {self.tau}")


def check_learning_rate(lr) -> float:
    """The one check of a learning rate, wherever one arrives (a config, a running run's set_lr, a command)."""
    if not (0 < float(lr) < 10):
        raise ValueError(f"learning rate must be in (0, 10), got {lr}")
    return float(lr)


@dataclass
class OptimConfig:
    """AdamW on fresh batches; stops at `target_acc` test accuracy, `max_steps` or `max_seconds`
    of training time (pauses excluded). Test accuracy every `eval_every` steps; every
    layer's oscillation eigenvalues every `snapshot_every` steps.

    `lr` is the learning rate a run starts with, kept as asked so a stored config reproduces the run's start;
    while it trains, its RunControl holds the learning rate in effect (set_lr changes that one only)."""

    lr: float = 5e-3
    weight_decay: float = 0.1
    batch_size: int = 32
    max_steps: int = 3000
    max_seconds: float = 120.0
    target_acc: float = 0.99
    eval_every: int = 20
    test_examples: int = 256
    snapshot_every: int = 20
    grad_clip: float = 1.0
    seed: int = 0
    device: Device = "auto"

    def validate(self) -> None:
        check_learning_rate(self.lr)
        if self.weight_decay < 0:
            raise ValueError(f"weight_decay must be ≥ 0, got {self.weight_decay}")
        for name in ("batch_size", "max_steps", "eval_every", "test_examples", "snapshot_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.max_seconds > 0:
            raise ValueError(f"max_seconds must be positive, got {self.max_seconds}")
        if not (0 < self.target_acc <= 1):
            raise ValueError(f"target_acc must be in (0, 1], got {self.target_acc}")


@dataclass
class RunConfig:
    task: TaskConfig = field(default_factory=MQARConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)

    def validate(self) -> RunConfig:
        """Raise ValueError with a message a learner can act on; return self."""
        self.task.validate()
        self.model.validate()
        self.optim.validate()
        return self

    def to_dict(self) -> dict:
        return {"task": asdict(self.task), "model": asdict(self.model), "optim": asdict(self.optim)}

    @classmethod
    def from_dict(cls, d: dict) -> RunConfig:
        task = dict(d.get("task", {}))
        name = task.pop("name", "mqar")
        return cls(task=task_config(name, **_known(MQARConfig if name == "mqar" else SelectiveCopyingConfig, task)),
                   model=ModelConfig(**_known(ModelConfig, d.get("model", {}))),
                   optim=OptimConfig(**_known(OptimConfig, d.get("optim", {}))))


RUN_MEMORY_BUDGET_ENV = "LCSM_RUN_MEMORY_BUDGET_MB"
DEFAULT_RUN_MEMORY_BUDGET_MB = 2048.0


def default_run_memory_budget_mb() -> float:
    """$LCSM_RUN_MEMORY_BUDGET_MB, else 2048 (2 GiB per run: a 2-core, 8 GiB classroom server trains one run
    at a time and keeps room for the app)."""
    value = os.environ.get(RUN_MEMORY_BUDGET_ENV, "").strip()
    return float(value) if value else DEFAULT_RUN_MEMORY_BUDGET_MB


@dataclass(frozen=True)
class SizeLimits:
    """Caps per run on a shared server (the page); the CLI runs uncapped. Besides the sizes, the estimated
    peak memory of a training step (lcsm_core.training.cost) must stay within `max_run_memory_mb`
    (None: no memory cap): sizes alone do not bound cost, e.g. a k×d gate costs batch·seq_len·k·d·layers."""

    max_d_model: int = 128
    max_expand_dim: int = 128
    max_layers: int = 4
    max_seq_len: int = 256
    max_vocab_size: int = 512
    max_batch_size: int = 128
    max_steps: int = 5000
    max_seconds: float = 600.0     # a safety net: the page budgets runs in steps, which a busy server slows down
    max_run_memory_mb: float | None = field(default_factory=default_run_memory_budget_mb)

    @property
    def run_memory_bytes(self) -> float | None:
        return None if self.max_run_memory_mb is None else self.max_run_memory_mb * 1024 ** 2

    def check(self, config: RunConfig) -> None:
        """Raise ValueError naming the first size over its cap, or the estimated memory over the budget."""
        checks = [("d_model", config.model.d_model, self.max_d_model),
                  ("expand dim k", config.model.expand_dim, self.max_expand_dim),
                  ("layers", config.model.n_layers, self.max_layers),
                  ("sequence length", config.task.seq_len, self.max_seq_len),
                  ("vocabulary size", config.task.vocab_size, self.max_vocab_size),
                  ("batch size", config.optim.batch_size, self.max_batch_size),
                  ("max steps", config.optim.max_steps, self.max_steps),
                  ("max seconds", config.optim.max_seconds, self.max_seconds)]
        for label, value, cap in checks:
            if value > cap:
                raise ValueError(f"{label} {value} is over this server's cap of {cap}")
        if self.run_memory_bytes is not None:
            from .cost import estimate_cost, over_budget_message
            cost = estimate_cost(config)
            if cost.peak_bytes > self.run_memory_bytes:
                raise ValueError(over_budget_message(cost, self.run_memory_bytes))


def run_config(*, task: str = "mqar", seq_len: int = 64, kv_pairs: int = 4, copy_tokens: int = 8,
               vocab_size: int | None = None, variant: str = "gla", code: str | None = None, tau: float = 16.0,
               d_model: int = 64, expand_dim: int | None = None, layers: int = 2,
               short_conv: int = ModelConfig.short_conv, form: Form = "auto", lr: float = OptimConfig.lr,
               batch_size: int = OptimConfig.batch_size, max_steps: int = OptimConfig.max_steps,
               max_seconds: float = OptimConfig.max_seconds, target_acc: float = OptimConfig.target_acc,
               eval_every: int = OptimConfig.eval_every, seed: int = 0, device: Device = "auto") -> RunConfig:
    """The RunConfig of flat settings — the one translation the CLI flags, the Train live page and the
    paper lab's grids share. `kv_pairs` sizes MQAR, `copy_tokens` selective copying; `vocab_size` None
    keeps the task's default; `expand_dim` None means k = d_model; a `code` (e-o-s-a) replaces `variant`.
    Eigenvalues are snapshot at every evaluation. Not validated: call `.validate()`."""
    sizes: dict = {"seq_len": seq_len}
    if task == "mqar":
        sizes["num_kv_pairs"] = kv_pairs
    else:
        sizes["num_tokens"] = copy_tokens
    if vocab_size is not None:
        sizes["vocab_size"] = vocab_size
    model = ModelConfig(variant=variant, code=None if code is None else code.strip(), d_model=d_model,
                        expand_dim=expand_dim or d_model, n_layers=layers, short_conv=short_conv, tau=tau, form=form)
    optim = OptimConfig(lr=lr, batch_size=batch_size, max_steps=max_steps, max_seconds=max_seconds,
                        target_acc=target_acc, eval_every=eval_every, snapshot_every=eval_every, seed=seed,
                        device=device)
    return RunConfig(task=task_config(task, **sizes), model=model, optim=optim)


# The Train live page's settings by name, with the page's defaults (app/lessons/train_live.py declares its widgets
# over these names; tests/training/test_run_settings.py pins the two equal), so a script trains what the page
# trains without importing the page (benchmarks/train_speed.py).
PAGE_DEFAULTS = dict(task="mqar", seq_len=64, kv_pairs=4, copy_tokens=8, vocab=64, layer="variant", variant="gla",
                     code="1-3-1-0", tau=16.0, d_model=64, k=64, layers=2, conv=4, lr=OptimConfig.lr, batch=32, seed=0,
                     steps=1000)


def run_settings(v: dict, max_seconds: float | None = None) -> dict:
    """The keyword arguments of `run_config` that a training page's settings `v` (PAGE_DEFAULTS' names; a missing
    name keeps its default) make: budgeted in steps, with the server's time cap (SizeLimits().max_seconds unless
    `max_seconds` is given) only as a safety net for a run that hangs."""
    v = {**PAGE_DEFAULTS, **v}
    return dict(task=v["task"], seq_len=v["seq_len"], kv_pairs=v["kv_pairs"], copy_tokens=v["copy_tokens"],
                vocab_size=v["vocab"], variant=v["variant"], code=v["code"] if v["layer"] == "code" else None,
                tau=v["tau"], d_model=v["d_model"], expand_dim=v["k"], layers=v["layers"], short_conv=v["conv"],
                lr=v["lr"], batch_size=v["batch"], seed=v["seed"], max_steps=v["steps"],
                max_seconds=SizeLimits().max_seconds if max_seconds is None else max_seconds)


def _known(cls, d: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names and k != "name"}


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")

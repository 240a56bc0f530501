"""A grid: one ablation × sequence lengths × a learning-rate sweep × seeds, budgeted in optimizer steps.

Each cell of a grid is one training run. Budgets are steps (and so examples seen = steps × batch), never
seconds, so a slow code is not punished for being slow. The grid's id is a hash of its spec: the same
spec is the same grid, which is how a rerun resumes (finished cells are not run again).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import asdict, dataclass, field

from ..training import RunConfig, run_config
from .ablations import ABLATIONS, VARIANT_PREFIX

MAX_SEEDS = 50                    # a confirmation round runs 40 (search.CONFIRM_ROUNDS); the page offers 3
DEVICES = ("cpu", "cuda", "auto")
# Fields added after grids were first shipped: hashed into the grid id only when they differ from these
# defaults, so every grid named before keeps its id (and its stored runs).
_LATER_FIELDS = {"vocab_size": 64, "device": "cpu"}


@dataclass(frozen=True)
class GridSpec:
    """What a grid trains. `expand_dim` is k, the rows of the memory (the paper fixes k = 128 at d = 64..512;
    here k = d by default); `short_conv` > 1 puts a causal convolution of that width before each EOS layer,
    which the paper's models do not have (0: none). `device` is where each cell trains ("cuda": the GPU, in
    the scan form the device does best; "auto": the GPU when there is one). There is no cap on `steps`: the
    budget is the researcher's (the paper does not state its MQAR budget)."""

    ablation: str = "data_dependence"
    seq_lens: tuple[int, ...] = (32,)
    kv_pairs: int = 4
    d_model: int = 32
    expand_dim: int = 32
    lrs: tuple[float, ...] = (3e-3, 1e-2)
    steps: int = 1000
    batch_size: int = 32
    seeds: tuple[int, ...] = (0,)
    short_conv: int = 0
    eval_every: int = 50
    vocab_size: int = 64
    device: str = "cpu"

    @property
    def cell_count(self) -> int:
        return len(ABLATIONS[self.ablation].entries) * len(self.seq_lens) * len(self.lrs) * len(self.seeds)

    @property
    def examples_per_run(self) -> int:
        return self.steps * self.batch_size

    @property
    def grid_id(self) -> str:
        """`<ablation>-<hash of the spec>`: the same spec is the same grid."""
        fields = {k: v for k, v in asdict(self).items() if _LATER_FIELDS.get(k, object()) != v}
        blob = json.dumps(fields, sort_keys=True)
        return f"{self.ablation}-{hashlib.sha1(blob.encode()).hexdigest()[:10]}"

    def validate(self) -> GridSpec:
        if self.ablation not in ABLATIONS:
            raise ValueError(f"unknown ablation {self.ablation!r}; choose one of {', '.join(ABLATIONS)}")
        if not self.seq_lens or not self.lrs or not self.seeds:
            raise ValueError("a grid needs at least one sequence length, one learning rate and one seed")
        if len(self.seeds) > MAX_SEEDS or len(set(self.seeds)) != len(self.seeds) or min(self.seeds) < 0:
            raise ValueError(f"seeds must be 1..{MAX_SEEDS} distinct non-negative numbers, got {list(self.seeds)}")
        if self.steps < 1:
            raise ValueError(f"the budget per run must be at least 1 step (steps ≥ 1), got {self.steps}")
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {self.device!r}")
        if len(set(self.seq_lens)) != len(self.seq_lens) or len(set(self.lrs)) != len(self.lrs):
            raise ValueError("sequence lengths and learning rates must not repeat")
        for config in (c.config for c in cells(self, check=False)):
            config.validate()                 # sizes, learning rates: the training config's own messages
        return self


@dataclass(frozen=True)
class CellId:
    """Which cell: an ablation entry (label, model code, τ) at one sequence length, learning rate and seed."""

    label: str
    code: str
    tau: float
    seq_len: int
    lr: float
    seed: int

    @property
    def key(self) -> tuple:
        return (self.code, self.tau, self.seq_len, self.lr, self.seed)

    @property
    def run_label(self) -> str:
        return f"{self.label} · T={self.seq_len} · lr={self.lr:g} · seed {self.seed}"


@dataclass(frozen=True)
class Cell(CellId):
    """One run of a grid, with the config it trains."""

    config: RunConfig = field(compare=False, repr=False)


def cells(spec: GridSpec, check: bool = True) -> list[Cell]:
    """Every cell of the grid, entry by entry (then length, learning rate, seed)."""
    if check:
        spec.validate()
    out = []
    for label, code, tau in ABLATIONS[spec.ablation].entries:
        for seq_len in spec.seq_lens:
            for lr in spec.lrs:
                for seed in spec.seeds:
                    config = run_config(task="mqar", seq_len=seq_len, kv_pairs=spec.kv_pairs,
                                        vocab_size=spec.vocab_size, **model_of(code), tau=tau,
                                        d_model=spec.d_model, expand_dim=spec.expand_dim, short_conv=spec.short_conv,
                                        form="auto", lr=lr, batch_size=spec.batch_size, max_steps=spec.steps,
                                        max_seconds=float(365 * 24 * 3600), eval_every=spec.eval_every, seed=seed,
                                        device=spec.device)
                    # Eigenvalues only at the end: a grid reads accuracies, and a snapshot per evaluation cost
                    # ~9 % of a cell's time (1-1-1-0, T = 32) without changing any number it trains to.
                    config.optim = dataclasses.replace(config.optim, snapshot_every=spec.steps)
                    out.append(Cell(label, code, float(tau), seq_len, lr, seed, config))
    return out


def model_of(code: str) -> dict:
    """run_config's model keywords for an entry's model: an e-o-s-a code, or a named layer ("variant:mamba")."""
    if code.startswith(VARIANT_PREFIX):
        return dict(variant=code[len(VARIANT_PREFIX):], code=None)
    return dict(code=code)


def cell_key(config: dict) -> tuple:
    """The key of the cell a stored run's config belongs to (see Cell.key)."""
    model, optim, task = config.get("model", {}), config.get("optim", {}), config.get("task", {})
    code = model.get("code") or f"{VARIANT_PREFIX}{model.get('variant')}"
    return (code, float(model.get("tau", 16.0)), task.get("seq_len"), optim.get("lr"), optim.get("seed"))


# The grid each ablation runs unless told otherwise — the one the page opens with, the shipped results and
# `--scale cpu`: the smallest sizes at which the paper's MQAR claims can show (d = k = 32, T = 32, 1000 steps),
# over the 3 seeds a verdict needs, at one learning rate: 1e-2, where almost every run of the 2-rate
# session-3 grids that left MQAR's plateau did so. That keeps a grid to minutes on a 2-core CPU; one rate
# cannot show that the best rate lies inside the sweep, and the verdict's learning-rate note says so.
DEFAULT_LRS = (1e-2,)
DEFAULT_SEEDS = (0, 1, 2)
DEFAULT_SPECS = {name: GridSpec(ablation=name, lrs=DEFAULT_LRS, seeds=DEFAULT_SEEDS) for name in ABLATIONS}


def default_spec(ablation: str) -> GridSpec:
    if ablation not in DEFAULT_SPECS:
        raise ValueError(f"unknown ablation {ablation!r}; choose one of {', '.join(DEFAULT_SPECS)}")
    return DEFAULT_SPECS[ablation]


DONE = ("completed", "diverged")           # a cell's run that needs no rerun


def grid_session(grid_id: str) -> str:
    return f"grid:{grid_id}"


def finished_cells(rows: list) -> dict[tuple, object]:
    """The newest finished run of every cell among a grid's runs."""
    done = {}
    for row in rows:                                  # oldest first: a newer run replaces an older one
        if row.status in DONE:
            done[cell_key(row.config)] = row
    return done

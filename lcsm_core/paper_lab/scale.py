"""Grids at two scales besides the shipped one, and what a grid costs before it runs.

- CPU_SPECS: each ablation over 3 seeds at the shipped sizes (d = k = 32, T = 32, 1000 steps), one learning
  rate (1e-2: where almost every shipped run that left MQAR's plateau did so) — the grids to ship next, sized
  for a 2-core CPU. One rate cannot show where the best rate lies: the verdict's lr note says so.
- paper_specs(ablation): the paper's MQAR setup (§3: k = 128, d = 64…512, T = 32…256, the best of seven
  learning rates 1e-5…1e-2), 3 seeds; one grid per width d. The paper states no step budget: PAPER_STEPS is
  ours, and `--steps` raises it without a cap.
- grid_cost: cells × steps × *measured* seconds per step (a few real training steps of each length's
  costliest entry, on the grid's device) → CPU-hours or GPU-hours. Nothing is refused: the cost is said.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from .ablations import ABLATIONS
from .grid import Cell, GridSpec, cells

CPU_SEEDS = (0, 1, 2)
CPU_SPECS = {name: GridSpec(ablation=name, seeds=CPU_SEEDS, lrs=(1e-2,)) for name in ABLATIONS}

PAPER_LENGTHS = (32, 64, 128, 256)
PAPER_WIDTHS = (64, 128, 256, 512)
PAPER_EXPAND = 128
PAPER_LRS = (1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2)
PAPER_STEPS = 20_000          # our assumption: the paper does not state its MQAR budget
PAPER_BATCH = 64


def paper_specs(ablation: str, device: str = "cuda", steps: int = PAPER_STEPS,
                widths: tuple[int, ...] = PAPER_WIDTHS) -> list[GridSpec]:
    """The paper-scale grids of one ablation: one per model width, every other axis as the paper's §3."""
    return [GridSpec(ablation=ablation, seq_lens=PAPER_LENGTHS, d_model=d, expand_dim=PAPER_EXPAND, lrs=PAPER_LRS,
                     steps=steps, batch_size=PAPER_BATCH, seeds=CPU_SEEDS, eval_every=max(50, steps // 50),
                     device=device).validate() for d in widths]


@dataclass(frozen=True)
class GridCost:
    spec: GridSpec
    seconds_per_step: dict[int, float]       # sequence length -> measured seconds per step (costliest entry)
    device: str                              # where the steps were measured, in words

    @property
    def cell_count(self) -> int:
        return self.spec.cell_count

    @property
    def total_seconds(self) -> float:
        """Every cell's steps at its length's measured rate (one device per cell at a time)."""
        per_length = self.spec.cell_count // len(self.spec.seq_lens)
        return sum(per_length * self.spec.steps * s for s in self.seconds_per_step.values())

    @property
    def unit(self) -> str:
        return "GPU-hours" if self.device.startswith("cuda") else "CPU-hours"

    def __str__(self) -> str:
        rates = ", ".join(f"T={T} {s:.3g} s" for T, s in sorted(self.seconds_per_step.items()))
        return (f"{self.spec.grid_id}: {self.cell_count} cells × {self.spec.steps} steps × measured s/step "
                f"({rates}, on {self.device}) ≈ {self.total_seconds / 3600:,.1f} {self.unit}")


def costliest_cell(spec: GridSpec, seq_len: int) -> Cell:
    """The entry at this length whose training step the cost model says is dearest (seed 0, first rate)."""
    from ..training.cost import estimate_cost
    mine = [c for c in cells(spec) if c.seq_len == seq_len and c.lr == spec.lrs[0] and c.seed == spec.seeds[0]]
    return max(mine, key=lambda c: estimate_cost(c.config).step_s)


def measure_step_seconds(cell: Cell, steps: int = 2) -> tuple[float, str]:
    """Seconds per training step of this cell, timed over `steps` steps after one warm-up step; and the device."""
    import torch

    from ..training.loop import Trainer
    config = dataclasses.replace(cell.config, optim=dataclasses.replace(cell.config.optim, test_examples=1))
    trainer = Trainer(config)
    trainer.train_step()                               # allocation, autotuning: not the steady rate
    if trainer.device.type == "cuda":
        torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(steps):
        trainer.train_step()
    if trainer.device.type == "cuda":
        torch.cuda.synchronize()
    where = (f"cuda ({torch.cuda.get_device_name(trainer.device)})" if trainer.device.type == "cuda"
             else f"cpu ({torch.get_num_threads()} thread(s))")
    return (time.perf_counter() - started) / steps, where


def grid_cost(spec: GridSpec, steps: int = 2) -> GridCost:
    """The grid's cost from a few measured steps per sequence length."""
    rates, where = {}, "cpu"
    for T in spec.seq_lens:
        rates[T], where = measure_step_seconds(costliest_cell(spec, T), steps)
    return GridCost(spec, rates, where)

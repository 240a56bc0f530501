"""The grids at CPU and at paper scale, and what a grid costs before it runs.

- CPU_SPECS: the shipped grids, grid.DEFAULT_SPECS (one source): each ablation over 3 seeds at d = k = 32,
  T = 32, 1000 steps, one learning rate (1e-2), sized for a 2-core CPU. One rate cannot show where the best
  rate lies: the verdict's lr note says so.
- paper_specs(ablation): the paper's MQAR setup (§3: k = 128, d = 64…512, T = 32…256, the best of seven
  learning rates 1e-5…1e-2), 3 seeds; one grid per width d. The paper states no step budget: PAPER_STEPS is
  ours, and `--steps` raises it without a cap.
- grid_cost: cells × steps × *measured* seconds per step (a few real training steps of every entry at every
  length, on the grid's device) → CPU-hours or GPU-hours. Nothing is refused: the cost is said.
- model_grid_cost: the same sum at the admission cost model's seconds per step (training/cost.py, what a page's
  grid is charged: admission.run_cost_s). One cost model: the model's time rate is calibrated from rates this
  module measures (measure_step_seconds, by benchmarks/cost_calibration.py into
  benchmarks/results/cost_calibration-cpu.json), and a test holds every calibrated config within the model's
  stated factor (cost.TIME_AGREEMENT) of its measured rate. A CPU grid's measured cost prints the model's beside it.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from .grid import DEFAULT_SEEDS, DEFAULT_SPECS, Cell, GridSpec, cells

CPU_SEEDS = DEFAULT_SEEDS
CPU_SPECS = DEFAULT_SPECS                  # `--scale cpu` is the shipped grid (grid.py holds its numbers)

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
    seconds_per_step: dict[tuple[str, int], float]   # (entry label, sequence length) -> measured s per step
    device: str                                      # where the steps were measured, in words
    model_seconds: float | None = None               # the admission cost model's total, for a CPU grid

    @property
    def cell_count(self) -> int:
        return self.spec.cell_count

    @property
    def total_seconds(self) -> float:
        """Every cell's steps at its entry's and length's measured rate (one device per cell at a time)."""
        runs_per_entry_and_length = len(self.spec.lrs) * len(self.spec.seeds)
        return sum(runs_per_entry_and_length * self.spec.steps * s for s in self.seconds_per_step.values())

    def length_rates(self) -> dict[int, tuple[float, float]]:
        """sequence length -> (mean, largest) seconds per step over the entries."""
        out = {}
        for T in self.spec.seq_lens:
            rates = [s for (_, length), s in self.seconds_per_step.items() if length == T]
            out[T] = (sum(rates) / len(rates), max(rates))
        return out

    @property
    def unit(self) -> str:
        return "GPU-hours" if self.device.startswith("cuda") else "CPU-hours"

    def __str__(self) -> str:
        rates = ", ".join(f"T={T} {mean:.3g} s (≤ {top:.3g})" for T, (mean, top) in self.length_rates().items())
        model = ("" if self.model_seconds is None else
                 f" (the admission cost model: {self.model_seconds / 3600:,.1f} CPU-hours)")
        return (f"{self.spec.grid_id}: {self.cell_count} cells × {self.spec.steps} steps × measured s/step "
                f"({rates}, on {self.device}) ≈ {self.total_seconds / 3600:,.1f} {self.unit}{model}")


def measure_step_seconds(cell: Cell, steps: int = 2) -> tuple[float, str]:
    """Seconds per training step of this cell, timed over `steps` steps after one warm-up step; and the device."""
    return measure_config_step_seconds(cell.config, steps)


def measure_config_step_seconds(run_config, steps: int = 2, clock=time.perf_counter) -> tuple[float, str]:
    """Seconds per training step of a RunConfig (a cell's, a live run's), timed over `steps` steps after one
    warm-up step; and the device, in words. `clock`: wall time (default), or time.process_time for the CPU-seconds
    the step takes on a CPU (what the admission policy budgets; far steadier than wall time on a loaded machine)."""
    import torch

    from ..training.loop import Trainer
    config = dataclasses.replace(run_config, optim=dataclasses.replace(run_config.optim, test_examples=1))
    trainer = Trainer(config)
    trainer.train_step()                               # allocation, autotuning: not the steady rate
    if trainer.device.type == "cuda":
        torch.cuda.synchronize()
    started = clock()
    for _ in range(steps):
        trainer.train_step()
    if trainer.device.type == "cuda":
        torch.cuda.synchronize()
    where = (f"cuda ({torch.cuda.get_device_name(trainer.device)})" if trainer.device.type == "cuda"
             else f"cpu ({torch.get_num_threads()} thread(s))")
    return (clock() - started) / steps, where


def grid_cost(spec: GridSpec, steps: int = 2) -> GridCost:
    """The grid's cost from a few measured steps of every entry at every length (first rate, first seed: the
    rate and the seed do not change a step's work)."""
    rates, where = {}, "cpu"
    for cell in cells(spec):
        if cell.lr == spec.lrs[0] and cell.seed == spec.seeds[0]:
            rates[cell.label, cell.seq_len], where = measure_step_seconds(cell, steps)
    return GridCost(spec, rates, where, model_grid_cost(spec).total_seconds if where.startswith("cpu") else None)


def model_grid_cost(spec: GridSpec) -> GridCost:
    """The grid's cost at the admission cost model's seconds per step (training/cost.py, no step measured): what a
    page's grid of this spec is charged (admission.grid_cost_s of its cells, the same number)."""
    from ..training.cost import estimate_cost
    rates = {}
    for cell in cells(spec):
        if cell.lr == spec.lrs[0] and cell.seed == spec.seeds[0]:
            rates[cell.label, cell.seq_len] = estimate_cost(cell.config).step_s
    return GridCost(spec, rates, "cpu (the admission cost model)")


def differences_from_paper(spec: GridSpec) -> list[str]:
    """How this grid differs from the paper's MQAR setup (§3), one line each, for the page and the summary."""
    def listed(values) -> str:
        return ", ".join(f"{v:g}" for v in values)
    seeds = len(spec.seeds)
    lines = [f"d = {spec.d_model}, k = {spec.expand_dim} (the paper: d = 64…512 with k = {PAPER_EXPAND}); two layers",
             f"sequence lengths {listed(spec.seq_lens)} (the paper: {listed(PAPER_LENGTHS)})",
             f"MQAR with {spec.kv_pairs} key–value pairs and a vocabulary of {spec.vocab_size} (the paper states "
             "neither)",
             f"{spec.steps} optimizer steps of {spec.batch_size} examples per run (the paper states no budget)",
             f"the best of {len(spec.lrs)} learning rate(s) {listed(spec.lrs)} per cell (the paper: the best of "
             f"{len(PAPER_LRS)}, {listed(PAPER_LRS[:1])} … {listed(PAPER_LRS[-1:])})",
             f"{seeds} seed{'s' if seeds > 1 else ''} per cell" + ("" if seeds >= 3 else
                                                                   ": too few for a verdict, which needs 3"),
             ("a width-{} causal convolution before each EOS layer (not in the paper)".format(spec.short_conv)
              if spec.short_conv > 1 else "no short convolution (as in the paper)"),
             f"trained on {spec.device}"]
    return lines

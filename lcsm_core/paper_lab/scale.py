"""The grids at CPU and at paper scale, and what a grid costs before it runs.

- CPU_SPECS: the shipped grids, grid.DEFAULT_SPECS (one source): each ablation over 3 seeds at d = k = 32,
  T = 32, 1000 steps, one learning rate (1e-2), sized for a 2-core CPU. One rate cannot show where the best
  rate lies: the verdict's lr note says so.
- paper_specs(ablation): the paper's MQAR setup (§3: k = 128, d = 64…512, T = 32…256, the best of seven
  learning rates 1e-5…1e-2), 3 seeds; one grid per width d. The paper states no step budget: PAPER_STEPS is
  ours, and `--steps` raises it without a cap.
- grid_cost: what a grid costs before it runs, from the one cost model (training/cost.py step_seconds_of): cells ×
  steps × the model's CPU-seconds per step → CPU-hours, the same number the admission policy charges a page's grid
  (admission.grid_cost_s). The model's rates are fitted to measured steps (benchmarks/paper_lab_cost.py prints
  predicted vs measured per model code); a grid for a GPU on a machine with one also gets that GPU's measured
  seconds per step → GPU-hours. Nothing is refused: the cost is said.
- measure_config_step_seconds: a few real training steps of a config, timed (the benchmarks' instrument).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from .evidence import MIN_SEEDS as EVIDENCE_SEEDS
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
    """A grid's cost before it runs, from the one cost model (training/cost.py step_seconds_of): per (entry label,
    sequence length) its CPU-seconds per step on one core, and in all `cpu_seconds`, what the admission policy
    charges a page's grid of this spec (admission.grid_cost_s of its cells, the same number). A grid that trains
    on a GPU carries the GPU's seconds per step where this machine has one to measure them (`gpu_seconds_per_step`,
    `gpu`: its name); without one, its cost is said in CPU-hours only."""

    spec: GridSpec
    seconds_per_step: dict[tuple[str, int], float]   # (entry label, sequence length) -> the model's CPU-s per step
    cpu_seconds: float                                # every cell's steps at the model's rate: what admission charges
    gpu_seconds_per_step: dict[tuple[str, int], float] | None = None   # measured on this machine's GPU
    gpu: str = ""

    @property
    def cell_count(self) -> int:
        return self.spec.cell_count

    @property
    def runs_per_rate(self) -> int:
        return len(self.spec.lrs) * len(self.spec.seeds)

    @property
    def gpu_seconds(self) -> float | None:
        """Every cell's steps at its entry's and length's measured GPU rate (one GPU per cell at a time)."""
        if self.gpu_seconds_per_step is None:
            return None
        return sum(self.runs_per_rate * self.spec.steps * s for s in self.gpu_seconds_per_step.values())

    @staticmethod
    def length_rates(rates: dict[tuple[str, int], float], lengths) -> dict[int, tuple[float, float]]:
        """sequence length -> (mean, largest) seconds per step over the entries."""
        out = {}
        for T in lengths:
            mine = [s for (_, length), s in rates.items() if length == T]
            out[T] = (sum(mine) / len(mine), max(mine))
        return out

    def __str__(self) -> str:
        def said(rates):
            return ", ".join(f"T={T} {mean:.3g} s (≤ {top:.3g})"
                             for T, (mean, top) in self.length_rates(rates, self.spec.seq_lens).items())
        text = (f"{self.spec.grid_id}: {self.cell_count} cells × {self.spec.steps} steps × the cost model's CPU-s/step "
                f"({said(self.seconds_per_step)}, one core) ≈ {cpu_amount(self.cpu_seconds)}, what admission "
                "charges")
        if self.gpu_seconds_per_step is None:
            return text + ("; no GPU here to measure its GPU seconds per step: CPU-hours only"
                           if self.spec.device == "cuda" else "")
        return (text + f"; measured on {self.gpu}: {said(self.gpu_seconds_per_step)} ≈ "
                       f"{self.gpu_seconds / 3600:,.2f} GPU-hours")


def cpu_amount(seconds: float) -> str:
    """CPU-seconds in words at a readable unit: "12 CPU-seconds", "4.2 CPU-minutes", "1,234.5 CPU-hours"."""
    if seconds < 60:
        return f"{seconds:.3g} CPU-seconds"
    if seconds < 3600:
        return f"{seconds / 60:.2g} CPU-minutes ({seconds / 3600:.2f} CPU-hours)"
    return f"{seconds / 3600:,.1f} CPU-hours"


def measure_step_seconds(cell: Cell, steps: int = 2) -> tuple[float, str]:
    """Seconds per training step of this cell, timed over `steps` steps after one warm-up step; and the device."""
    return measure_config_step_seconds(cell.config, steps)


def measure_config_step_seconds(run_config, steps: int = 2, clock=time.perf_counter) -> tuple[float, str]:
    """Seconds per training step of a RunConfig (a cell's, a live run's), timed over `steps` steps after one
    warm-up step; and the device, in words (training/machine_speed.timed_steps, one block). `clock`: wall time
    (default), or time.process_time for the CPU-seconds the step takes on a CPU."""
    from ..training.machine_speed import timed_steps
    (seconds,), where = timed_steps(run_config, steps, clock)
    return seconds, where


def grid_cost(spec: GridSpec, gpu_steps: int = 3) -> GridCost:
    """The grid's cost from the one cost model (no step is measured on a CPU): each entry's and length's CPU-seconds
    per step (first rate, first seed: the rate and the seed do not change a step's work) and every cell's total as
    admission charges it. A grid for a GPU (device "cuda", or "auto" on a machine with one) on a machine with a GPU
    gets that GPU's seconds per step too, measured over `gpu_steps` steps after a warm-up step."""
    import torch

    from lcsm_core.training.cost import grid_cost_s

    from ..training.cost import step_seconds_of
    grid = cells(spec)
    firsts = [c for c in grid if c.lr == spec.lrs[0] and c.seed == spec.seeds[0]]
    rates = {(c.label, c.seq_len): step_seconds_of(c.config) for c in firsts}
    total = grid_cost_s(c.config for c in grid)
    if spec.device == "cpu" or not torch.cuda.is_available():
        return GridCost(spec, rates, total)
    gpu_rates, where = {}, ""
    for cell in firsts:
        config = dataclasses.replace(cell.config, optim=dataclasses.replace(cell.config.optim, device="cuda"))
        gpu_rates[cell.label, cell.seq_len], where = measure_config_step_seconds(config, gpu_steps)
    return GridCost(spec, rates, total, gpu_rates, where.removeprefix("cuda (").removesuffix(")"))


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
             f"{seeds} seed{'s' if seeds > 1 else ''} per cell" + ("" if seeds >= EVIDENCE_SEEDS else
                                                                   ": too few for a verdict, which needs "
                                                                   f"{EVIDENCE_SEEDS} per entry at its own "
                                                                   "searched rate (the evidence grids)"),
             ("a width-{} causal convolution before each EOS layer (not in the paper)".format(spec.short_conv)
              if spec.short_conv > 1 else "no short convolution (as in the paper)"),
             f"trained on {spec.device}"]
    return lines

"""The paper lab's cost model against measured training steps, per model code. Prints, never asserts.

    flock /tmp/lcsm-bench.lock python benchmarks/paper_lab_cost.py --machine "2-core VM, CPU" \
        --conditions "$(uptime)" [--scales shipped large] [--write]

For every model code of the shipped grids (lcsm_core.paper_lab.CPU_SPECS: each distinct code once, the first
entry that has it), at two scales:

- shipped: the shipped grids' cell (d = k = 32, T = 32, batch 32);
- large:   k = d = 128, T = 256 at the paper grids' batch (scale.PAPER_BATCH = 64). A code whose estimated peak
           memory is over `--max-gib` is measured at the largest halved batch under it (the row says so), so the
           benchmark never takes a shared machine's memory.

Each row: the cost model's seconds per step (training/cost.py `step_seconds_of`, the one number `--cost-only` and
the admission policy both use) and the measured rate: CPU-seconds and wall seconds per step on one torch thread
(a grid cell's thread count), timed over `--steps` steps after one warm-up step. measured / predicted must lie
within 2×. `--write` saves the table (markdown, with the machine named) to benchmarks/results/paper_lab_cost-cpu.md
and the rows (configs and measured rates) to paper_lab_cost-cpu.json, the calibration set the cost model's factor
is fitted to (the fitted factor is printed: cost.TIME_CALIBRATION times the geometric mean of measured / predicted).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lcsm_core.paper_lab import CPU_SPECS  # noqa: E402
from lcsm_core.paper_lab.grid import cells  # noqa: E402
from lcsm_core.paper_lab.scale import PAPER_BATCH  # noqa: E402
from lcsm_core.training import RunConfig, machine_speed  # noqa: E402
from lcsm_core.training import cost as cost_model  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SCALES = {"shipped": dict(), "large": dict(d_model=128, expand_dim=128, seq_lens=(256,), batch_size=PAPER_BATCH)}


def code_configs(scale: str) -> list[tuple[str, str, RunConfig]]:
    """(grid, code, config) for every distinct model code of the shipped grids, at `scale`."""
    out, seen = [], set()
    for name, spec in CPU_SPECS.items():
        spec = dataclasses.replace(spec, seeds=spec.seeds[:1], lrs=spec.lrs[:1], **SCALES[scale])
        for cell in cells(spec):
            if cell.code not in seen:
                seen.add(cell.code)
                out.append((name, cell.code, cell.config))
    return out


def within_memory(config: RunConfig, max_gib: float) -> RunConfig:
    """The config at the largest halved batch whose estimated peak is at most `max_gib` (the config itself when
    it fits)."""
    def peak(c: RunConfig) -> float:            # a training step's (the benchmark evaluates nothing)
        return cost_model.estimate_cost(dataclasses.replace(c, optim=dataclasses.replace(c.optim, test_examples=1)))\
            .peak_gib
    while peak(config) > max_gib and config.optim.batch_size > 1:
        config = dataclasses.replace(config, optim=dataclasses.replace(config.optim,
                                                                      batch_size=config.optim.batch_size // 2))
    return config


def measure(config: RunConfig, steps: int) -> tuple[float, float]:
    """(CPU-seconds, wall seconds) per training step over `steps` steps, after one warm-up step."""
    from lcsm_core.training.loop import Trainer
    trainer = Trainer(dataclasses.replace(config, optim=dataclasses.replace(config.optim, test_examples=1)))
    trainer.train_step()                               # allocation: not the steady rate
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(steps):
        trainer.train_step()
    return (time.process_time() - cpu) / steps, (time.perf_counter() - wall) / steps


def table(rows: list[dict], machine: str, conditions: str, measured_at: str, factor: float = 1.0) -> str:
    """The markdown table; `factor`: this machine's reference step over the model's (machine_speed), by which the
    model's seconds are scaled to this machine's before they are compared."""
    lines = [f"# Paper-lab cost model vs measured seconds per step, {machine}", "",
             f"`python benchmarks/paper_lab_cost.py` on {machine} (torch {torch.__version__}, 1 torch thread, "
             f"{os.cpu_count()} cores), measured {measured_at}; conditions: {conditions or 'not said'}.",
             f"Predicted: training/cost.py step_seconds_of (TIME_CALIBRATION = {cost_model.TIME_CALIBRATION:g}), the "
             "number `python -m lcsm_serving.paper_lab --cost-only` and the admission policy both use. Measured: CPU-s "
             "and wall s per step (one warm-up step, then the mean of the timed steps).",
             f"This machine's factor (training/machine_speed.py: its reference step, the shipped 1-1-1-0, over the "
             f"model's; measured before and after the rows): ×{factor:.3g}. The last column compares the measured "
             f"CPU-seconds with the model's times that factor: what `--cost-only` says a run takes here.", "",
             "| scale | grid | code | B | predicted s | measured CPU-s | measured wall s | CPU / predicted | "
             "CPU / (predicted × factor) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = r["measured_s"] / r["model_s"]
        here = ratio / factor
        flag = "" if 0.5 <= here <= 2 else " **over 2×**"
        lines.append(f"| {r['scale']} | {r['grid']} | {r['code']} | {r['batch']}{r.get('note', '')} | "
                     f"{r['model_s']:.4g} | {r['measured_s']:.4g} | {r['wall_s']:.4g} | {ratio:.2f} | "
                     f"{here:.2f}{flag} |")
    ratios = [r["measured_s"] / r["model_s"] / factor for r in rows]
    raw = [r["measured_s"] / r["model_s"] for r in rows]
    gmean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    lines += ["", f"{len(rows)} rows; CPU / (predicted × factor): geometric mean {gmean:.2f}, range "
                  f"{min(ratios):.2f}–{max(ratios):.2f}; {sum(0.5 <= x <= 2 for x in ratios)} of {len(rows)} "
                  f"within 2× (CPU / predicted, the factor left out: {sum(0.5 <= x <= 2 for x in raw)} of "
                  f"{len(rows)})."]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", nargs="+", choices=list(SCALES), default=list(SCALES))
    p.add_argument("--steps", type=int, default=0, help="timed steps per code (default: 5 shipped, 1 large)")
    p.add_argument("--max-gib", type=float, default=4.0, help="estimated peak memory a measured config may take")
    p.add_argument("--only", default="", help="measure only codes containing this")
    p.add_argument("--machine", default=f"{os.cpu_count()}-core machine, CPU", help="the machine, in words")
    p.add_argument("--conditions", default="", help="the machine's load while measuring (uptime)")
    p.add_argument("--rescore", action="store_true", help="print the saved rows against the current model; no "
                                                          "measuring")
    p.add_argument("--write", action="store_true", help="save the table and the rows to benchmarks/results/")
    p.add_argument("--out", default="", help="also write the table to this file (a machine's own record)")
    args = p.parse_args()
    if args.write and not args.rescore and (args.only or set(args.scales) != set(SCALES)):
        p.error("--write saves the whole table (tests read every code at both scales): no --only, both --scales")
    torch.set_num_threads(1)
    saved = RESULTS / "paper_lab_cost-cpu.json"
    if args.rescore:
        data = json.loads(saved.read_text())
        rows = data["rows"]
        for r in rows:
            r["model_s"] = cost_model.step_seconds_of(RunConfig.from_dict(r["config"]))
        machine, conditions, measured_at = data["machine"], data["conditions"], data.get("measured_at", "")
        factor = data.get("machine_factor", 1.0)
    else:
        machine, conditions, rows = args.machine, args.conditions, []
        measured_at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        reference = cost_model.step_seconds_of(machine_speed.reference_config())
        before = machine_speed.measured_reference_step() / reference
        print(f"# {machine} · torch {torch.__version__} · 1 thread · load {os.getloadavg()[0]:.1f} · "
              f"machine factor {before:.3g}", flush=True)
        for scale in args.scales:
            steps = args.steps or (5 if scale == "shipped" else 1)
            for grid, code, config in code_configs(scale):
                if args.only not in code:
                    continue
                fitted = within_memory(config, args.max_gib)
                cpu, wall = measure(fitted, steps)
                note = "" if fitted is config else f" (of {config.optim.batch_size}: memory)"
                row = dict(scale=scale, grid=grid, code=code, batch=fitted.optim.batch_size, note=note,
                           config=fitted.to_dict(), measured_s=cpu, wall_s=wall,
                           model_s=cost_model.step_seconds_of(fitted))
                rows.append(row)
                print(f"{scale:8} {code:16} B={row['batch']:3} predicted {row['model_s']:8.4f}  CPU {cpu:8.4f}  "
                      f"wall {wall:8.4f}  ratio {cpu / row['model_s']:5.2f}", flush=True)
        after = machine_speed.measured_reference_step() / reference
        factor = math.sqrt(before * after)
        print(f"# machine factor {before:.3g} before the rows, {after:.3g} after: {factor:.3g}", flush=True)
    ratios = [r["measured_s"] / r["model_s"] / factor for r in rows]
    gmean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(table(rows, machine, conditions, measured_at, factor))
    print(f"TIME_CALIBRATION that would centre these rows (after the machine factor): "
          f"{cost_model.TIME_CALIBRATION * gmean:.3g} (now {cost_model.TIME_CALIBRATION:g})")
    if args.out:
        Path(args.out).write_text(table(rows, machine, conditions, measured_at, factor))
        print(f"wrote {args.out}")
    if args.write:
        (RESULTS / "paper_lab_cost-cpu.md").write_text(table(rows, machine, conditions, measured_at, factor))
        saved.write_text(json.dumps(dict(machine=machine, conditions=conditions, measured_at=measured_at,
                                         torch=torch.__version__, machine_factor=factor,
                                         time_calibration=cost_model.TIME_CALIBRATION, rows=rows), indent=1) + "\n")
        print(f"wrote {RESULTS / 'paper_lab_cost-cpu.md'} and {saved.name}")


if __name__ == "__main__":
    main()

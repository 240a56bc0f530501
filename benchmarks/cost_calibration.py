"""Calibrate the admission cost model's time rate from measured training steps (one cost model, issue 24).

    flock /tmp/lcsm-bench.lock python benchmarks/cost_calibration.py --conditions "$(uptime)" [--steps 10] [--write]

Measures CPU-seconds per training step (lcsm_core.paper_lab.scale.measure_config_step_seconds with the process's CPU
clock: one warm-up step, then the mean of `--steps`, one torch thread, as a grid worker and a training worker train;
CPU time is what the admission policy budgets, and unlike wall time it barely moves with the machine's load) of a
calibration set: one
cell of every entry of every CPU grid at T = 32 (the shipped sizes), the data-dependence entries at T = 64 and
128, a wider grid (d = k = 64), and Train live's default and largest-capped runs. Prints each config's measured
rate, the cost model's (training/cost.py estimate_cost(...).step_s) and their ratio, and the calibration factor
that puts the geometric mean of measured / model at 1 (the current factor times that mean). `--write` saves the
measurements to benchmarks/results/cost_calibration-cpu.json, which tests/training/test_cost_agreement.py holds the
model to (every config within cost.TIME_AGREEMENT), beside benchmarks/paper_lab_cost.py's per-code rows. After changing
the cost model's rates, run both again.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lcsm_core.paper_lab import CPU_SPECS  # noqa: E402
from lcsm_core.paper_lab.grid import GridSpec, cells  # noqa: E402
from lcsm_core.paper_lab.scale import measure_config_step_seconds  # noqa: E402
from lcsm_core.training import RunConfig  # noqa: E402
from lcsm_core.training import cost as cost_model  # noqa: E402
from lcsm_core.training.config import SizeLimits  # noqa: E402

RESULT = Path(__file__).resolve().parent / "results" / "cost_calibration-cpu.json"


def calibration_set() -> list[tuple[str, RunConfig]]:
    out = []
    for name, spec in CPU_SPECS.items():
        for cell in cells(spec):
            if cell.seed == spec.seeds[0] and cell.lr == spec.lrs[0]:
                out.append((f"{name} {cell.label} T={cell.seq_len}", cell.config))
    longer = dataclasses.replace(CPU_SPECS["data_dependence"], seq_lens=(64, 128), kv_pairs=8, seeds=(0,))
    wider = GridSpec(ablation="parameterization", d_model=64, expand_dim=64, seq_lens=(64,), kv_pairs=8, seeds=(0,),
                     lrs=(1e-2,))
    for label, spec in (("data_dependence", longer), ("parameterization d=k=64", wider)):
        for cell in cells(spec):
            out.append((f"{label} {cell.label} T={cell.seq_len}", cell.config))
    live = RunConfig()
    out.append(("Train live default", live))
    caps = SizeLimits()
    big = dataclasses.replace(live, model=dataclasses.replace(live.model, d_model=caps.max_d_model,
                                                             expand_dim=caps.max_expand_dim))
    out.append(("Train live d=k=128", big))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=10, help="timed steps per config (after one warm-up step)")
    p.add_argument("--conditions", default="", help="the machine's load while measuring (uptime), for the record")
    p.add_argument("--only", default="", help="measure only configs whose name contains this")
    p.add_argument("--write", action="store_true", help=f"save the measurements to {RESULT.name}")
    args = p.parse_args()
    torch.set_num_threads(1)
    print(f"# {platform.node()} · {os.cpu_count()} cores · torch {torch.__version__} · 1 thread · "
          f"load {os.getloadavg()[0]:.1f} · {args.conditions}")
    print(f"{'config':58} {'CPU s/step':>11} {'model s':>9} {'measured/model':>15}")
    rows, started = [], time.monotonic()
    for name, config in calibration_set():
        if args.only not in name:
            continue
        measured, where = measure_config_step_seconds(config, args.steps, clock=time.process_time)
        model = cost_model.estimate_cost(config).step_s
        rows.append(dict(name=name, config=config.to_dict(), measured_s=measured, model_s=model))
        print(f"{name:58} {measured:11.4f} {model:9.4f} {measured / model:15.2f}", flush=True)
    ratios = [r["measured_s"] / r["model_s"] for r in rows]
    mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"\n{len(rows)} configs in {time.monotonic() - started:.0f} s; measured/model: geometric mean {mean:.2f}, "
          f"range {min(ratios):.2f}–{max(ratios):.2f}; TIME_CALIBRATION now {cost_model.TIME_CALIBRATION:g}, "
          f"fitted {cost_model.TIME_CALIBRATION * mean:.3g}")
    if args.write:
        RESULT.write_text(json.dumps(dict(machine=f"{platform.node()}, {os.cpu_count()} cores, torch "
                                                  f"{torch.__version__}, 1 thread",
                                          conditions=args.conditions, steps=args.steps,
                                          time_calibration=cost_model.TIME_CALIBRATION, rows=rows), indent=1) + "\n")
        print(f"wrote {RESULT}")


if __name__ == "__main__":
    main()

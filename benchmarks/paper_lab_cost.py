"""What would the paper lab's grids cost here? Prints, never asserts.

    python benchmarks/paper_lab_cost.py [--cpu-grids] [--paper ABLATION ...] [--widths 64 ...] [--device cpu]

For each grid asked for: cells × steps × measured seconds per training step (one warm-up step, then the mean
of `--steps` steps of each length's costliest entry, as `python -m lcsm_core.paper_lab --cost-only` prints
before a grid runs) → CPU-hours or GPU-hours on one device at a time. `--cpu-grids`: the 3-seed CPU grids
(lcsm_core.paper_lab.CPU_SPECS) and, from their measured hours, the wall time on `--workers` local workers.
`--paper`: the paper-scale grids of those ablations (k = 128, d from --widths, T = 32…256, 7 learning rates,
3 seeds, 20 000 steps each — our budget: the paper states none). Evaluation and start-up are not counted.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lcsm_core.paper_lab import ABLATIONS, CPU_SPECS, grid_cost, paper_specs  # noqa: E402
from lcsm_core.paper_lab.scale import PAPER_WIDTHS  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cpu-grids", action="store_true")
    p.add_argument("--paper", nargs="*", default=[], choices=sorted(ABLATIONS))
    p.add_argument("--widths", type=int, nargs="+", default=list(PAPER_WIDTHS))
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--steps", type=int, default=2, help="timed steps per length (after one warm-up step)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=1, help="torch threads (a grid worker uses one)")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(f"# {platform.node()} · {os.cpu_count()} cores · torch {torch.__version__} · {args.threads} thread(s) · "
          f"load {os.getloadavg()[0]:.1f}")
    if args.cpu_grids:
        for spec in CPU_SPECS.values():
            cost = grid_cost(spec, steps=args.steps)
            print(f"{cost}  → ~{cost.total_seconds / args.workers / 60:.0f} min on {args.workers} workers")
    for name in args.paper:
        for spec in paper_specs(name, device=args.device, widths=tuple(args.widths)):
            print(f"d = {spec.d_model}: {grid_cost(spec, steps=args.steps)}", flush=True)


if __name__ == "__main__":
    main()

"""Does a longer run end MQAR's plateau lottery? One entry, one rate, several seeds, each trained once for the
longest budget; its best test accuracy read at every shorter budget from the same run. Prints, never asserts.

    python benchmarks/plateau_lottery.py [--code 1-1-1-0] [--lr 0.01] [--seeds 0 1 2 3 4] \
        [--budgets 1000 2000 3000] [--workers 2] [--write --conditions "$(uptime)"]

A cell as the evidence grids train it (lcsm_core.paper_lab.grid: d = k = 32, T = 32, 4 pairs, batch 32, evaluated
every 50 steps, one torch thread, deterministic), in a throwaway run store. A seed "left the plateau" when its best
accuracy so far beats 1/pairs + evidence.LEFT_BY (the evidence rule's statistic). `--write` adds a section to
benchmarks/results/plateau_lottery-cpu.md.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results" / "plateau_lottery-cpu.md"


def trained(code: str, lr: float, seed: int, steps: int) -> tuple[int, list[tuple[int, float]]]:
    """(seed, [(step, test accuracy)] of every evaluation) of one cell trained for `steps` steps."""
    import numpy as np

    from lcsm_core.paper_lab.grid import GridSpec, cells
    from lcsm_serving import RunStore
    from lcsm_serving.paper_lab.runner import run_one
    spec = GridSpec(ablation="data_dependence", seq_lens=(32,), lrs=(lr,), seeds=(seed,), steps=steps)
    cell = next(c for c in cells(spec) if c.code == code)
    db = tempfile.mktemp(suffix=".sqlite", prefix="lcsm-lottery-")
    store = RunStore(db)
    try:
        run_id = store.create_run(cell.config.to_dict(), "plateau lottery")
    finally:
        store.close()
    run_one(cell.config.to_dict(), db, run_id)
    store = RunStore(db)
    try:
        m = store.metrics(run_id)
    finally:
        store.close()
    return seed, [(int(s), float(a)) for s, a in zip(m["step"], m["test_acc"]) if not np.isnan(a)]


def table(code: str, lr: float, budgets: list[int], curves: dict[int, list], threshold: float) -> str:
    lines = ["| seed | " + " | ".join(f"best by step {b}" for b in budgets) + " |",
             "|---|" + "---|" * len(budgets)]
    left = {b: 0 for b in budgets}
    for seed, curve in sorted(curves.items()):
        bests = [max(a for s, a in curve if s <= b) for b in budgets]
        for b, best in zip(budgets, bests):
            left[b] += best > threshold
        lines.append(f"| {seed} | " + " | ".join(f"{x:.3f}" for x in bests) + " |")
    lines.append("| **left the plateau** | " + " | ".join(f"**{left[b]}/{len(curves)}**" for b in budgets) + " |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--code", default="1-1-1-0")
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--budgets", type=int, nargs="+", default=[1000, 2000, 3000])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--machine", default="2-core VM, CPU")
    p.add_argument("--conditions", default="")
    p.add_argument("--write", action="store_true")
    args = p.parse_args()
    from lcsm_core.paper_lab.evidence import plateau_threshold
    from lcsm_core.paper_lab.grid import GridSpec
    threshold = plateau_threshold(GridSpec().kv_pairs)
    budgets = sorted(args.budgets)
    started = time.monotonic()
    with ProcessPoolExecutor(args.workers) as pool:
        jobs = [pool.submit(trained, args.code, args.lr, seed, budgets[-1]) for seed in args.seeds]
        curves = dict(job.result() for job in jobs)
    text = (f"{args.code} at T = 32, lr {args.lr:g}, one run per seed of {budgets[-1]} steps, its best test accuracy "
            f"read at each budget (a seed left the plateau above {threshold:.2f}); {args.machine}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {time.monotonic() - started:.0f} s wall"
            + (f"; conditions: {args.conditions}" if args.conditions else "") + ".\n\n"
            + table(args.code, args.lr, budgets, curves, threshold))
    print(text)
    if args.write:
        old = RESULTS.read_text() if RESULTS.exists() else "# The plateau lottery against longer runs\n"
        RESULTS.write_text(old.rstrip("\n") + f"\n\n## {args.code}, lr {args.lr:g}, seeds "
                           f"{' '.join(map(str, args.seeds))}\n\n{text}\n")
        print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()

"""Does Train live reach its promise at its defaults on this machine? Prints, never asserts.

    python benchmarks/train_speed.py [--seeds 0 1 2] [--set lr=0.01 --set d_model=32 ...] [--threads 1]

Trains the Train live page's defaults (the core's PAGE_DEFAULTS and run_settings, which the page uses) once per
seed, with one torch thread as the server gives each run, and prints per seed: the step at which test
accuracy first reached 99 % (the run stops there; deterministic per seed), training seconds, whether it
reached 99 % within the page's step budget, and steps/s; then the median seconds against the 60 s target
(wall time, and CPU time of the run's one thread: what an idle core would take when others share the CPU)
and the step budget's headroom over the worst seed. `--set name=value` changes a page setting (as a
link's `?name=value` would) to try candidate defaults. Last, steps/s of the same config with
form="recurrent" (one step at a time) over a few steps, so the chunked / recurrent ratio reads directly.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lcsm_core.training import RunConfig, Trainer, run_config  # noqa: E402
from lcsm_core.training.config import PAGE_DEFAULTS, run_settings  # noqa: E402

TARGET_S = 60.0


def page_config(values: dict, seed: int, form: str = "auto") -> RunConfig:
    """The run the page starts at these settings, on the CPU."""
    return run_config(**{**run_settings({**values, "seed": seed}), "form": form, "device": "cpu"})


def read_settings(items: list[str]) -> dict:
    """PAGE_DEFAULTS with `name=value` changes, each value read as its default's type."""
    values = dict(PAGE_DEFAULTS)
    for item in items:
        name, _, raw = item.partition("=")
        if name not in PAGE_DEFAULTS:
            sys.exit(f"unusable --set {item!r}: a setting is one of {', '.join(PAGE_DEFAULTS)}")
        try:
            values[name] = type(PAGE_DEFAULTS[name])(raw)
        except ValueError:
            sys.exit(f"unusable --set {item!r}: {name} takes a {type(PAGE_DEFAULTS[name]).__name__}")
    return values


def train_to_target(cfg: RunConfig) -> dict:
    """Train as the page does: until its target test accuracy or its step budget (or the safety time cap)."""
    cpu_start = time.process_time()
    *_, last = Trainer(cfg).records()
    cpu_s = time.process_time() - cpu_start
    reached = last.test_acc is not None and last.test_acc >= cfg.optim.target_acc
    return {"seed": cfg.optim.seed, "steps": last.step, "reached": reached, "train_s": round(last.wall_s, 2),
            "cpu_s": round(cpu_s, 2),
            "steps_per_s": round(last.step / last.wall_s, 2) if last.wall_s else None,
            "test_acc": round(last.test_acc, 4), "reason": last.reason}


def steps_per_second(cfg: RunConfig, steps: int) -> float:
    """Training steps alone (no evaluation), after one warm-up step."""
    trainer = Trainer(cfg)
    trainer.train_step()
    t0 = time.perf_counter()
    for _ in range(steps):
        trainer.train_step()
        trainer.step += 1
    return steps / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a page setting other than its default (repeatable), e.g. lr=0.01")
    p.add_argument("--recurrent-steps", type=int, default=30, help="steps timed with form='recurrent' (0: skip)")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (the server gives each run 1 here)")
    args = p.parse_args()
    values = read_settings(args.set)
    torch.set_num_threads(args.threads)
    cfg = page_config(values, args.seeds[0])
    m, o = cfg.model, cfg.optim
    changed = {k: v for k, v in values.items() if v != PAGE_DEFAULTS[k]}
    print(f"# Train live defaults{f' with {changed}' if changed else ''}: {cfg.task.name} T={cfg.task.seq_len}, "
          f"{getattr(cfg.task, 'num_kv_pairs', '-')} pairs, {m.layer_label}, d_model {m.d_model}, k {m.expand_dim}, "
          f"{m.n_layers} layers, conv {m.short_conv}, lr {o.lr:g}, batch {o.batch_size}, eval every {o.eval_every} "
          f"on {o.test_examples} examples, step budget {o.max_steps} (safety cap {o.max_seconds:g} s)")
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch threads "
          f"{torch.get_num_threads()}, load average {os.getloadavg()[0]:.1f} at the start")
    runs = []
    for seed in args.seeds:
        run = train_to_target(page_config(values, seed))
        runs.append(run)
        print(f"seed {seed}: steps to 99 % {run['steps'] if run['reached'] else '—'}, {run['train_s']} s training "
              f"({run['cpu_s']} s CPU), "
              f"reached {'yes' if run['reached'] else 'no'} (test acc {run['test_acc']}), "
              f"{run['steps_per_s']} steps/s, load {os.getloadavg()[0]:.1f}", flush=True)
    seconds = [r["train_s"] if r["reached"] else float("inf") for r in runs]
    median = statistics.median(seconds)
    median_cpu = statistics.median(r["cpu_s"] if r["reached"] else float("inf") for r in runs)
    worst = max(r["steps"] if r["reached"] else float("inf") for r in runs)
    rate = sum(r["steps"] for r in runs) / sum(r["train_s"] for r in runs)
    print(f"median time to 99 %: {median} s over seeds {args.seeds} (target ≤ {TARGET_S:g} s: "
          f"{'met' if median <= TARGET_S else 'NOT met'}; {median_cpu} s of CPU: "
          f"{'met' if median_cpu <= TARGET_S else 'NOT met'} on an idle core); "
          f"{sum(r['reached'] for r in runs)}/{len(runs)} seeds reached; "
          f"overall {rate:.2f} steps/s")
    if worst != float("inf"):
        print(f"step budget {o.max_steps} vs worst seed {worst} steps: "
              f"{100 * (o.max_steps / worst - 1):.0f} % headroom")
    result = {"runs": runs, "median_s": None if median == float("inf") else median,
              "median_cpu_s": None if median_cpu == float("inf") else median_cpu, "steps_per_s": round(rate, 2),
              "step_budget": o.max_steps}
    if args.recurrent_steps:
        chunked = steps_per_second(page_config(values, args.seeds[0]), args.recurrent_steps)
        recurrent = steps_per_second(page_config(values, args.seeds[0], form="recurrent"), args.recurrent_steps)
        print(f"same {args.recurrent_steps} training steps: chunked {chunked:.2f} steps/s, recurrent "
              f"{recurrent:.2f} steps/s, ratio {chunked / recurrent:.2f}×")
        result.update(chunked_steps_per_s=round(chunked, 2), recurrent_steps_per_s=round(recurrent, 2))
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""Train one small EOS model from the command line and keep the run in the store.

    python -m lcsm_serving.train --task mqar --variant gla --seq-len 64 --kv-pairs 4 \\
        --max-steps 1000 --max-seconds 600 --db data/runs.sqlite    # the Train live page's default run

A progress bar goes to stderr; the last stdout line is one JSON object with
run_id, status, steps, wall_s, test_acc (and more).
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import torch

from lcsm_core.tasks import TASK_NAMES
from lcsm_core.training import ModelConfig, OptimConfig, RunConfig, run_config
from lcsm_core.training.loop import TrainRecord, check_runnable
from lcsm_serving import RunStore, default_db_path, describe
from lcsm_serving.recorder import record_run


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lcsm-explorer train", description=__doc__.split("\n\n")[0])
    p.add_argument("--task", choices=TASK_NAMES, default="mqar")
    p.add_argument("--variant", default="gla", help="a registered variant (lcsm_core.VARIANTS)")
    p.add_argument("--code", default=None, help="an LCSM model code e-o-s-a instead of a variant, e.g. 1-9-1-0")
    p.add_argument("--tau", type=float, default=16.0, help="temperature of a data-dependent o (model codes)")
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--kv-pairs", type=int, default=4, help="MQAR key–value pairs")
    p.add_argument("--copy-tokens", type=int, default=8, help="selective-copying tokens to copy")
    p.add_argument("--vocab-size", type=int, default=None)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--expand-dim", type=int, default=None, help="k (default: d-model)")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--short-conv", type=int, default=ModelConfig.short_conv)
    p.add_argument("--form", default="auto", choices=["auto", "chunked", "recurrent", "parallel", "kernel"])
    p.add_argument("--lr", type=float, default=OptimConfig.lr)
    p.add_argument("--batch-size", type=int, default=OptimConfig.batch_size)
    p.add_argument("--max-steps", type=int, default=OptimConfig.max_steps)
    p.add_argument("--max-seconds", type=float, default=OptimConfig.max_seconds)
    p.add_argument("--target-acc", type=float, default=OptimConfig.target_acc)
    p.add_argument("--eval-every", type=int, default=OptimConfig.eval_every)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--threads", type=int, default=1,
                   help="torch CPU threads (default 1: tiny models gain little from more, and a busy CPU "
                        "makes extra threads spin)")
    p.add_argument("--db", default=None, help="store file (default: runs.sqlite in --data-dir)")
    p.add_argument("--data-dir", default=None, help="data directory (default: $LCSM_DATA_DIR, else data/ in the repo)")
    p.add_argument("--no-progress", action="store_true")
    return p.parse_args(argv)


def config_from_args(a: argparse.Namespace) -> RunConfig:
    return run_config(task=a.task, seq_len=a.seq_len, kv_pairs=a.kv_pairs, copy_tokens=a.copy_tokens,
                      vocab_size=a.vocab_size, variant=a.variant, code=a.code, tau=a.tau, d_model=a.d_model,
                      expand_dim=a.expand_dim, layers=a.layers, short_conv=a.short_conv, form=a.form, lr=a.lr,
                      batch_size=a.batch_size, max_steps=a.max_steps, max_seconds=a.max_seconds,
                      target_acc=a.target_acc, eval_every=a.eval_every, seed=a.seed, device=a.device)


class ProgressBar:
    """One self-overwriting stderr line: bar over max steps, loss, test accuracy, steps/s."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled, self.last_draw, self.test_acc = total, enabled, 0.0, None

    def __call__(self, r: TrainRecord) -> None:
        if r.test_acc is not None:
            self.test_acc = r.test_acc
        if not self.enabled or (time.monotonic() - self.last_draw < 0.2 and r.status in ("running", "paused")):
            return
        self.last_draw = time.monotonic()
        filled = int(30 * min(r.step / max(self.total, 1), 1))
        acc = "—" if self.test_acc is None else f"{self.test_acc:.3f}"
        loss = "—" if r.loss is None else f"{r.loss:.3f}"
        rate = r.step / r.wall_s if r.wall_s > 0 else 0.0
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] step {r.step}/{self.total} loss {loss} "
                         f"test acc {acc} {rate:.1f} step/s {r.wall_s:.0f}s {r.status}   ")
        sys.stderr.flush()


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        config = config_from_args(args).validate()
        check_runnable(config)                  # an unavailable device or form: refused before a run exists
    except ValueError as err:
        print(json.dumps({"run_id": None, "status": "invalid", "error": str(err), "steps": 0, "wall_s": 0.0,
                          "test_acc": None}))
        return 2
    store = RunStore(args.db or default_db_path(args.data_dir))
    run_id = store.create_run(config.to_dict(), label=describe(config), session="cli")
    progress = ProgressBar(config.optim.max_steps, enabled=not args.no_progress)
    started = time.monotonic()
    try:
        record_run(store, run_id, config, on_record=progress)
    except KeyboardInterrupt:
        store.set_status(run_id, "stopped", "interrupted from the keyboard")
    if progress.enabled:
        sys.stderr.write("\n")
    row = store.get_run(run_id)
    summary = {"run_id": run_id, "status": row.status, "steps": row.steps, "wall_s": round(row.wall_s, 3),
               "elapsed_s": round(time.monotonic() - started, 3), "test_acc": row.test_acc,
               "best_test_acc": row.best_test_acc, "reason": row.reason, "device": row.device,
               "label": row.label, "db": str(store.path)}
    store.close()
    print(json.dumps(summary))
    return 0 if row.status in ("completed", "stopped") else 1


if __name__ == "__main__":
    sys.exit(main())

"""Calibration of lcsm_core.training.cost: estimated vs measured memory and time of training steps.

    python3 benchmarks/train_memory.py [--configs NAME ...] [--steps 2]

Each config runs in a fresh Python process (one torch thread): build the Trainer, read the resident set size
(RSS), run one evaluation, `--steps` training steps and an eigenvalue snapshot, and report the peak RSS growth
(`ru_maxrss` minus the RSS before) and the median step time, beside the estimate. The estimate must be above
the measured growth (it is a budget) and within cost.MAX_OVERESTIMATE of it.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# name → run_config keyword arguments (sizes moderate: well under a GiB each)
CONFIGS = {
    "gla small": dict(variant="gla", d_model=64, expand_dim=64, layers=2, seq_len=64, batch_size=32),
    "gla caps": dict(variant="gla", d_model=128, expand_dim=128, layers=4, seq_len=256, batch_size=128,
                     vocab_size=512, kv_pairs=8),
    "1-9-1-0 k16 d32": dict(code="1-9-1-0", d_model=32, expand_dim=16, layers=2, seq_len=64, batch_size=32),
    "1-9-1-0 k64 d64": dict(code="1-9-1-0", d_model=64, expand_dim=64, layers=2, seq_len=64, batch_size=32),
    "1-9-1-0 k64 d64 B64": dict(code="1-9-1-0", d_model=64, expand_dim=64, layers=2, seq_len=64, batch_size=64,
                                test_examples=32),
    "1-9-1-0 k128 d128 B32": dict(code="1-9-1-0", d_model=128, expand_dim=128, layers=2, seq_len=64,
                                  batch_size=32, test_examples=32),
    "1-9-1-0 k128 d128 T128": dict(code="1-9-1-0", d_model=128, expand_dim=128, layers=1, seq_len=128,
                                   batch_size=16),
    "1-6-1-0 k32 d64": dict(code="1-6-1-0", d_model=64, expand_dim=32, layers=2, seq_len=64, batch_size=32),
    "1-11-1-0 k64": dict(code="1-11-1-0", d_model=64, expand_dim=64, layers=2, seq_len=64, batch_size=32),
    "deltanet k32": dict(variant="deltanet", d_model=64, expand_dim=32, layers=2, seq_len=64, batch_size=32),
    "mamba k16": dict(variant="mamba", d_model=64, expand_dim=16, layers=2, seq_len=64, batch_size=32),
    "longhorn k32": dict(variant="longhorn", d_model=64, expand_dim=32, layers=2, seq_len=64, batch_size=32),
    "s4 k16": dict(variant="s4", d_model=64, expand_dim=16, layers=2, seq_len=64, batch_size=32),
    "s5 k16": dict(variant="s5", d_model=64, expand_dim=16, layers=2, seq_len=64, batch_size=32),
    "dss k32": dict(variant="dss", d_model=64, expand_dim=32, layers=2, seq_len=64, batch_size=32),
    "lru k64": dict(variant="lru", d_model=64, expand_dim=64, layers=2, seq_len=64, batch_size=32),
}

CHILD = r"""
import json, os, resource, statistics, sys, time
import torch
torch.set_num_threads(1)
from lcsm_core.training import Trainer, run_config
from lcsm_core.training.cost import estimate_cost

def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

settings = json.loads(sys.argv[1])
test_examples = settings.pop("test_examples", 256)      # the default; fewer: the training step dominates
config = run_config(**settings, device="cpu")
config.optim.test_examples = test_examples
cost = estimate_cost(config)
warm = torch.nn.Parameter(torch.zeros(1))
warm.grad = torch.zeros(1)
torch.optim.AdamW([warm]).step()           # AdamW's one-off lazy imports (~300 MiB) belong to the process
trainer = Trainer(config)
before = rss_bytes()
trainer.test_accuracy()
times = []
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    trainer.train_step()
    trainer.step += 1
    times.append(time.perf_counter() - t0)
trainer.eigenvalues()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps(dict(measured=peak - before, estimate=cost.peak_bytes, step_s=statistics.median(times),
                      estimate_s=cost.step_s, dominant=cost.dominant)))
"""


def measure(settings: dict, steps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(settings), str(steps)], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", nargs="*", default=list(CONFIGS))
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()
    print(f"{'config':<26}{'measured MiB':>13}{'estimate MiB':>13}{'est/meas':>9}{'step s':>9}{'est s':>8}  dominant")
    for name in args.configs:
        r = measure(CONFIGS[name], args.steps)
        mib = 1024 ** 2
        print(f"{name:<26}{r['measured'] / mib:>13.0f}{r['estimate'] / mib:>13.0f}"
              f"{r['estimate'] / max(r['measured'], 1):>9.2f}{r['step_s']:>9.3f}{r['estimate_s']:>8.3f}  "
              f"{r['dominant']}", flush=True)


if __name__ == "__main__":
    main()

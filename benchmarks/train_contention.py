"""Page reruns while trainings run: in-process threads (before) vs worker processes vs the trainer service.

    python3 benchmarks/train_contention.py [--moves 15] [--trainings 0 1 2] [--warm-s 8]
                                           [--workers thread process service]

The spring page (AppTest, in this process: the server's) moves its damping slider, a rerun that recomputes,
`--moves` times while 0, 1 or 2 MQAR trainings (GLA, d = k = 64, T = 64, batch 32) run in a RunManager of the
same process: with workers="thread" they share the page's interpreter (its GIL), with workers="process" they
train in worker processes, one torch thread each; with "service" a separate trainer service process
(`python -m lcsm_serving.service`, as scripts/app.sh starts it for several web processes) trains them and
this process only stores the jobs (TrainerClient). Prints the median and worst slider move and the trainings'
steps per second.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from lcsm_core.training import run_config  # noqa: E402
from lcsm_serving import RunManager, TrainerClient  # noqa: E402

SCRIPT = ("from lcsm_explorer.app.kit.render import render_lesson\nfrom lcsm_explorer.app.lessons import lesson\n"
          "render_lesson(lesson('spring'))\n")
TRAINING = dict(variant="gla", d_model=64, expand_dim=64, layers=2, seq_len=64, batch_size=32, max_steps=5000,
                max_seconds=600.0, device="cpu")


def slider_moves(at: AppTest, moves: int) -> list[float]:
    times = []
    for n in range(moves):
        t0 = time.perf_counter()
        at.slider(key="spring.c").set_value(0.1 + 0.013 * (n % 60)).run()
        times.append((time.perf_counter() - t0) * 1e3)
        assert not at.exception, at.exception
    return times


@contextlib.contextmanager
def trainer(workers: str, slots: int, db: Path):
    """(submit(config, owner) → run id, store): a RunManager in this process, or a trainer service beside it."""
    if workers != "service":
        manager = RunManager(db, max_concurrent=slots, workers=workers, torch_threads=1)
        try:
            yield manager.submit, manager.store
        finally:
            manager.shutdown()
        return
    env = dict(os.environ, PYTHONPATH=str(ROOT), LCSM_TORCH_THREADS="1")
    service = subprocess.Popen([sys.executable, "-m", "lcsm_serving.service", "--db", str(db),
                                "--max-concurrent", str(slots)], env=env, cwd=ROOT)
    try:
        client = TrainerClient(db, start_service=False)
        deadline = time.monotonic() + 120
        while client.store.live_service() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        yield client.submit, client.store
    finally:
        service.terminate()
        service.wait(60)


def measure(workers: str, trainings: int, moves: int, warm_s: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp, trainer(workers, max(trainings, 1), Path(tmp) / "runs.sqlite") as (
            submit, store):
        runs = [submit(run_config(**TRAINING), f"learner-{j}") for j in range(trainings)]
        deadline = time.monotonic() + 120
        while any(store.get_run(r).steps == 0 for r in runs) and time.monotonic() < deadline:
            time.sleep(0.2)                          # every training has started (workers loaded)
        time.sleep(warm_s)
        at = AppTest.from_string(SCRIPT, default_timeout=300)
        at.run()
        steps0 = [store.get_run(r).steps for r in runs]
        t0 = time.monotonic()
        times = slider_moves(at, moves)
        elapsed = time.monotonic() - t0
        rates = [(store.get_run(r).steps - s) / elapsed for r, s in zip(runs, steps0)]
    return dict(median=statistics.median(times), worst=max(times), steps_per_s=sum(rates))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=15)
    parser.add_argument("--trainings", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--warm-s", type=float, default=8.0)
    parser.add_argument("--workers", nargs="*", default=["thread", "process", "service"],
                        choices=["thread", "process", "service"])
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{'trainings':>9}  {'workers':<8}{'median move ms':>16}{'worst ms':>10}{'training steps/s':>18}")
    for trainings in args.trainings:
        for workers in args.workers:
            r = measure(workers, trainings, args.moves, args.warm_s)
            print(f"{trainings:>9}  {workers:<8}{r['median']:>16.0f}{r['worst']:>10.0f}{r['steps_per_s']:>18.1f}",
                  flush=True)


if __name__ == "__main__":
    main()

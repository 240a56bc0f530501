"""How this machine's CPU compares with the one the time model was fitted on: one factor, measured.

The cost model's rates (cost.py) were fitted to training steps on one 2-core VM. The same code's step takes a
different time elsewhere — the project's own VMs have differed by ×2.4 from one day to the next on the same
1-1-1-0 step. `machine_factor()` times the reference step (the shipped grids' 1-1-1-0 at d = k = 32, T = 32,
B = 32, on one torch thread, CPU-seconds) and divides it by the model's seconds for that step: a cost-model
CPU-second takes about `machine_factor()` CPU-seconds here.

Budgets stay in the model's units, so a grid costs the same on every machine and a verdict's "the budget ran out"
does not move with the machine; what a run will take *here* is the model's seconds times this factor.
"""
from __future__ import annotations

import dataclasses
import functools
import time

REFERENCE_STEPS = 10              # per block, after one warm-up step
REFERENCE_BLOCKS = 3              # the median block: one preempted block does not move the factor (~1 s in all)


def reference_config():
    """The reference step's run: the shipped grids' 1-1-1-0 at their scale (d = k = 32, T = 32, B = 32). Its
    learning rate is the default one: a step's time does not depend on it."""
    from .config import run_config
    return run_config(task="mqar", seq_len=32, kv_pairs=4, vocab_size=64, code="1-1-1-0", d_model=32,
                      expand_dim=32, batch_size=32, max_steps=REFERENCE_STEPS * REFERENCE_BLOCKS + 1,
                      seed=0, device="cpu")


def timed_steps(run_config, steps: int = 2, clock=time.perf_counter, blocks: int = 1) -> tuple[list[float], str]:
    """Seconds per training step of a RunConfig, timed over `blocks` blocks of `steps` steps after one warm-up step
    (one value per block), and the device in words. `clock`: wall time (default), or time.process_time for the
    CPU-seconds a step takes on a CPU (what the admission policy budgets; far steadier on a loaded machine)."""
    import torch

    from .loop import Trainer
    config = dataclasses.replace(run_config, optim=dataclasses.replace(run_config.optim, test_examples=1))
    trainer = Trainer(config)
    trainer.train_step()                               # allocation, autotuning: not the steady rate
    per_block = []
    for _ in range(blocks):
        if trainer.device.type == "cuda":
            torch.cuda.synchronize()
        started = clock()
        for _ in range(steps):
            trainer.train_step()
        if trainer.device.type == "cuda":
            torch.cuda.synchronize()
        per_block.append((clock() - started) / steps)
    where = (f"cuda ({torch.cuda.get_device_name(trainer.device)})" if trainer.device.type == "cuda"
             else f"cpu ({torch.get_num_threads()} thread(s))")
    return per_block, where


def measured_reference_step(steps: int = REFERENCE_STEPS, blocks: int = REFERENCE_BLOCKS,
                            clock=time.process_time) -> float:
    """CPU-seconds of one reference step on this machine, one torch thread, after one warm-up step: the median of
    `blocks` blocks of `steps` steps."""
    import statistics

    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return statistics.median(timed_steps(reference_config(), steps, clock, blocks)[0])
    finally:
        torch.set_num_threads(threads)


@functools.cache
def machine_factor() -> float:
    """This machine's CPU-seconds per cost-model CPU-second (measured once per process, on the reference step)."""
    from .cost import step_seconds_of
    return measured_reference_step() / step_seconds_of(reference_config())


def here(seconds: float, factor: float) -> str:
    """Cost-model CPU-seconds as this machine's, in words: "≈ 19.2 CPU-hours here (×2.4: ...)"."""
    local = seconds * factor
    amount = (f"{local / 3600:,.1f} CPU-hours" if local >= 3600 else f"{local / 60:.2g} CPU-minutes"
              if local >= 60 else f"{local:.2g} CPU-seconds")
    return (f"≈ {amount} on this machine (its reference step takes ×{factor:.2g} the cost model's: budgets are "
            f"counted in the model's CPU-seconds, the same on every machine)")

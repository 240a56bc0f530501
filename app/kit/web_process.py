"""What a web process sets up once, before its first page: few threads, the app imported, the heap frozen.

`prepare()` is called by app/serve.py when Streamlit loads it, before any session connects. Why each, as measured
on the 2-core project machine (benchmarks/results/move_profile-cpu.md, move_cost-cpu.md):

- **One BLAS/OpenMP thread.** A page's numpy and torch work is small; a second OpenMP or OpenBLAS thread spin-waits on
  the core that the other web processes and the trainer need. The variables must be set before numpy or torch is first
  imported, so this module imports neither at the top.
- **The app imported now, not on the first page.** torch, plotly, scipy and every lesson load while the process
  starts (the first learner's page no longer waits seconds for them).
- **A frozen heap.** Streamlit runs a full garbage collection after every script run (`runner.postScriptGC`),
  and a full collection walks every tracked object: with torch, plotly and scipy imported, hundreds of thousands
  of objects on every move of every page, the largest single cost of a move.
  `gc.freeze()` after the imports moves those long-lived objects out of the collector's sight, so the
  collection after a run only walks what this process made since, and cycles made by a session are
  still collected (postScriptGC stays on, so memory stays bounded).
- **A run's messages handed to the event loop in batches** (`app/kit/internals/script_events.py`): one wake-up of
  the loop per batch instead of one per element drawn.
- **The private internals checked** (`app/kit/internals/self_check.py`): where this Streamlit or plotly lacks one,
  one logged line says which public path is taken instead.
"""
from __future__ import annotations

import gc
import os

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
_prepared = False


def prepare() -> None:
    """Once per process: one compute thread, the app's modules imported, the heap frozen."""
    global _prepared
    if _prepared:
        return
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    import torch

    torch.set_num_threads(1)       # the variables above cover OpenMP; this covers torch's own pool when set late
    import lcsm_explorer.app.home  # noqa: F401  (Home and every lesson, with torch, plotly, scipy and control behind them)
    from lcsm_explorer.app.lessons import all_lessons

    all_lessons()
    from .internals.script_events import batch_script_events
    from .internals.self_check import self_check

    self_check()                   # one logged line where a private internal is missing: its public path is taken
    batch_script_events()          # before any session: every session's events go through one queue
    gc.collect()
    gc.freeze()
    _prepared = True

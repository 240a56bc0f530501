"""The paper lab: grids of small MQAR runs reproducing the ablations of LCSM §3.

A grid is a plain list of RunConfigs (one per model code, and seed); its runs are
kept in the same SQLite store as every other run, under the session "grid:<id>".
They execute on a local process pool by default, or on a Ray cluster when an
address is given (the store file must then be on storage every worker can reach).
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import time
import types
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .training import RunConfig, RunRow, RunStore, default_db_path, run_config

RAY_ADDRESS_ENV = "LCSM_RAY_ADDRESS"


@dataclass(frozen=True)
class Ablation:
    name: str
    title: str
    question: str
    entries: tuple          # (label, model code, tau)
    paper_finding: str


def _codes(codes, tau=16.0):
    return tuple((code, code, tau) for code in codes)


ABLATIONS = {a.name: a for a in (
    Ablation("parameterization", "Parameterization (Table 5, Fig. 3)",
             "SSM parameterization (code 0) or the linear one (1-1-1-0)?", _codes(["0", "1-1-1-0"]),
             "On MQAR the linear parameterization fell behind at longer sequences (Fig. 3)."),
    Ablation("data_dependence", "Data dependence (Table 4, Fig. 4)",
             "Which of e, o, s must depend on the input?",
             _codes([f"{e}-{o}-{s}-0" for e in (0, 1) for o in (0, 1) for s in (0, 1)]),
             "Only 1-0-1 and 1-1-1 recalled well up to length 128; at 256 only 1-0-1-0 converged."),
    Ablation("oscillation", "Oscillation types (Table 3/4, Fig. 5)", "How should the oscillation state be built?",
             _codes([f"1-{o}-1-0" for o in range(12)]),
             "On MQAR the complex oscillation (1-11-1-0) stood out; on WikiText 1-9-1-0 was best."),
    Ablation("activation", "Activations (Table 2/6, Fig. 6)", "Which activation for the expand and shrink states?",
             _codes([f"1-1-1-{a}" for a in range(8)]),
             "Activations helped, most at longer sequences; sigmoid (1-1-1-2) was best on MQAR."),
    Ablation("tau", "τ of the data-dependent oscillation (Table 6, Fig. 7)",
             "How fast may sigmoid(Wx)^(1/τ) forget?",
             tuple((f"τ = {t:g}", "1-1-1-0", float(t)) for t in (1, 2, 4, 8, 16, 32, 64)),
             "A larger τ (an oscillation nearer 1, slower forgetting) helped on MQAR."),
)}


@dataclass(frozen=True)
class GridSpec:
    ablation: str = "oscillation"
    seq_len: int = 64
    kv_pairs: int = 4
    d_model: int = 32
    lr: float = 3e-3
    max_seconds: float = 20.0
    max_steps: int = 600
    seeds: int = 1

    @property
    def run_count(self) -> int:
        return len(ABLATIONS[self.ablation].entries) * self.seeds

    def validate(self) -> GridSpec:
        if self.ablation not in ABLATIONS:
            raise ValueError(f"unknown ablation {self.ablation!r}; choose one of {', '.join(ABLATIONS)}")
        if not 1 <= self.seeds <= 5:
            raise ValueError(f"seeds must be between 1 and 5, got {self.seeds}")
        if not 1 <= self.max_seconds <= 300:
            raise ValueError(f"the budget per run must be 1..300 s, got {self.max_seconds}")
        return self


def grid_configs(spec: GridSpec) -> list[tuple[str, RunConfig]]:
    """(label, config) for every entry and seed of the ablation; each config validated."""
    spec.validate()
    out = []
    for label, code, tau in ABLATIONS[spec.ablation].entries:
        for seed in range(spec.seeds):
            config = run_config(task="mqar", seq_len=spec.seq_len, kv_pairs=spec.kv_pairs, code=code, tau=tau,
                                d_model=spec.d_model, expand_dim=spec.d_model, lr=spec.lr,
                                max_seconds=spec.max_seconds, max_steps=spec.max_steps, seed=seed, device="cpu")
            out.append((label if spec.seeds == 1 else f"{label} · seed {seed}", config.validate()))
    return out


def run_one(config: dict, db_path: str, run_id: int, threads: int = 1) -> str:
    """Train one grid run into the store (runs in a worker process); returns its final status."""
    import torch

    from .training import record_run
    torch.set_num_threads(threads)
    store = RunStore(db_path)
    try:
        record_run(store, run_id, RunConfig.from_dict(config))
        return store.get_run(run_id).status
    finally:
        store.close()


class GridRunner:
    """Launches one grid at a time and says how it is going (everything else lives in the store)."""

    def __init__(self, db_path: str | os.PathLike | None = None, workers: int | None = None,
                 ray_address: str | None = None):
        self.db_path = str(db_path or default_db_path())
        self.workers = workers or max(1, min(2, os.cpu_count() or 1))
        self.ray_address = ray_address
        self._lock = threading.Lock()
        self._active: str | None = None
        self._pending: list = []

    @property
    def where(self) -> str:
        """Where the runs execute, in words."""
        if self.ray_address:
            return f"Ray at {self.ray_address}"
        return f"a local pool of {self.workers} worker process(es)"

    def estimate_s(self, spec: GridSpec) -> float:
        """Wall time of a whole grid if every run uses its full budget (the workers share the runs)."""
        return spec.run_count * spec.max_seconds / self.workers

    @property
    def active_grid(self) -> str | None:
        with self._lock:
            if self._active and all(f.done() for f in self._pending):
                self._active, self._pending = None, []
            return self._active

    def launch(self, spec: GridSpec, session_tag: str = "") -> str:
        """Create the grid's runs (status "queued") and start them; returns the grid id."""
        if self.active_grid:
            raise ValueError(f"grid {self.active_grid} is still running; wait for it to finish")
        configs = grid_configs(spec)
        grid_id = f"{spec.ablation}-{time.strftime('%Y%m%d-%H%M%S')}{session_tag}"
        store = RunStore(self.db_path)
        try:
            jobs = [(config.to_dict(), self.db_path,
                     store.create_run(config.to_dict(), label=f"{spec.ablation}: {label}", session=f"grid:{grid_id}"))
                    for label, config in configs]
        finally:
            store.close()
        futures = self._submit_ray(jobs) if self.ray_address else self._submit_local(jobs)
        for future, (_, _, run_id) in zip(futures, jobs):
            future.add_done_callback(lambda f, run_id=run_id: self._record_crash(f, run_id))
        with self._lock:
            self._active, self._pending = grid_id, futures
        return grid_id

    def _record_crash(self, future: Future, run_id: int) -> None:
        """A worker that died before its run could say so leaves the run "failed", never "queued"."""
        error = future.exception()
        if error is None:
            return
        store = RunStore(self.db_path)
        try:
            row = store.get_run(run_id)
            if row is not None and row.status in ("queued", "running", "paused"):
                store.set_status(run_id, "failed", f"worker ended: {type(error).__name__}: {error}")
        finally:
            store.close()

    def _submit_local(self, jobs) -> list[Future]:
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
        with _main_hidden_from_workers():    # a spawn pool starts its workers inside submit()
            futures = [pool.submit(run_one, *job) for job in jobs]
        pool.shutdown(wait=False)            # workers finish the queue, then the pool goes away
        return futures

    def _submit_ray(self, jobs) -> list[Future]:
        try:
            import ray
        except ImportError:
            raise ValueError("a Ray address was given but Ray is not installed (pip install ray)") from None
        ray.init(address=self.ray_address, ignore_reinit_error=True)
        remote = ray.remote(run_one)
        return [remote.remote(*job).future() for job in jobs]


@contextlib.contextmanager
def _main_hidden_from_workers():
    """A spawned worker first re-runs the parent's `__main__` from its file (multiprocessing's rule). Under
    Streamlit that file is the app's script (the page that launched the grid), which must not run in a
    worker; so while workers start, `__main__` is a blank module and they import only what `run_one` needs."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


_SHARED: dict[tuple[Path, str | None], GridRunner] = {}
_SHARED_LOCK = threading.Lock()


def shared_grid_runner(db_path: str | os.PathLike | None = None) -> GridRunner:
    """The one runner of a store file in this process (one grid at a time, whoever launched it); on the
    Ray cluster at $LCSM_RAY_ADDRESS when it is set, else on a local process pool."""
    path = Path(db_path or default_db_path()).resolve()
    ray_address = os.environ.get(RAY_ADDRESS_ENV) or None
    with _SHARED_LOCK:
        if (path, ray_address) not in _SHARED:
            _SHARED[path, ray_address] = GridRunner(path, ray_address=ray_address)
        return _SHARED[path, ray_address]


def grid_ablation(grid_id: str) -> str | None:
    """The ablation a grid id (`<ablation>-<time>`, from `GridRunner.launch`) belongs to; None if unknown."""
    return next((name for name in ABLATIONS if grid_id.startswith(f"{name}-")), None)


def grid_runs(db_path: str | os.PathLike | None, grid_id: str) -> list[RunRow]:
    """The runs of one grid, in launch order."""
    store = RunStore(db_path or default_db_path())
    try:
        return sorted((r for r in store.list_runs(limit=5000) if r.session == f"grid:{grid_id}"), key=lambda r: r.id)
    finally:
        store.close()


def past_grids(db_path: str | os.PathLike | None) -> list[str]:
    """Grid ids in the store, newest first."""
    store = RunStore(db_path or default_db_path())
    try:
        seen = []
        for r in store.list_runs(limit=5000):
            if r.session and r.session.startswith("grid:") and r.session[5:] not in seen:
                seen.append(r.session[5:])
        return seen
    finally:
        store.close()


def summarize_grid(ablation: str, rows: list[RunRow]) -> list[dict]:
    """One row per ablation entry: runs, finished runs, best test accuracy (mean, min, max over seeds)."""
    out = []
    for label, code, tau in ABLATIONS[ablation].entries:
        mine = [r for r in rows if r.config.get("model", {}).get("code") == code
                and float(r.config.get("model", {}).get("tau", 16.0)) == tau]
        accs = [r.best_test_acc for r in mine if r.best_test_acc is not None]
        out.append({"label": label, "code": code, "tau": tau, "runs": len(mine),
                    "finished": sum(not r.active for r in mine),
                    "statuses": ", ".join(sorted({r.status for r in mine})),
                    "best_acc_mean": sum(accs) / len(accs) if accs else None,
                    "best_acc_min": min(accs) if accs else None, "best_acc_max": max(accs) if accs else None})
    return out

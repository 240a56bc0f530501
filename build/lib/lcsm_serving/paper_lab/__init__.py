"""Running the paper lab's grids (their definitions, evidence rules and verdicts are lcsm_core.paper_lab's).

- runner:    GridRunner: a grid's cells on a local process pool or Ray (CPUs / GPUs per cell), resumable;
             shared_grid_runner (a web process's: its grids are jobs of the trainer service); stored_results
- reproduce: the reference cell and its shipped record: a cell's metrics repeat to the last digit under one
             fingerprint (lcsm_core/training/numerics.py: form, threads, torch, CPU, code)
- cli:       python -m lcsm_serving.paper_lab --grid NAME ... (--reference: write the reference cell's record)
"""
from .runner import GridRunner, run_one, shared_grid_runner, stored_results

__all__ = ["GridRunner", "run_one", "shared_grid_runner", "stored_results"]

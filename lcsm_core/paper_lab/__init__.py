"""The paper lab: grids of small MQAR runs reproducing the ablations of LCSM §3.2.

- ablations: the five ablations, each with the paper's finding and a check of its claim
- grid:      GridSpec (lengths × learning-rate sweep × seeds, budget in steps) and its cells
- runner:    GridRunner: a grid's cells on a local process pool or Ray, resumable; shared_grid_runner
- results:   per-cell results (live from the store, or shipped in results/), the accuracy table, the verdict
- cli:       python -m lcsm_core.paper_lab --grid NAME ...
"""
from .ablations import ABLATIONS, Ablation, Verdict
from .grid import DEFAULT_SPECS, Cell, GridSpec, cells, default_spec
from .results import (
    CellResult,
    Shipped,
    accuracy_table,
    best_lrs,
    is_complete,
    live_results,
    load_shipped,
    merged,
    shipped_grid,
    shipped_results,
    verdict,
)
from .runner import RAY_ADDRESS_ENV, GridRunner, grid_session, run_one, shared_grid_runner

__all__ = ["ABLATIONS", "Ablation", "Cell", "CellResult", "DEFAULT_SPECS", "GridRunner", "GridSpec",
           "RAY_ADDRESS_ENV", "Shipped", "Verdict", "accuracy_table", "best_lrs", "cells", "default_spec",
           "grid_session", "is_complete", "live_results", "load_shipped", "merged", "run_one",
           "shared_grid_runner", "shipped_grid", "shipped_results", "verdict"]

"""The paper lab: grids of small MQAR runs reproducing the ablations of LCSM §3.2.

- ablations: the five ablations, each with the paper's per-length finding and a check of its claim on a grid's
             seed ranges (the demo grids' reading, never signed as a verdict); entry_meaning says what an entry is
- evidence:  the statistic a verdict rests on (per entry, the share of seeds that left MQAR's plateau with its
             95 % Wilson interval, and the median) and the rule to held / did not hold / inconclusive / not tested
             at this scale
- search:    the evidence grids: a staged learning-rate search per entry within a CPU budget (printed before it
             runs), its results (run store + results/evidence/*.json) and the claim's verdict on them. Resume or
             continue them, one worker, finished cells never rerun:
                 nice -n 19 python -m lcsm_core.paper_lab --evidence all --ship --workers 1 --db data/evidence.sqlite
             (`--evidence NAME` for one claim, `--cost-only` for the budgets and what is spent)
- spread:    a cell's accuracy over seeds (mean, min–max) and when one range lies above another
- grid:      GridSpec (lengths × learning-rate sweep × seeds, budget in steps, device, vocabulary) and its cells
- scale:     the 3-seed CPU grids, the paper-scale grids, and a grid's cost before it runs (the one cost model)
- runner:    GridRunner: a grid's cells on a local process pool or Ray (CPUs / GPUs per cell), resumable;
             shared_grid_runner (a web process's: its grids are jobs of the trainer service)
- results:   per-cell results (live from the store, or shipped in results/), the accuracy table, the spreads,
             the learning-rate edge note, the verdict
- reproduce: the reference cell and its shipped record: a cell's metrics repeat to the last digit under one
             fingerprint (training/numerics.py: form, threads, torch, CPU, code)
- cli:       python -m lcsm_core.paper_lab --grid NAME ... (--reference: write the reference cell's record)
"""
from .ablations import ABLATIONS, HELD, INCONCLUSIVE, NOT_HELD, Ablation, Verdict, entry_meaning
from .grid import DEFAULT_SPECS, Cell, GridSpec, cells, default_spec
from .results import (
    CellResult,
    Shipped,
    accuracy_table,
    best_lrs,
    is_complete,
    live_results,
    load_shipped,
    lr_edges,
    lr_note,
    merged,
    shipped_grid,
    shipped_results,
    spreads,
    verdict,
)
from .runner import GridRunner, grid_session, run_one, shared_grid_runner
from .scale import CPU_SPECS, GridCost, differences_from_paper, grid_cost, paper_specs
from .spread import MIN_SEEDS, Spread

__all__ = ["ABLATIONS", "Ablation", "CPU_SPECS", "Cell", "CellResult", "DEFAULT_SPECS", "GridCost", "GridRunner",
           "GridSpec", "HELD", "INCONCLUSIVE", "MIN_SEEDS", "NOT_HELD", "Shipped", "Spread",
           "Verdict", "accuracy_table", "best_lrs", "cells", "default_spec", "differences_from_paper", "entry_meaning",
           "grid_cost", "grid_session", "is_complete", "live_results", "load_shipped", "lr_edges", "lr_note", "merged",
           "paper_specs", "run_one", "shared_grid_runner", "shipped_grid", "shipped_results", "spreads", "verdict"]

"""The paper lab: grids of small MQAR runs reproducing the ablations of LCSM §3.2.

- ablations: the five ablations, each with the paper's per-length finding and a check of its claim on a grid's
             seed ranges (the demo grids' reading, never signed as a verdict); entry_meaning says what an entry is
- evidence:  the statistic a verdict rests on (per entry, the share of seeds that left MQAR's plateau with its
             95 % Wilson interval, and the median) and the rule to held / did not hold / inconclusive / not tested
             at this scale (on fresh seeds, a lead short of the margin too)
- search:    the evidence grids: a staged learning-rate search per entry within a CPU budget (printed before it
             runs), its results (run store + results/evidence/*.json) and the claim's verdict on them. Resume or
             continue them, one worker, finished cells never rerun:
                 nice -n 19 python -m lcsm_serving.paper_lab --evidence all --ship --workers 1 --db data/evidence.sqlite
             (`--evidence NAME` for one claim, `--cost-only` for the budgets and what is spent)
- confirm:   the confirmation: one open comparison that would decide a claim stages 1–3 left inconclusive, tested
             again on forty fresh seeds a round (a second round where the first leaves it open)
- spread:    a cell's accuracy over seeds (mean, min–max) and when one range lies above another
- grid:      GridSpec (lengths × learning-rate sweep × seeds, budget in steps, device, vocabulary), its cells, and
             which stored runs finish a cell
- scale:     the 3-seed CPU grids, the paper-scale grids, and a grid's cost before it runs (the one cost model)
- results:   per-cell results (from stored run rows, or shipped in results/), the accuracy table, the spreads,
             the learning-rate edge note, the verdict
- report:    the lesson's "What was measured" written from the shipped results

Running grids (GridRunner, the command line, the reference cell) is lcsm_serving.paper_lab's.
"""
from .ablations import ABLATIONS, HELD, INCONCLUSIVE, NOT_HELD, Ablation, Verdict, entry_meaning
from .grid import DEFAULT_SPECS, Cell, GridSpec, cells, default_spec, grid_session
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
from .scale import CPU_SPECS, GridCost, differences_from_paper, grid_cost, paper_specs
from .spread import MIN_SEEDS, Spread

__all__ = ["ABLATIONS", "Ablation", "CPU_SPECS", "Cell", "CellResult", "DEFAULT_SPECS", "GridCost",
           "GridSpec", "HELD", "INCONCLUSIVE", "MIN_SEEDS", "NOT_HELD", "Shipped", "Spread",
           "Verdict", "accuracy_table", "best_lrs", "cells", "default_spec", "differences_from_paper", "entry_meaning",
           "grid_cost", "grid_session", "is_complete", "live_results", "load_shipped", "lr_edges", "lr_note", "merged",
           "paper_specs", "shipped_grid", "shipped_results", "spreads", "verdict"]

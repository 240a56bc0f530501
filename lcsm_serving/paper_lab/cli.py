"""python -m lcsm_serving.paper_lab --grid NAME [--scale shipped|cpu|paper] [--device cuda] [--ray ADDRESS ...]

Runs one ablation's grid into the run store, resuming: cells that finished before are not run again.
First prints the grid's cost on stderr (cells × steps × the cost model's seconds per step → CPU-hours, what the
admission policy would charge; GPU-hours too for a GPU grid on a machine with a GPU to measure),
then a progress bar on stderr, one JSON line per cell on stdout (finished earlier or now), and a final
JSON summary line: the paper's claim, its outcome on these numbers (held / did not hold / inconclusive),
the spread over seeds per cell, and whether the learning-rate sweep bracketed the best rates.
`--scale paper` runs the paper's grid (scale.py), one width after another unless --d-model picks one.
Each cell trains on one torch thread with torch's deterministic algorithms on, and its line says what else its
numbers depend on (`numerics`: scan form, threads, torch, CPU, code). `--reference` trains the reference cell
(reproduce.py) and writes its record instead of running a grid.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from concurrent.futures import as_completed

from lcsm_core.paper_lab.ablations import ABLATIONS
from lcsm_core.paper_lab.grid import DEVICES, GridSpec, cells, default_spec, grid_session
from lcsm_core.paper_lab.results import (
    CellResult,
    accuracy_table,
    live_result,
    live_results,
    lr_note,
    save_shipped,
    shipped_path,
    spreads,
    verdict,
)
from lcsm_core.paper_lab.scale import CPU_SPECS, cpu_amount, grid_cost, paper_specs
from lcsm_core.paper_lab.search import (
    EVIDENCE_PLANS,
    RUNNING,
    EvidencePlan,
    evidence_verdict,
    next_chunk,
    next_stage,
    save_evidence,
    spent_s,
    stage_costs,
)
from lcsm_core.paper_lab.search import ORDER as EVIDENCE_ORDER
from lcsm_core.training.machine_speed import here, machine_factor
from lcsm_serving import RunStore, default_db_path
from lcsm_serving.paper_lab.runner import GridRunner, stored_results

SCALES = ("shipped", "cpu", "paper")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lcsm-explorer paper-lab", description=__doc__.split("\n\n")[1])
    p.add_argument("--grid", choices=sorted(ABLATIONS), help="which ablation (needed unless --reference)")
    p.add_argument("--scale", choices=SCALES, default="shipped",
                   help="shipped (or cpu, the same): the grid the page opens with, 3 seeds at lr 1e-2; paper: the "
                        "paper's MQAR setup")
    p.add_argument("--device", choices=DEVICES, help="where each cell trains (cuda: the scan form best on the GPU)")
    p.add_argument("--vocab-size", type=int, help="MQAR vocabulary (default 64)")
    p.add_argument("--steps", type=int, help="optimizer steps per run (the budget)")
    p.add_argument("--seeds", type=int, nargs="+", help="seeds, e.g. --seeds 0 1 2")
    p.add_argument("--seq-lens", type=int, nargs="+", help="sequence lengths, e.g. --seq-lens 32 64 128")
    p.add_argument("--lrs", type=float, nargs="+", help="the learning-rate sweep; each cell keeps the best")
    p.add_argument("--d-model", type=int, help="model width d")
    p.add_argument("--expand-dim", type=int, help="k, the rows of the memory")
    p.add_argument("--kv-pairs", type=int, help="MQAR key–value pairs per example")
    p.add_argument("--batch-size", type=int)
    p.add_argument("--short-conv", type=int, help="width of a causal convolution before each EOS layer (0: none, "
                                                  "as in the paper)")
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default: 2 or fewer)")
    p.add_argument("--ray", metavar="ADDRESS", help="run the cells on this Ray cluster instead (host:port, auto, or "
                                                    "ray://host:10001 through Ray's client)")
    p.add_argument("--ray-token-file", metavar="FILE", help="the Ray cluster's token, for a cluster with token "
                                                            "authentication (RAY_AUTH_MODE=token)")
    p.add_argument("--gpus-per-cell", type=float, default=0.0, help="GPUs each cell asks Ray for (fractions allowed)")
    p.add_argument("--cpus-per-cell", type=int, default=1, help="CPUs each cell asks Ray for (its torch threads)")
    p.add_argument("--cost-only", action="store_true", help="print the grid's cost (the cost model's CPU-hours; "
                                                            "GPU-hours measured where a GPU is) and stop")
    p.add_argument("--db", help="the run store (default: data/runs.sqlite or $LCSM_DATA_DIR/runs.sqlite)")
    p.add_argument("--rerun", action="store_true", help="run every cell again, finished or not")
    p.add_argument("--ship", action="store_true", help="write the results file the Paper lab page opens with")
    p.add_argument("--conditions", default="", help="with --ship: what else the machine was doing, in words (the "
                                                    "page and the lesson print it beside the grid's wall time)")
    p.add_argument("--reference", action="store_true",
                   help="train the reference cell (reproduce.py: 1-1-1-0, T = 32, seed 0, 150 steps) and write its "
                        "record, with the fingerprint it ran under, to results/reference.json; no grid runs")
    p.add_argument("--evidence", choices=[*EVIDENCE_ORDER, "all"],
                   help="run an ablation's evidence grid (search.py: the staged learning-rate search within its CPU "
                        "budget, resuming) instead of --grid; 'all': every one, cheapest first")
    p.add_argument("--ship-stored", action="store_true",
                   help="with --evidence: write the evidence file from the cells the store has finished (a stage "
                        "part-way included) and run nothing")
    args = p.parse_args(argv)
    if args.grid is None and not args.reference and not args.evidence:
        p.error("the following arguments are required: --grid (or --evidence, --reference)")
    return args


def specs_from_args(args: argparse.Namespace) -> list[GridSpec]:
    """The grid(s) to run: the scale's spec(s), each with the flags given applied on top."""
    if args.scale == "paper":
        bases = [s for s in paper_specs(args.grid, device=args.device or "cuda")
                 if args.d_model is None or s.d_model == args.d_model] or paper_specs(args.grid)[:1]
    else:
        bases = [(CPU_SPECS if args.scale == "cpu" else {args.grid: default_spec(args.grid)})[args.grid]]
    changes = {"steps": args.steps, "seeds": args.seeds and tuple(args.seeds),
               "seq_lens": args.seq_lens and tuple(args.seq_lens), "lrs": args.lrs and tuple(args.lrs),
               "d_model": args.d_model, "expand_dim": args.expand_dim, "kv_pairs": args.kv_pairs,
               "batch_size": args.batch_size, "short_conv": args.short_conv, "vocab_size": args.vocab_size,
               "device": args.device}
    return [dataclasses.replace(base, **{k: v for k, v in changes.items() if v is not None}).validate()
            for base in bases]


def spec_from_args(args: argparse.Namespace) -> GridSpec:
    return specs_from_args(args)[0]


def cell_line(r: CellResult, fresh: bool) -> str:
    return json.dumps(dict(cell=r.run_label, code=r.code, tau=r.tau,
                           seq_len=r.seq_len, lr=r.lr, seed=r.seed, status=r.status, steps=r.steps,
                           best_acc=round(r.best_acc, 4), wall_s=round(r.wall_s, 1), run=r.run_id,
                           ran_now=fresh, numerics=r.numerics), ensure_ascii=False)


def progress(done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // max(total, 1)
    elapsed = time.monotonic() - started
    left = f" · ~{elapsed / done * (total - done) / 60:.1f} min left" if 0 < done < total else ""
    sys.stderr.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {done}/{total} cells · "
                     f"{elapsed / 60:.1f} min{left}   ")
    sys.stderr.flush()


def run_grid(spec: GridSpec, runner: GridRunner, rerun: bool = False,
             out=sys.stdout, have: frozenset = frozenset()) -> tuple[dict, list[CellResult]]:
    """Run what is left of the grid (everything with `rerun`), printing as the module docstring says;
    returns the summary and the grid's results. `have`: keys of cells not to run (finished elsewhere, or not
    selected: the evidence search runs a stage grid's chosen cells only)."""
    started = time.monotonic()
    total = len([c for c in cells(spec) if c.key not in have])
    store = RunStore(runner.db_path)
    try:
        before = live_results(spec, store.session_runs(grid_session(spec.grid_id)))
    finally:
        store.close()
    if not rerun:
        for r in before:
            print(cell_line(r, fresh=False), file=out, flush=True)
    grid_id, queued = runner.launch(spec, rerun="all" if rerun else None, have=have)
    done = total - len(queued)
    progress(done, total, started)
    for future in as_completed([f for _, _, f in queued]):
        cell, run_id = next((c, i) for c, i, f in queued if f is future)
        row = future.result() if future.exception() is None else dict(status="failed", steps=0, wall_s=0.0,
                                                                        best_test_acc=None)
        result = live_result(cell, run_id, row["status"], row["steps"], row["best_test_acc"], row["wall_s"],
                             row.get("numerics"))
        done += 1
        sys.stderr.write("\n")
        print(cell_line(result, fresh=True), file=out, flush=True)
        progress(done, total, started)
    sys.stderr.write("\n")
    store = RunStore(runner.db_path)
    try:
        results = live_results(spec, store.session_runs(grid_session(grid_id)))
    finally:
        store.close()
    return summary(spec, results, wall_s=time.monotonic() - started, ran=len(queued)), results


def summary(spec: GridSpec, results: list[CellResult], wall_s: float, ran: int) -> dict:
    ablation = ABLATIONS[spec.ablation]
    found = verdict(spec, results)
    table = accuracy_table(spec, results)
    return dict(summary=spec.grid_id, ablation=spec.ablation, paper=ablation.paper_finding, claim=ablation.claim,
                outcome=None if found is None else found.outcome,
                held=None if found is None else found.held, detail="incomplete grid" if found is None else found.detail,
                readings=[] if found is None else [dict(reading=n, outcome=o, detail=d) for n, o, d in found.readings],
                lr_note=lr_note(spec, results),
                accuracy={label: {str(T): None if a is None else round(a, 3) for T, a in row.items()}
                          for label, row in table.items()},
                spread={label: {str(T): None if s is None else dict(mean=round(s.mean, 3), min=round(s.low, 3),
                                                                    max=round(s.high, 3), seeds=s.n)
                                for T, s in row.items()} for label, row in spreads(spec, results).items()},
                cells=len(cells(spec)), ran_now=ran, wall_s=round(wall_s, 1), spec=dataclasses.asdict(spec))


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.reference:
        from lcsm_serving.paper_lab.reproduce import REFERENCE_PATH, write_reference
        print(json.dumps(write_reference(), ensure_ascii=False), flush=True)
        print(f"wrote {REFERENCE_PATH}", file=sys.stderr)
        return 0
    if args.evidence:
        return run_evidence_args(args)
    try:
        specs = specs_from_args(args)
        runner = GridRunner(args.db or default_db_path(), workers=args.workers, ray_address=args.ray,
                            gpus_per_cell=args.gpus_per_cell, cpus_per_cell=args.cpus_per_cell,
                            ray_token_file=args.ray_token_file)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.ray and args.gpus_per_cell == 0 and any(spec.device == "cuda" for spec in specs):
        print("note: --device cuda on Ray with --gpus-per-cell 0: Ray hides the GPUs from a task that asks for "
              "none, so each cell will fail to find one; ask for --gpus-per-cell 1 (or a fraction)", file=sys.stderr)
    for spec in specs:                                  # the cost of everything asked for, before anything runs
        cost = grid_cost(spec)
        print(f"cost: {cost}", file=sys.stderr, flush=True)
        print(f"  {here(cost.cpu_seconds, machine_factor())}", file=sys.stderr, flush=True)
    if args.cost_only:
        return 0
    for spec in specs:
        code = run_one_grid(spec, runner, args)
        if code:
            return code
    return 0


def machine(spec: GridSpec) -> str:
    """Where the shipped numbers were measured, in words: the GPU when the cells trained on one."""
    import torch
    if spec.device != "cpu" and torch.cuda.is_available():
        return f"an {torch.cuda.get_device_name()} GPU beside a {os.cpu_count()}-core CPU"
    return f"a {os.cpu_count()}-core CPU"


def run_one_grid(spec: GridSpec, runner: GridRunner, args: argparse.Namespace) -> int:
    print(f"grid {spec.grid_id}: {spec.cell_count} cells × {spec.steps} steps on {runner.where}; "
          f"store {runner.db_path}", file=sys.stderr)
    try:
        result, results = run_grid(spec, runner, rerun=args.rerun)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(result, ensure_ascii=False), flush=True)
    if args.ship:
        save_shipped(shipped_path(spec.ablation), spec, results, device=f"{machine(spec)}, {runner.where}",
                     measured_on=time.strftime("%Y-%m-%d"), wall_s=result["wall_s"], workers=runner.workers,
                     conditions=args.conditions)
        print(f"wrote {shipped_path(spec.ablation)}", file=sys.stderr)
    return 0


# --- the evidence grids (search.py) ---------------------------------------------------------------------------
def budget_line(plan: EvidencePlan, results, factor: float | None = None) -> str:
    """The plan's budget and each stage's cost, in words: printed before anything runs; with `factor` (this
    machine's CPU-seconds per cost-model CPU-second), what the budget left takes here."""
    stages = ", ".join(f"{name} {cpu_amount(cost)}" for name, cost in stage_costs(plan).items())
    spent = spent_s(plan, results)
    line = (f"evidence {plan.ablation}: budget {cpu_amount(plan.budget_cpu_s)} (the cost model's CPU-seconds); "
            f"stages: {stages}; spent so far {cpu_amount(spent)}; beyond the budget: not tested")
    if factor is not None:
        line += f"\n  what is left of the budget: {here(max(0.0, plan.budget_cpu_s - spent), factor)}"
    return line


# Stage 3 and the confirmation run this many seeds per round, so that they stop soon once the rest cannot matter
# (stage 3: one seed of every entry it gives more; the confirmation: two entries, four seeds keep two workers busy).
SEEDS_AT_A_TIME = {"stage 3": 1, "confirmation": 4, "second confirmation": 4}


def run_evidence(plan: EvidencePlan, runner: GridRunner, ship: bool = False, conditions: str = "",
                 out=sys.stdout) -> dict:
    """Run the plan's stages in order, each only when it fits in what is left of the budget; resumes (finished
    cells, in the store or the shipped evidence file, are not run again). With `ship`, the evidence file is written
    after every stage. Returns the verdict as a JSON-able dict (also printed)."""
    results = stored_results(plan, runner.db_path)
    print(budget_line(plan, results, machine_factor()), file=sys.stderr, flush=True)
    while (stage := next_chunk(plan, results)) is not None:
        whole = next_stage(plan, results)                 # the budget is the stage's, whichever part runs first
        left = plan.budget_cpu_s - spent_s(plan, results)
        if whole.cost_s > left:
            after = {"stage 3": "the verdict stands on seeds 0–4", "confirmation": "the verdict stands on seeds 0–9",
                     "second confirmation": "the verdict stands on the first round"
                     }.get(whole.name, "not tested at this scale")
            print(f"{whole.name}: {len(whole.cells)} runs, {cpu_amount(whole.cost_s)}, {cpu_amount(max(0, left))} "
                  f"left of the budget: not run ({after})", file=sys.stderr, flush=True)
            break
        entries = sorted({f"{c.label} at T={c.seq_len}" for c in stage.cells})
        part = "" if stage.cells == whole.cells else f" for {', '.join(entries)}"
        print(f"{stage.name}{part}: {len(stage.cells)} runs, {cpu_amount(stage.cost_s)} (grid {stage.spec.grid_id})",
              file=sys.stderr, flush=True)
        done = frozenset(r.key for r in results)
        later = frozenset()
        if stage.name in SEEDS_AT_A_TIME:                 # a few seeds at a time: it stops once the rest cannot matter
            first = sorted({c.seed for c in stage.cells})[:SEEDS_AT_A_TIME[stage.name]]
            later = frozenset(c.key for c in stage.cells if c.seed not in first)
        run_grid(stage.spec, runner, out=out, have=stage.skipped() | done | later)
        results = stored_results(plan, runner.db_path)
        if {r.key for r in results} <= done:             # every cell failed: rerunning them now would loop
            print(f"{stage.name}: no cell finished (see the runs' status in the store); stopping", file=sys.stderr,
                  flush=True)
            break
        if ship:
            save_evidence(plan, results, device=f"{machine(plan.base)}, {runner.where}",
                          measured_on=time.strftime("%Y-%m-%d"), conditions=conditions)
    found = evidence_verdict(plan, results)
    line = dict(evidence=plan.ablation, claim=ABLATIONS[plan.ablation].claim, outcome=found.outcome,
                detail=found.detail, why=found.why, readings=[dict(reading=r, outcome=o) for r, o in found.readings],
                stage_left=found.stage, spent_cpu_h=round(found.spent_s / 3600, 3),
                budget_cpu_h=round(found.budget_s / 3600, 3), running=found.outcome == RUNNING)
    print(json.dumps(line, ensure_ascii=False), file=out, flush=True)
    return line


def run_evidence_args(args: argparse.Namespace) -> int:
    names = EVIDENCE_ORDER if args.evidence == "all" else (args.evidence,)
    runner = GridRunner(args.db or default_db_path(), workers=args.workers or 1)
    for name in names:
        plan = EVIDENCE_PLANS[name]
        if args.cost_only or args.ship_stored:
            results = stored_results(plan, runner.db_path)
            print(budget_line(plan, results, machine_factor() if args.cost_only else None), file=sys.stderr,
                  flush=True)
            if args.ship_stored and stored_results(plan, runner.db_path, with_shipped=False):   # the store adds cells
                path = save_evidence(plan, results, device=f"{machine(plan.base)}, {runner.where}",
                                     measured_on=time.strftime("%Y-%m-%d"), conditions=args.conditions)
                print(f"wrote {path} ({len(results)} cells)", file=sys.stderr, flush=True)
            continue
        run_evidence(plan, runner, ship=args.ship, conditions=args.conditions)
    return 0

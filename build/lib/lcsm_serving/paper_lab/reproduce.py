"""A cell's numbers repeat: the reference cell, its shipped record, and what a re-run is held to.

A cell (config + seed) trains as a grid's cell does (runner.run_one: torch on one thread with its deterministic
algorithms on, into a run store) and gives its metrics — every evaluation's test accuracy, every step's loss — to
the last digit again on the same machine, as long as its fingerprint agrees (training/numerics.py: the scan form,
torch's threads, torch's version, the CPU's instruction set, the device and the code). A result recorded under
another fingerprint may differ, and `differences` says why.

The reference: one small cell of the parameterization grid (1-1-1-0 at T = 32, seed 0, REFERENCE_STEPS steps),
shipped in results/reference.json by `python -m lcsm_serving.paper_lab --reference`. tests hold a fresh run of it to
that record whenever the fingerprints agree (and run it twice in one process whatever they are).
"""
from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path

from lcsm_core.paper_lab.grid import Cell, cells, default_spec
from lcsm_core.paper_lab.results import SHIPPED_DIR
from lcsm_core.training.numerics import differences
from lcsm_serving import RunStore
from lcsm_serving.paper_lab.runner import run_one

REFERENCE_PATH = SHIPPED_DIR / "reference.json"
REFERENCE_ABLATION, REFERENCE_CODE, REFERENCE_SEED = "parameterization", "1-1-1-0", 0
REFERENCE_STEPS = 150


def reference_cell(steps: int = REFERENCE_STEPS) -> Cell:
    """The reference cell: the shipped parameterization grid's 1-1-1-0 at T = 32, seed 0, cut to `steps` steps."""
    spec = dataclasses.replace(default_spec(REFERENCE_ABLATION), steps=steps, seeds=(REFERENCE_SEED,))
    return next(c for c in cells(spec) if c.code == REFERENCE_CODE)


def cell_record(cell: Cell, db_path: str | Path | None = None) -> dict:
    """Train `cell` as a grid cell trains (runner.run_one) and return its record: the metrics — best test accuracy,
    (step, test accuracy) per evaluation, (step, loss) per step, full float precision — and the fingerprint it
    ran under (`numerics`). `db_path`: the store to train into (default: a throwaway one)."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(db_path) if db_path is not None else Path(scratch) / "cell.sqlite"
        store = RunStore(path)
        try:
            run_id = store.create_run(cell.config.to_dict(), cell.run_label, session="reproduce")
        finally:
            store.close()
        row = run_one(cell.config.to_dict(), str(path), run_id)
        store = RunStore(path)
        try:
            metrics = store.metrics(run_id)
        finally:
            store.close()
    steps, losses, accs = metrics["step"], metrics["loss"], metrics["test_acc"]
    return dict(cell=cell.run_label, code=cell.code, seq_len=cell.seq_len, seed=cell.seed, steps=row["steps"],
                status=row["status"], best_acc=row["best_test_acc"],
                test_acc=[[int(s), float(a)] for s, a in zip(steps, accs) if a == a],
                loss=[[int(s), float(v)] for s, v in zip(steps, losses) if v == v],
                numerics=row["numerics"])


def metrics_of(record: dict) -> dict:
    """The part of a record two runs of a cell must agree on to the last digit."""
    return {k: record[k] for k in ("steps", "status", "best_acc", "test_acc", "loss")}


def write_reference(path: Path = REFERENCE_PATH, steps: int = REFERENCE_STEPS) -> dict:
    """Train the reference cell and ship its record (with the date) at `path`."""
    import time
    record = dict(cell_record(reference_cell(steps)), measured_on=time.strftime("%Y-%m-%d"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                                       for k, v in record.items()) + "\n}\n")      # one field a line
    return record


def load_reference(path: Path = REFERENCE_PATH) -> dict | None:
    """The shipped reference record, or None when there is none."""
    return json.loads(path.read_text()) if path.exists() else None


def why_not_comparable(fresh: dict, shipped: dict) -> list[str]:
    """Why a fresh record may not be held to a shipped one: the fingerprint fields that differ, or a different
    cell or budget; [] when it must agree to the last digit."""
    cell = [f"{k} {fresh[k]!r} vs {shipped.get(k)!r}" for k in ("cell", "steps") if fresh[k] != shipped.get(k)]
    return cell + differences(fresh.get("numerics"), shipped.get("numerics"))

"""A grid's results: per cell, from the run store (live) or from a results file shipped in the repo; the
paper-style accuracy table (entry × sequence length, best over the learning-rate sweep, mean over seeds),
the spread over seeds behind each cell, where each cell's best learning rate lies in the sweep, and the
paper's claim checked on the spreads.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .ablations import ABLATIONS, Verdict
from .grid import CellId, GridSpec, cells, finished_cells
from .spread import Spread, Spreads

SHIPPED_DIR = Path(__file__).parent / "results"


@dataclass(frozen=True)
class CellResult(CellId):
    """What one cell's finished run reached."""

    status: str
    steps: int
    best_acc: float
    wall_s: float
    source: str                    # "shipped" (the results file) or "live" (this server's store)
    run_id: int | None = None
    # what the numbers depend on beyond the config: form, threads, torch, CPU, device, code (numerics.fingerprint);
    # None: not recorded (results from before it was)
    numerics: dict | None = field(default=None, compare=False)


def live_result(cell: CellId, run_id: int, status: str, steps: int, best_test_acc: float | None,
                wall_s: float, numerics: dict | None = None) -> CellResult:
    """What a run of this server reached for `cell` (no test accuracy yet counts as 0)."""
    return CellResult(cell.label, cell.code, cell.tau, cell.seq_len, cell.lr, cell.seed, status, steps,
                      float(best_test_acc or 0.0), float(wall_s), "live", run_id, numerics)


def live_results(spec: GridSpec, rows: list) -> list[CellResult]:
    """The newest finished run of each of the grid's cells among `rows`."""
    done = finished_cells(rows)
    return [live_result(cell, row.id, row.status, row.steps, row.best_test_acc, row.wall_s, row.numerics)
            for cell in cells(spec) if (row := done.get(cell.key)) is not None]


def merged(shipped: list[CellResult], live: list[CellResult]) -> list[CellResult]:
    """Shipped results with every cell that also ran live replaced by the live run."""
    by_key = {r.key: r for r in shipped}
    by_key.update({r.key: r for r in live})
    return list(by_key.values())


def accuracy_table(spec: GridSpec, results: list[CellResult]) -> dict[str, dict[int, float | None]]:
    """label -> sequence length -> best accuracy over learning rates, averaged over seeds (None: no result)."""
    table: dict[str, dict[int, float | None]] = {}
    for label in ABLATIONS[spec.ablation].labels:
        table[label] = {}
        for T in spec.seq_lens:
            per_seed = {}
            for r in results:
                if r.label == label and r.seq_len == T:
                    per_seed[r.seed] = max(per_seed.get(r.seed, 0.0), r.best_acc)
            table[label][T] = sum(per_seed.values()) / len(per_seed) if per_seed else None
    return table


def best_per_seed(spec: GridSpec, results: list[CellResult], label: str, T: int) -> dict[int, CellResult]:
    """seed -> the run of this entry and length with the best accuracy over the learning-rate sweep."""
    best: dict[int, CellResult] = {}
    for r in results:
        if r.label == label and r.seq_len == T and (r.seed not in best or r.best_acc > best[r.seed].best_acc):
            best[r.seed] = r
    return best


def spreads(spec: GridSpec, results: list[CellResult]) -> dict[str, dict[int, Spread | None]]:
    """label -> sequence length -> the spread over seeds of the best accuracy over the sweep (None: no result)."""
    out: dict[str, dict[int, Spread | None]] = {}
    for label in ABLATIONS[spec.ablation].labels:
        out[label] = {}
        for T in spec.seq_lens:
            best = best_per_seed(spec, results, label, T)
            out[label][T] = Spread(tuple(best[seed].best_acc for seed in sorted(best))) if best else None
    return out


def lr_edges(spec: GridSpec, results: list[CellResult]) -> list[tuple[str, int, int, float]]:
    """(label, length, seed, rate) of every cell whose best learning rate is the lowest or the highest of the sweep:
    there the sweep did not bracket the best rate, and a wider one might change the cell."""
    edges = (min(spec.lrs), max(spec.lrs))
    return [(label, T, seed, r.lr) for label in ABLATIONS[spec.ablation].labels for T in spec.seq_lens
            for seed, r in sorted(best_per_seed(spec, results, label, T).items()) if r.lr in edges]


def lr_note(spec: GridSpec, results: list[CellResult]) -> str:
    """In words, whether the learning-rate sweep bracketed each cell's best rate ("" when it did everywhere)."""
    if len(spec.lrs) < 3:
        return (f"a sweep of {len(spec.lrs)} learning rate(s) ({', '.join(f'{lr:g}' for lr in spec.lrs)}) cannot "
                "show that the best rate lies inside it: each accuracy is the best at these rates only")
    edges = lr_edges(spec, results)
    if not edges:
        return ""
    top = sum(lr == max(spec.lrs) for *_, lr in edges)
    judged = sum(len(best_per_seed(spec, results, label, T)) for label in ABLATIONS[spec.ablation].labels
                 for T in spec.seq_lens)
    return (f"the best learning rate is at an edge of the sweep in {len(edges)} of {judged} cell-seeds "
            f"({top} at the highest {max(spec.lrs):g}, {len(edges) - top} at the lowest "
            f"{min(spec.lrs):g}): a wider sweep might change them")


def best_lrs(spec: GridSpec, results: list[CellResult]) -> dict[str, dict[int, float | None]]:
    """label -> sequence length -> the learning rate of the best run (seed 0 first), None without results."""
    out: dict[str, dict[int, float | None]] = {}
    for label in ABLATIONS[spec.ablation].labels:
        out[label] = {}
        for T in spec.seq_lens:
            mine = [r for r in results if r.label == label and r.seq_len == T]
            out[label][T] = max(mine, key=lambda r: (r.best_acc, -r.seed)).lr if mine else None
    return out


def is_complete(spec: GridSpec, results: list[CellResult]) -> bool:
    return {r.key for r in results} >= {c.key for c in cells(spec)}


def verdict(spec: GridSpec, results: list[CellResult]) -> Verdict | None:
    """The paper's claim on this grid's numbers; None until every cell has a result."""
    if not is_complete(spec, results):
        return None
    return ABLATIONS[spec.ablation].judge(Spreads(spreads(spec, results)))


# --- shipped results -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shipped:
    spec: GridSpec
    results: list[CellResult]
    device: str
    measured_on: str               # date
    wall_s: float                  # the grid's wall time
    workers: int
    conditions: str = ""           # what else the machine was doing while the grid ran, in words ("": not said)

    @property
    def seconds_per_step(self) -> float:
        """The cells' own mean seconds per optimizer step (each run's wall time over its steps)."""
        timed = [r.wall_s / r.steps for r in self.results if r.steps > 0]
        return sum(timed) / len(timed) if timed else 0.0

    def time_said(self) -> str:
        """How long the grid took, in words: the planning figure (runs × steps × the cells' own seconds per step,
        in core-minutes) and the wall time, with what else the machine was doing."""
        spec, rate = self.spec, self.seconds_per_step
        core_min = spec.cell_count * spec.steps * rate / 60
        wall = f"{self.wall_s / 60:.1f} min ({self.wall_s:.1f} s)"
        busy = f", {self.conditions}" if self.conditions else ""
        return (f"{spec.cell_count} runs × {spec.steps} steps × {rate:.3f} s a step (the cells' mean) ≈ "
                f"{core_min:.1f} core-minutes; the grid took {wall} of wall time on {self.device}{busy}")


def shipped_path(ablation: str) -> Path:
    return SHIPPED_DIR / f"{ablation}.json"


def save_shipped(path: Path, spec: GridSpec, results: list[CellResult], device: str, measured_on: str,
                 wall_s: float, workers: int, conditions: str = "") -> None:
    data = dict(spec=asdict(spec), device=device, measured_on=measured_on, wall_s=round(wall_s, 1), workers=workers,
                **({"conditions": conditions} if conditions else {}),
                cells=[{k: v for k, v in asdict(r).items() if k not in ("source", "run_id")} for r in results])
    for cell in data["cells"]:
        cell["best_acc"], cell["wall_s"] = round(cell["best_acc"], 4), round(cell["wall_s"], 2)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")


def shipped_grid(spec: GridSpec) -> Shipped | None:
    """The shipped results when they are of exactly this grid (the ablation's default one), else None."""
    shipped = load_shipped(spec.ablation)
    return shipped if shipped is not None and shipped.spec == spec else None


def shipped_results(spec: GridSpec) -> list[CellResult]:
    """The shipped results of exactly this grid; [] for any other grid."""
    shipped = shipped_grid(spec)
    return shipped.results if shipped is not None else []


def load_shipped(ablation: str) -> Shipped | None:
    """The results file shipped for an ablation, or None when there is none."""
    path = shipped_path(ablation)
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    spec_fields = dict(data["spec"])
    for name in ("seq_lens", "lrs", "seeds"):
        spec_fields[name] = tuple(spec_fields[name])
    spec = GridSpec(**spec_fields)
    results = [CellResult(**cell, source="shipped") for cell in data["cells"]]
    return Shipped(spec, results, data["device"], data["measured_on"], data["wall_s"], data["workers"],
                   data.get("conditions", ""))


CSV_COLUMNS = ("label", "code", "tau", "seq_len", "lr", "seed", "status", "steps", "best_acc", "wall_s", "source",
               "run_id")


def _cell_order(results: list[CellResult]) -> list[CellResult]:
    return sorted(results, key=lambda r: (r.label, r.seq_len, r.lr, r.seed))


def results_csv(results: list[CellResult]) -> str:
    """One row per cell: which cell, what its run reached, and where the number comes from (shipped or live)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for r in _cell_order(results):
        writer.writerow(asdict(r))
    return out.getvalue()


def results_json(spec: GridSpec, results: list[CellResult]) -> str:
    """The grid, its cells' results (numerics fingerprints included) and the demo reading of its claim."""
    found = verdict(spec, results)
    data = dict(grid=asdict(spec), grid_id=spec.grid_id,
                reading=None if found is None else dict(outcome=found.outcome, detail=found.detail,
                                                        seeds=found.seeds),
                cells=[asdict(r) for r in _cell_order(results)])
    return json.dumps(data, indent=1) + "\n"

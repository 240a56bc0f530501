"""Comparing stored runs: what differs between their configs, and the runs as CSV or JSON to take away.

    differences([config_a, config_b])  ->  {"model.variant": ["gla", "longhorn"], "optim.lr": [0.005, 0.001]}
"""
from __future__ import annotations

import csv
import io
import json

import numpy as np

from lcsm_serving.store import METRIC_COLUMNS, RunStore


def flatten(config: dict, prefix: str = "") -> dict[str, object]:
    """{"model": {"d_model": 64}} -> {"model.d_model": 64}."""
    out = {}
    for key, value in config.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, f"{path}."))
        else:
            out[path] = value
    return out


def differences(configs: list[dict]) -> dict[str, list]:
    """Every config field (dotted path) whose value is not the same in all `configs`, with each one's value
    (None where a config lacks the field), in the order of the first config's fields."""
    flat = [flatten(c) for c in configs]
    paths = list(dict.fromkeys(path for f in flat for path in f))
    return {path: [f.get(path) for f in flat] for path in paths if len({json.dumps(f.get(path)) for f in flat}) > 1}


def runs_csv(store: RunStore, run_ids: list[int]) -> str:
    """Every metric row of the runs, long format: run, step, loss, train_acc, test_acc, lr, wall_s."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(("run", *METRIC_COLUMNS))
    for run_id in run_ids:
        metrics = store.metrics(run_id)
        for step, *rest in zip(*(metrics[name] for name in METRIC_COLUMNS)):
            writer.writerow((run_id, int(step), *("" if _plain(v) is None else _plain(v) for v in rest)))
    return buffer.getvalue()


def runs_json(store: RunStore, run_ids: list[int]) -> str:
    """Each run: id, label, status, config, metrics (columns) and its last eigenvalue snapshot per layer."""
    runs = []
    for run_id in run_ids:
        row = store.get_run(run_id)
        if row is None:
            continue
        metrics = store.metrics(run_id)
        snapshots = store.snapshots(run_id)
        last = snapshots[-1] if snapshots else None
        runs.append(dict(
            id=row.id, label=row.label, status=row.status, steps=row.steps, wall_s=row.wall_s,
            test_acc=row.test_acc, best_test_acc=row.best_test_acc, config=row.config,
            metrics={name: [_plain(v) for v in metrics[name]] for name in METRIC_COLUMNS} | dict(
                step=[int(v) for v in metrics["step"]]),
            eigenvalues=None if last is None else dict(
                step=last[0], layers=[[[float(z.real), float(z.imag)] for z in layer] for layer in last[1]])))
    return json.dumps(dict(runs=runs), indent=1)


def _plain(value) -> float | int | None:
    """A JSON/CSV-safe number: NaN (no value at that step) becomes None."""
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value

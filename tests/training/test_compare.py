"""Comparing runs: config differences by dotted path; CSV and JSON exports carry every metric row and the
last eigenvalues, with no NaN (a step without a value is empty / null)."""
import csv
import io
import json

import numpy as np

from lcsm_serving import RunStore
from lcsm_serving.compare import differences, flatten, runs_csv, runs_json


def test_differences_name_each_field_that_is_not_the_same_everywhere():
    a = {"model": {"variant": "gla", "d_model": 16}, "optim": {"lr": 0.01}}
    b = {"model": {"variant": "longhorn", "d_model": 16}, "optim": {"lr": 0.01, "seed": 3}}
    assert flatten(a) == {"model.variant": "gla", "model.d_model": 16, "optim.lr": 0.01}
    assert differences([a, b]) == {"model.variant": ["gla", "longhorn"], "optim.seed": [None, 3]}
    assert differences([a, a]) == {}


def test_exports_hold_every_metric_row_and_the_last_eigenvalues(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({"model": {"variant": "gla"}}, label="gla")
    store.write(run_id, [(1, 2.0, 0.1, None, 0.01, 0.5), (2, 1.5, 0.2, 0.3, 0.01, 1.0)],
                [(2, 0, np.array([0.5 + 0.1j, 0.9]))], status="completed", steps=2, wall_s=1.0, test_acc=0.3)
    rows = list(csv.DictReader(io.StringIO(runs_csv(store, [run_id]))))
    assert [(r["run"], r["step"], r["test_acc"]) for r in rows] == [(str(run_id), "1", ""), (str(run_id), "2", "0.3")]
    [run] = json.loads(runs_json(store, [run_id]))["runs"]
    assert run["metrics"]["step"] == [1, 2] and run["metrics"]["test_acc"] == [None, 0.3]
    assert run["eigenvalues"] == {"step": 2, "layers": [[[0.5, 0.1], [0.9, 0.0]]]}
    assert run["config"] == {"model": {"variant": "gla"}} and run["status"] == "completed"
    store.close()

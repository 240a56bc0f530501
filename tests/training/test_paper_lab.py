"""Paper lab core: grids are budgeted in steps and identified by their spec; a grid runs to the end on a
process pool and resumes; the claims read an accuracy table; the shipped results match the default grids.
(The CLI: test_paper_lab_cli.py; the page: tests/app/test_page_paper_lab.py.)"""
import dataclasses
import time

import pytest

from lcsm_core.paper_lab import (
    ABLATIONS,
    DEFAULT_SPECS,
    CellResult,
    GridSpec,
    accuracy_table,
    best_lrs,
    cells,
    grid_session,
    is_complete,
    live_results,
    load_shipped,
    merged,
    verdict,
)
from lcsm_core.paper_lab.grid import MAX_SEEDS
from lcsm_serving import RunStore
from lcsm_serving.paper_lab import GridRunner

TINY = dict(seq_lens=(16,), kv_pairs=2, d_model=8, expand_dim=8, lrs=(1e-2,), steps=3, batch_size=4, eval_every=2)


@pytest.mark.parametrize("ablation", list(ABLATIONS))
def test_every_ablation_makes_one_valid_cell_per_entry_length_lr_and_seed(ablation):
    spec = GridSpec(ablation=ablation, seq_lens=(32, 64), lrs=(1e-3, 1e-2), seeds=(0, 1))
    grid = cells(spec)
    assert len(grid) == spec.cell_count == len(ABLATIONS[ablation].entries) * 8
    assert len({c.key for c in grid}) == len(grid)
    for cell in grid:
        assert cell.config.optim.max_steps == spec.steps                # budgeted in steps, not seconds
        assert cell.config.optim.snapshot_every == spec.steps           # eigenvalues at the end only
        assert cell.config.optim.max_seconds >= 3600
        assert cell.config.model.short_conv == 0                        # the paper's models have none
        assert (cell.config.task.seq_len, cell.config.optim.lr, cell.config.optim.seed) == cell.key[2:]


def test_a_grid_is_named_by_its_spec():
    spec = GridSpec()
    assert spec.grid_id == GridSpec().grid_id and spec.grid_id.startswith("data_dependence-")
    assert dataclasses.replace(spec, steps=spec.steps + 1).grid_id != spec.grid_id


@pytest.mark.parametrize("changes,message", [
    (dict(ablation="dropout"), "unknown ablation"), (dict(seeds=tuple(range(MAX_SEEDS + 1))), "seeds"),
    (dict(seeds=(0, 0)), "seeds"), (dict(steps=0), "steps"), (dict(seq_lens=()), "at least one"),
    (dict(lrs=(1e-2, 1e-2)), "repeat"), (dict(seq_lens=(31,)), "seq_len"), (dict(lrs=(20.0,)), "learning rate"),
    (dict(device="tpu"), "device"),
])
def test_bad_grid_specs_are_refused_with_a_message(changes, message):
    with pytest.raises(ValueError, match=message):
        cells(GridSpec(**changes))


def result(label, seq_len, acc, lr=1e-2, seed=0, code=None, tau=16.0) -> CellResult:
    return CellResult(label, code or label, tau, seq_len, lr, seed, "completed", 10, acc, 1.0, "live")


def test_the_table_keeps_the_best_learning_rate_and_averages_seeds():
    spec = GridSpec(ablation="parameterization", seq_lens=(32,), lrs=(1e-3, 1e-2), seeds=(0, 1))
    results = [result("0 as DSS", 32, 0.2, lr=1e-3, code="0"), result("0 as DSS", 32, 0.6, lr=1e-2, code="0"),
               result("0 as DSS", 32, 0.9, lr=1e-3, seed=1, code="0"),
               result("0 as DSS", 32, 0.1, lr=1e-2, seed=1, code="0")]
    assert accuracy_table(spec, results) == {"0 as DSS": {32: pytest.approx(0.75)}, "0 as selective SSM": {32: None},
                                             "1-1-1-0": {32: None}}
    assert best_lrs(spec, results)["0 as DSS"][32] == 1e-3
    assert not is_complete(spec, results) and verdict(spec, results) is None


def test_live_runs_replace_shipped_cells():
    shipped = [result("0", 32, 0.1), result("1-1-1-0", 32, 0.2)]
    live = [dataclasses.replace(result("0", 32, 0.7), source="live")]
    assert sorted((r.label, r.best_acc, r.source) for r in merged(shipped, live)) == [
        ("0", 0.7, "live"), ("1-1-1-0", 0.2, "live")]


@pytest.mark.parametrize("ablation", list(ABLATIONS))
def test_every_default_grid_ships_complete_results(ablation):
    shipped = load_shipped(ablation)
    assert shipped is not None, f"no shipped results for {ablation}"
    assert shipped.spec == DEFAULT_SPECS[ablation]
    assert is_complete(shipped.spec, shipped.results)
    assert all(r.status in ("completed", "diverged") and 0 <= r.best_acc <= 1 for r in shipped.results)
    found = verdict(shipped.spec, shipped.results)
    assert found is not None and found.seeds == 3                   # every shipped verdict reads 3 seeds per cell


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return tmp_path


def wait(lab: GridRunner, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while lab.active_grid and time.monotonic() < deadline:
        time.sleep(0.3)
    assert lab.active_grid is None, "the grid did not finish in time"


def test_a_grid_runs_to_the_end_and_resumes(data_dir):
    lab = GridRunner(data_dir / "runs.sqlite", workers=2)
    spec = GridSpec(ablation="parameterization", **TINY)
    grid_id, queued = lab.launch(spec)
    assert grid_id == spec.grid_id and len(queued) == 3
    with pytest.raises(ValueError, match="still running"):
        lab.launch(GridSpec(ablation="tau", **TINY))
    wait(lab)
    store = RunStore(lab.db_path)
    rows = store.session_runs(grid_session(grid_id))
    assert [r.status for r in rows] == ["completed"] * 3 and [r.steps for r in rows] == [3, 3, 3]
    results = live_results(spec, rows)
    assert is_complete(spec, results) and verdict(spec, results) is not None

    assert lab.todo(spec) == [] and lab.launch(spec) == (grid_id, [])     # nothing left: nothing runs
    _, again = lab.launch(spec, rerun=(("0 as DSS", 16),))                       # one cell, on demand
    assert [cell.code for cell, _, _ in again] == ["0"]
    wait(lab)
    rows = store.session_runs(grid_session(grid_id))
    assert len(rows) == 4 and {r.run_id for r in live_results(spec, rows)} == {rows[1].id, rows[2].id, rows[3].id}
    store.close()


def test_a_crashed_cell_is_run_again(data_dir):
    lab = GridRunner(data_dir / "runs.sqlite", workers=1)
    spec = GridSpec(ablation="parameterization", **TINY)
    store = RunStore(lab.db_path)
    first = cells(spec)[0]
    run_id = store.create_run(first.config.to_dict(), label="crashed", session=grid_session(spec.grid_id))
    store.set_status(run_id, "failed", "worker ended")
    store.close()
    assert [c.key for c in lab.todo(spec)] == [c.key for c in cells(spec)]

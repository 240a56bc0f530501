"""Paper lab core: every ablation makes valid configs; a grid runs to the end on a process pool.
(The page: tests/app/test_page_paper_lab.py.)"""
import time

import pytest

from lcsm_core.paper_lab import (
    ABLATIONS,
    GridRunner,
    GridSpec,
    grid_ablation,
    grid_configs,
    grid_runs,
    past_grids,
    summarize_grid,
)


@pytest.mark.parametrize("ablation", list(ABLATIONS))
def test_every_ablation_builds_valid_configs(ablation):
    configs = grid_configs(GridSpec(ablation=ablation, seeds=2))
    assert len(configs) == 2 * len(ABLATIONS[ablation].entries)
    assert len({label for label, _ in configs}) == len(configs) == GridSpec(ablation=ablation, seeds=2).run_count


def test_bad_grid_specs_are_refused():
    with pytest.raises(ValueError, match="unknown ablation"):
        grid_configs(GridSpec(ablation="dropout"))
    with pytest.raises(ValueError, match="seeds"):
        grid_configs(GridSpec(seeds=9))


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return tmp_path


def test_a_grid_runs_to_the_end(data_dir):
    lab = GridRunner(workers=2)
    grid_id = lab.launch(GridSpec(ablation="parameterization", max_steps=2, max_seconds=30, d_model=16))
    with pytest.raises(ValueError, match="still running"):
        lab.launch(GridSpec(ablation="tau"))
    deadline = time.monotonic() + 240
    while lab.active_grid and time.monotonic() < deadline:
        time.sleep(0.5)
    rows = grid_runs(None, grid_id)
    assert [r.status for r in rows] == ["completed", "completed"]
    assert past_grids(None) == [grid_id]
    summary = summarize_grid("parameterization", rows)
    assert [s["finished"] for s in summary] == [1, 1] and all(s["best_acc_mean"] is not None for s in summary)
    assert grid_ablation(grid_id) == "parameterization"

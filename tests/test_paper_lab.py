"""Paper lab: every ablation makes valid configs; a grid runs to the end on a process pool; the page shows it."""
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lcsm_core.paper_lab import ABLATIONS, GridRunner, GridSpec, grid_configs, grid_runs, past_grids, summarize_grid

PAGE = str(Path(__file__).resolve().parent.parent / "app" / "app_pages" / "paper_lab.py")


@pytest.mark.parametrize("ablation", list(ABLATIONS))
def test_every_ablation_builds_valid_configs(ablation):
    configs = grid_configs(GridSpec(ablation=ablation, seeds=2))
    assert len(configs) == 2 * len(ABLATIONS[ablation].entries)
    assert len({label for label, _ in configs}) == len(configs)


def test_bad_grid_specs_are_refused():
    with pytest.raises(ValueError, match="unknown ablation"):
        grid_configs(GridSpec(ablation="dropout"))
    with pytest.raises(ValueError, match="seeds"):
        grid_configs(GridSpec(seeds=9))


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return tmp_path


def test_a_grid_runs_to_the_end_and_the_page_shows_it(data_dir):
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

    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 1
    for name in ABLATIONS:
        at.selectbox(key="paper_lab.ablation").set_value(name).run()
        assert not at.exception

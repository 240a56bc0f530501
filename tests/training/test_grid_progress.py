"""The grid's progress bar and its downloads: runs ended out of runs launched, time left at the grid's own pace
(its workers together), and the results as CSV and JSON with one entry per cell."""
import csv
import io
import json
import types

from lcsm_core.paper_lab import default_spec, shipped_results
from lcsm_core.paper_lab.results import CSV_COLUMNS, results_csv, results_json
from lcsm_core.training.progress import grid_progress
from lcsm_explorer.app.kit.blocks import Progress
from lcsm_explorer.app.lessons.paper_lab import grid_progress_blocks


def test_time_left_is_the_grids_pace_over_the_runs_still_to_end():
    assert grid_progress(0, 9, None, 100.0).seconds_left is None
    half = grid_progress(3, 9, started_at=100.0, now=160.0)              # 3 runs ended in 60 s: 20 s a run
    assert half.fraction == 1 / 3 and half.seconds_left == 120.0
    assert half.words() == "3 of 9 runs done · about 2 min left"
    assert grid_progress(0, 9, 100.0, 130.0).words() == "0 of 9 runs done · the time left shows once a run has finished"
    assert grid_progress(9, 9, 100.0, 400.0).seconds_left == 0.0


def row(status, started_at=None):
    return types.SimpleNamespace(status=status, started_at=started_at,
                                 active=status in ("queued", "running", "paused"))


def test_the_page_shows_a_bar_only_while_the_grid_runs_and_it_moves():
    assert grid_progress_blocks([row("completed", 10.0)], now=50.0) == []
    early = grid_progress_blocks([row("completed", 10.0), row("running", 20.0), row("queued"), row("queued")],
                                 now=50.0)
    later = grid_progress_blocks([row("completed", 10.0), row("completed", 20.0), row("diverged", 30.0),
                                  row("running", 40.0)], now=90.0)
    assert [type(b) for b in early + later] == [Progress, Progress]
    assert early[0].fraction == 0.25 and later[0].fraction == 0.75 and "3 of 4 runs done" in later[0].text
    assert "about 27 s left" in later[0].text                            # 3 ended in 80 s: 1 × 80/3 s to go


def test_the_results_download_as_csv_and_json_cell_for_cell():
    spec = default_spec("tau")
    results = shipped_results(spec)
    rows = list(csv.DictReader(io.StringIO(results_csv(results))))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == len(results) == spec.cell_count
    assert {r["source"] for r in rows} == {"shipped"} and all(0 <= float(r["best_acc"]) <= 1 for r in rows)
    data = json.loads(results_json(spec, results))
    assert data["grid_id"] == spec.grid_id and data["grid"]["ablation"] == "tau"
    assert len(data["cells"]) == len(results) and data["reading"]["outcome"] in ("held", "not held", "inconclusive")

"""One cost model (issue 24): the admission policy's charge for a run or a grid (training/cost.py, admission.run_cost_s)
is calibrated from training steps measured with the paper lab's own instrument (paper_lab/scale.py), and agrees with
every measured config within cost.TIME_AGREEMENT. The measurements are committed (benchmarks/cost_calibration.py
--write): this test reads them and times nothing."""
import json
from pathlib import Path

import pytest

from lcsm_core.paper_lab import CPU_SPECS
from lcsm_core.paper_lab.grid import cells
from lcsm_core.paper_lab.scale import GridCost, model_grid_cost
from lcsm_core.training import RunConfig
from lcsm_core.training.admission import grid_cost_s
from lcsm_core.training.cost import TIME_AGREEMENT, estimate_cost

MEASURED = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "cost_calibration-cpu.json"


def measured_rows() -> list[dict]:
    return json.loads(MEASURED.read_text())["rows"]


def test_the_calibration_set_covers_every_cpu_grid_and_the_live_runs():
    names = " | ".join(row["name"] for row in measured_rows())
    assert all(ablation in names for ablation in CPU_SPECS) and "Train live" in names and "T=128" in names


@pytest.mark.parametrize("row", measured_rows(), ids=lambda row: row["name"])
def test_the_model_agrees_with_every_measured_step_within_its_stated_factor(row):
    model = estimate_cost(RunConfig.from_dict(row["config"])).step_s
    assert 1 / TIME_AGREEMENT <= row["measured_s"] / model <= TIME_AGREEMENT, (row["measured_s"], model)


def test_the_calibration_is_centred_on_the_measurements():
    """The geometric mean of measured / model is near 1: the factor was fitted, not only loosened."""
    import math
    ratios = [row["measured_s"] / estimate_cost(RunConfig.from_dict(row["config"])).step_s for row in measured_rows()]
    assert 0.67 <= math.exp(sum(map(math.log, ratios)) / len(ratios)) <= 1.5       # runs of the benchmark: 0.8-1.1


@pytest.mark.parametrize("ablation", list(CPU_SPECS))
def test_the_paper_labs_model_cost_is_what_admission_charges(ablation):
    spec = CPU_SPECS[ablation]
    assert model_grid_cost(spec).total_seconds == pytest.approx(grid_cost_s(c.config for c in cells(spec)))


def test_a_measured_cpu_grid_cost_prints_the_models_beside_it():
    spec = CPU_SPECS["tau"]
    text = str(GridCost(spec, {(c.label, c.seq_len): 0.01 for c in cells(spec)}, "cpu (1 thread(s))", 7200.0))
    assert "(the admission cost model: 2.0 CPU-hours)" in text

"""One cost model: the paper lab's `--cost-only` and the admission policy's charge are the same number
(training/cost.py step_seconds_of, admission.grid_cost_s), and it agrees with every training step measured on the
project's CPU within cost.TIME_AGREEMENT (2×). The measurements are committed (benchmarks/paper_lab_cost.py and
benchmarks/cost_calibration.py, --write): this test reads them and times nothing."""
import dataclasses
import json
import math
from pathlib import Path

import pytest

from lcsm_core.codes import parse_code
from lcsm_core.paper_lab import CPU_SPECS
from lcsm_core.paper_lab.grid import cells
from lcsm_core.paper_lab.scale import grid_cost, paper_specs
from lcsm_core.training import RunConfig, run_config
from lcsm_core.training.cost import TIME_AGREEMENT, grid_cost_s, step_seconds_of
from lcsm_core.variants import VARIANT_CLASSES
from lcsm_serving.paper_lab import GridRunner

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
MEASURED = (RESULTS / "paper_lab_cost-cpu.json", RESULTS / "cost_calibration-cpu.json")


def measured_rows() -> list[dict]:
    """Every committed measurement, its seconds put on the calibration machine's scale: a file measured on another
    machine carries that machine's factor (training/machine_speed.py; 1 on the machine the rates were fitted on)."""
    rows = []
    for path in MEASURED:
        data = json.loads(path.read_text())
        factor = data.get("machine_factor", 1.0)
        rows += [dict(row, measured_s=row["measured_s"] / factor,
                      name=row.get("name") or f"{row['scale']} {row['code']} B={row['batch']}") for row in data["rows"]]
    return rows


def test_the_measurements_cover_every_code_of_the_shipped_grids_at_both_scales_and_the_live_runs():
    rows = measured_rows()
    codes = {c.code for spec in CPU_SPECS.values() for c in cells(spec)}
    for scale in ("shipped", "large"):
        assert {row["code"] for row in rows if row.get("scale") == scale} == codes
    large = [RunConfig.from_dict(row["config"]) for row in rows if row.get("scale") == "large"]
    assert all((c.model.d_model, c.model.expand_dim, c.task.seq_len) == (128, 128, 256) for c in large)
    names = " | ".join(row["name"] for row in rows)
    assert "Train live" in names and "T=128" in names


@pytest.mark.parametrize("row", measured_rows(), ids=lambda row: row["name"])
def test_the_model_agrees_with_every_measured_step_within_2x(row):
    model = step_seconds_of(RunConfig.from_dict(row["config"]))
    assert TIME_AGREEMENT <= 2.0
    assert 1 / TIME_AGREEMENT <= row["measured_s"] / model <= TIME_AGREEMENT, (row["measured_s"], model)


def test_the_calibration_is_centred_on_the_measurements():
    """The geometric mean of measured / model is near 1: the rates were fitted, not only loosened."""
    ratios = [row["measured_s"] / step_seconds_of(RunConfig.from_dict(row["config"])) for row in measured_rows()]
    assert 0.8 <= math.exp(sum(map(math.log, ratios)) / len(ratios)) <= 1.25


@pytest.mark.parametrize("ablation", list(CPU_SPECS))
def test_cost_only_and_admission_give_the_same_number_for_a_grid(ablation, tmp_path):
    """`--cost-only` prints grid_cost; a page's grid is charged run_cost_s per cell (GridRunner._sized): one sum."""
    spec = CPU_SPECS[ablation]
    printed = grid_cost(spec)
    _, charged = GridRunner(tmp_path / "lab.sqlite")._sized(spec, cells(spec), visitor=None, admission=None)
    assert printed.cpu_seconds == sum(charged) == grid_cost_s(c.config for c in cells(spec))
    assert f"≈ {printed.cpu_seconds / 60:.2g} CPU-minutes" in str(printed)


def test_cost_only_and_admission_agree_at_paper_scale():
    spec = paper_specs("data_dependence", device="cpu", widths=(128,))[0]
    assert grid_cost(spec).cpu_seconds == grid_cost_s(c.config for c in cells(spec))


def every_model() -> list[dict]:
    codes = [f"{e}-{o}-{s}-0" for e in (0, 1) for o in range(12) for s in (0, 1)]
    codes += [f"1-1-1-{a}" for a in range(1, 8)] + ["0"]
    return [dict(code=code) for code in codes] + [dict(variant=name, code=None) for name in sorted(VARIANT_CLASSES)]


@pytest.mark.parametrize("scale", [dict(d_model=32, expand_dim=32, seq_len=32, batch_size=32),
                                   dict(d_model=128, expand_dim=128, seq_len=256, batch_size=64)],
                         ids=["shipped", "k=d=128-T=256"])
def test_the_prediction_is_positive_and_finite_for_every_code(scale):
    for model in every_model():
        if model.get("code"):
            parse_code(model["code"])
        config = run_config(task="mqar", kv_pairs=4, vocab_size=64, lr=1e-2, max_steps=1000, **scale, **model)
        seconds = step_seconds_of(config)
        assert math.isfinite(seconds) and seconds > 0, (model, seconds)
        assert math.isfinite(grid_cost_s([config])) and grid_cost_s([config]) > 0


def test_a_longer_budget_costs_proportionally_more():
    config = next(iter(cells(CPU_SPECS["tau"]))).config
    longer = dataclasses.replace(config, optim=dataclasses.replace(config.optim, max_steps=2000))
    assert grid_cost_s([longer]) == pytest.approx(2 * grid_cost_s([config]))

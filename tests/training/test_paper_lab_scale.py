"""The paper lab's scales: the 3-seed CPU grids, the paper-scale grids (§3's lengths, widths, learning rates), the
grid options a researcher needs (device, vocabulary, no step cap), and the cost said before a grid runs."""
import dataclasses

import pytest

from lcsm_core.paper_lab import ABLATIONS, CPU_SPECS, DEFAULT_SPECS, GridCost, GridSpec, cells, grid_cost, paper_specs
from lcsm_core.paper_lab.scale import PAPER_LRS
from lcsm_serving import RunStore


@pytest.mark.parametrize("ablation", list(ABLATIONS))
def test_paper_scale_grids_are_the_papers_setup(ablation):
    specs = paper_specs(ablation)
    assert [s.d_model for s in specs] == [64, 128, 256, 512] and {s.expand_dim for s in specs} == {128}
    for spec in specs:
        assert spec.seq_lens == (32, 64, 128, 256) and spec.lrs == PAPER_LRS and len(spec.lrs) == 7
        assert spec.seeds == (0, 1, 2) and spec.device == "cuda" and spec.steps >= 20_000
    assert specs[0].cell_count == len(ABLATIONS[ablation].entries) * 4 * 7 * 3


def test_the_cpu_grids_are_the_default_ones_with_three_seeds():
    assert CPU_SPECS is DEFAULT_SPECS                                             # one source of the numbers
    for name, spec in DEFAULT_SPECS.items():
        assert spec.ablation == name and spec.seeds == (0, 1, 2) and spec.lrs == (1e-2,)
        assert (spec.d_model, spec.expand_dim, spec.seq_lens, spec.steps) == (32, 32, (32,), 1000)


def test_grid_options_reach_every_cell_and_the_budget_has_no_cap():
    spec = GridSpec(ablation="tau", vocab_size=128, device="cuda", steps=200_000)
    for cell in cells(spec):
        assert cell.config.task.vocab_size == 128 and cell.config.optim.device == "cuda"
        assert cell.config.optim.max_steps == 200_000 and cell.config.model.form == "auto"
        assert cell.config.optim.max_seconds >= 200_000 * 10                       # never cut short by the clock


def test_grids_named_before_the_new_options_keep_their_ids():
    assert GridSpec().grid_id == "data_dependence-982f82d7da"                     # stored runs stay found
    assert dataclasses.replace(GridSpec(), vocab_size=128).grid_id != GridSpec().grid_id
    assert dataclasses.replace(GridSpec(), device="cuda").grid_id != GridSpec().grid_id


def test_the_cost_multiplies_cells_steps_and_rates_and_says_them():
    spec = GridSpec(ablation="parameterization", seq_lens=(32, 64), lrs=(1e-3, 1e-2), seeds=(0, 1, 2), steps=1000)
    rates = {(label, T): 0.01 * T for label in ABLATIONS["parameterization"].labels for T in (32, 64)}
    total = 3 * 6 * 1000 * (0.32 + 0.64)                                       # 3 entries, 6 runs each per length
    cost = GridCost(spec, rates, total)
    assert "36 cells × 1000 steps × the cost model's CPU-s/step (T=32 0.32 s (≤ 0.32), T=64 0.64 s" in str(cost)
    assert "≈ 4.8 CPU-hours, what admission charges" in str(cost) and "GPU" not in str(cost)
    on_gpu = GridCost(dataclasses.replace(spec, device="cuda"), rates, total, {k: r / 100 for k, r in rates.items()},
                      "NVIDIA H200")
    assert on_gpu.gpu_seconds == pytest.approx(total / 100)
    assert str(on_gpu).endswith(f"measured on NVIDIA H200: T=32 0.0032 s (≤ 0.0032), T=64 0.0064 s (≤ 0.0064) ≈ "
                                f"{total / 100 / 3600:.2f} GPU-hours")


def test_a_small_grid_is_said_in_cpu_minutes_not_zero_hours():
    cost = GridCost(DEFAULT_SPECS["parameterization"], {("1-1-1-0", 32): 0.02}, 180.0)
    assert "≈ 3 CPU-minutes (0.05 CPU-hours)" in str(cost)


def test_a_tiny_grid_has_a_rate_per_entry_and_length():
    spec = GridSpec(ablation="parameterization", seq_lens=(16,), kv_pairs=2, d_model=8, expand_dim=8, lrs=(1e-2,),
                    batch_size=4, seeds=(0, 1, 2), steps=10)
    cost = grid_cost(spec)
    assert set(cost.seconds_per_step) == {(label, 16) for label in ABLATIONS["parameterization"].labels}
    assert all(s > 0 for s in cost.seconds_per_step.values()) and cost.gpu_seconds_per_step is None


def test_the_cli_picks_the_scale_and_lays_flags_over_it():
    from lcsm_serving.paper_lab.cli import parse_args, specs_from_args
    paper = specs_from_args(parse_args(["--grid", "tau", "--scale", "paper", "--d-model", "128"]))
    assert [(s.d_model, s.device, s.seq_lens) for s in paper] == [(128, "cuda", (32, 64, 128, 256))]
    assert len(specs_from_args(parse_args(["--grid", "tau", "--scale", "paper", "--device", "cpu"]))) == 4
    cpu = specs_from_args(parse_args(["--grid", "tau", "--scale", "cpu", "--vocab-size", "128", "--steps", "50000"]))
    assert [(s.seeds, s.vocab_size, s.steps) for s in cpu] == [((0, 1, 2), 128, 50_000)]
    assert specs_from_args(parse_args(["--grid", "tau"])) == [DEFAULT_SPECS["tau"]]
    assert specs_from_args(parse_args(["--grid", "tau", "--scale", "cpu"])) == [DEFAULT_SPECS["tau"]]


def test_a_grid_says_how_it_differs_from_the_paper():
    from lcsm_core.paper_lab.scale import differences_from_paper
    shipped = "\n".join(differences_from_paper(DEFAULT_SPECS["tau"]))
    assert "d = 32, k = 32" in shipped and "vocabulary of 64" in shipped
    assert "3 seeds per cell: too few for a verdict, which needs 5 per entry" in shipped
    assert "the best of 1 learning rate(s) 0.01" in shipped and "1e-05 … 0.01" in shipped
    one_seed = "\n".join(differences_from_paper(dataclasses.replace(DEFAULT_SPECS["tau"], seeds=(0,))))
    assert "1 seed per cell: too few for a verdict, which needs 5" in one_seed
    paper = "\n".join(differences_from_paper(paper_specs("tau")[0]))
    assert "3 seeds per cell" in paper and "sequence lengths 32, 64, 128, 256" in paper and "cuda" in paper


def test_the_paper_scale_grid_prints_its_cost_before_anything_runs(tmp_path, capsys):
    """`--scale paper --cost-only`: one cost line per width (cells × steps × the cost model's s/step → hours: what
    admission would charge the same cells), and nothing runs."""
    from lcsm_core.training.cost import grid_cost_s
    from lcsm_serving.paper_lab import cli
    db = tmp_path / "p.sqlite"
    assert cli.main(["--grid", "tau", "--scale", "paper", "--device", "cpu", "--cost-only", "--db", str(db)]) == 0
    out = capsys.readouterr()
    costs = [line for line in out.err.splitlines() if line.startswith("cost: ")]
    specs = paper_specs("tau", device="cpu")
    hours = [grid_cost_s(c.config for c in cells(spec)) / 3600 for spec in specs]
    assert len(costs) == 4 and all("588 cells × 20000 steps" in c and f"≈ {h:,.1f} CPU-hours" in c
                                   for c, h in zip(costs, hours))
    assert out.out == "" and (not db.exists() or RunStore(db).list_runs() == [])


def test_the_paper_scale_grid_on_a_gpu_says_cpu_hours_only_without_one(tmp_path, capsys):
    import torch

    from lcsm_serving.paper_lab import cli
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the cost is measured")
    assert cli.main(["--grid", "oscillation", "--scale", "paper", "--cost-only", "--db", str(tmp_path / "g")]) == 0
    costs = [line for line in capsys.readouterr().err.splitlines() if line.startswith("cost: ")]
    assert len(costs) == 4 and all("1008 cells × 20000 steps" in c and c.endswith(
        "no GPU here to measure its GPU seconds per step: CPU-hours only") and "GPU-hours" not in c for c in costs)


def test_a_gpu_grid_on_a_machine_with_a_gpu_gets_its_measured_gpu_hours_beside_the_cpu_hours(monkeypatch):
    """Where a GPU is, its measured seconds per step give GPU-hours (the measuring is faked: no GPU here); the
    CPU-hours stay the cost model's, what admission charges."""
    import torch

    from lcsm_core.paper_lab import scale
    from lcsm_core.training.cost import grid_cost_s
    measured = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(scale, "measure_config_step_seconds",
                        lambda config, steps: measured.append(config.optim.device) or (0.002, "cuda (NVIDIA H200)"))
    spec = dataclasses.replace(DEFAULT_SPECS["tau"], device="cuda")
    cost = grid_cost(spec)
    assert measured == ["cuda"] * len(ABLATIONS["tau"].entries)                  # one measurement per entry
    assert cost.gpu == "NVIDIA H200" and cost.gpu_seconds == pytest.approx(21 * 1000 * 0.002)
    assert cost.cpu_seconds == grid_cost_s(c.config for c in cells(spec))
    assert str(cost).endswith(f"measured on NVIDIA H200: T=32 0.002 s (≤ 0.002) ≈ {21 * 2 / 3600:.2f} GPU-hours")

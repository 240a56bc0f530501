"""python -m lcsm_serving.paper_lab: one JSON line per cell and a summary line with the claim; a second call
resumes (runs nothing); bad flags give one line and exit 2; Ray runs the same grid (local instance)."""
import json
import subprocess
import sys

import pytest

from lcsm_core.paper_lab import ABLATIONS, GridSpec
from lcsm_serving import RunStore
from lcsm_serving.paper_lab import GridRunner
from lcsm_serving.paper_lab.cli import run_grid

TINY = ["--seq-lens", "16", "--kv-pairs", "2", "--d-model", "8", "--expand-dim", "8", "--lrs", "0.01",
        "--steps", "3", "--batch-size", "4", "--seeds", "0"]          # one seed: the default grid has three


def run_cli(args, env, timeout=240):
    return subprocess.run([sys.executable, "-m", "lcsm_serving.paper_lab", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.strip().splitlines()]


def test_a_grid_prints_its_cells_and_a_summary_then_resumes(tmp_path, subprocess_env):
    db = tmp_path / "lab.sqlite"
    first = run_cli(["--grid", "parameterization", *TINY, "--workers", "2", "--db", str(db)], subprocess_env)
    assert first.returncode == 0, first.stderr
    *cell_lines, summary = lines(first.stdout)
    assert sorted(c["code"] for c in cell_lines) == ["0", "1-1-1-0", "variant:mamba"]
    assert all(c["ran_now"] and c["status"] == "completed" and c["steps"] == 3 for c in cell_lines)
    assert summary["claim"] == ABLATIONS["parameterization"].claim and summary["outcome"] == "inconclusive"
    assert summary["ran_now"] == 3 and summary["cells"] == 3
    assert set(summary["accuracy"]) == set(summary["spread"]) == {"0 as DSS", "0 as selective SSM", "1-1-1-0"}
    assert summary["spread"]["1-1-1-0"]["16"]["seeds"] == 1 and "cannot show" in summary["lr_note"]
    assert [r["reading"].split(" (")[0] for r in summary["readings"]] == ["DSS bank", "Mamba-style selective SSM"]
    assert "3/3 cells" in first.stderr                                  # the progress bar
    assert "cost: parameterization-" in first.stderr and "CPU-seconds" in first.stderr   # said before it ran

    again = run_cli(["--grid", "parameterization", *TINY, "--db", str(db)], subprocess_env)
    assert again.returncode == 0, again.stderr
    *cell_lines, summary = lines(again.stdout)
    assert [c["ran_now"] for c in cell_lines] == [False] * 3 and summary["ran_now"] == 0
    assert len(RunStore(db).list_runs()) == 3                           # nothing was run twice


@pytest.mark.parametrize("flags,message", [
    (["--grid", "parameterization", "--steps", "0"], "steps"),
    (["--grid", "parameterization", "--seq-lens", "31"], "seq_len"),
    (["--grid", "tau", "--seeds", "0", "0"], "seeds"),
    (["--grid", "tau", "--ray", "auto", "--cpus-per-cell", "0"], "CPU"),
])
def test_bad_flags_give_one_line_and_exit_2(tmp_path, subprocess_env, flags, message):
    out = run_cli([*flags, "--db", str(tmp_path / "x.sqlite")], subprocess_env, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error:") and message in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "x.sqlite").exists() or RunStore(tmp_path / "x.sqlite").list_runs() == []


@pytest.mark.slow
def test_ray_runs_the_grid_on_a_local_instance(tmp_path, local_ray):
    runner = GridRunner(tmp_path / "ray.sqlite", ray_address="auto")
    spec = GridSpec(ablation="parameterization", seq_lens=(16,), kv_pairs=2, d_model=8, expand_dim=8,
                    lrs=(1e-2,), steps=3, batch_size=4)
    out = tmp_path / "out.txt"
    with out.open("w") as f:
        summary, results = run_grid(spec, runner, out=f)
    assert summary["ran_now"] == 3 and summary["held"] in (True, False) and len(results) == 3
    assert {r.status for r in RunStore(runner.db_path).list_runs()} == {"completed"}
    assert runner.where.startswith("Ray at auto (1 CPU(s) and 0 GPU(s) per cell")


@pytest.mark.slow
def test_the_cli_runs_a_grid_on_a_ray_address_asking_for_zero_gpus(tmp_path, local_ray, subprocess_env):
    """python -m lcsm_serving.paper_lab --grid data_dependence --ray ADDRESS --gpus-per-cell 0: the GPU request path
    on a CPU-only local instance (a tiny grid: seconds)."""
    address = local_ray.get_runtime_context().gcs_address
    out = run_cli(["--grid", "data_dependence", *TINY, "--ray", address, "--gpus-per-cell", "0",
                   "--cpus-per-cell", "1", "--db", str(tmp_path / "ray.sqlite")], subprocess_env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    *cell_lines, summary = lines(out.stdout)
    assert len(cell_lines) == 8 and {c["status"] for c in cell_lines} == {"completed"}
    assert summary["cells"] == 8 and summary["outcome"] == "inconclusive"      # one seed decides nothing
    assert f"Ray at {address} (1 CPU(s) and 0 GPU(s) per cell)" in out.stderr


def test_cost_only_prints_the_cost_models_cost_and_runs_nothing(tmp_path, subprocess_env):
    db = tmp_path / "c.sqlite"
    out = run_cli(["--grid", "tau", *TINY, "--seeds", "0", "1", "2", "--cost-only", "--db", str(db)], subprocess_env)
    assert out.returncode == 0 and out.stdout == "", out.stderr
    assert "21 cells × 3 steps × the cost model's CPU-s/step (T=16" in out.stderr and "CPU-seconds" in out.stderr
    assert "on this machine (its reference step takes ×" in out.stderr        # what the model's seconds take here
    assert not db.exists() or RunStore(db).list_runs() == []


def test_ship_writes_a_results_file_that_loads_back(tmp_path, monkeypatch, capsys):
    from lcsm_core.paper_lab import results
    from lcsm_serving.paper_lab import cli
    monkeypatch.setattr(results, "SHIPPED_DIR", tmp_path / "shipped")
    assert cli.main(["--grid", "parameterization", *TINY, "--workers", "1", "--db", str(tmp_path / "s.sqlite"),
                     "--ship", "--conditions", "while a benchmark ran"]) == 0
    shipped = results.load_shipped("parameterization")
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert shipped.spec.grid_id == summary["summary"] and len(shipped.results) == 3
    assert results.is_complete(shipped.spec, shipped.results) and shipped.workers == 1
    assert {r.source for r in shipped.results} == {"shipped"} and "core CPU" in shipped.device
    assert shipped.conditions == "while a benchmark ran" and shipped.time_said().endswith("while a benchmark ran")
    # each cell carries what its numbers depend on beyond its config: one thread, deterministic, the form it ran
    assert all(r.numerics["threads"] == 1 and r.numerics["deterministic"] and r.numerics["form"]
               for r in shipped.results)


def test_a_gpu_grid_asked_from_a_cpu_machine_says_its_cost_in_cpu_hours_only(tmp_path, subprocess_env):
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the cost is measured")
    out = run_cli(["--grid", "tau", *TINY, "--device", "cuda", "--ray", "127.0.0.1:1", "--cost-only",
                   "--db", str(tmp_path / "g.sqlite")], subprocess_env)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "CPU-hours only" in out.stderr and "--gpus-per-cell 1" in out.stderr

"""python -m lcsm_core.paper_lab: one JSON line per cell and a summary line with the claim; a second call
resumes (runs nothing); bad flags give one line and exit 2; Ray runs the same grid (local instance)."""
import json
import subprocess
import sys

import pytest

from lcsm_core.paper_lab import ABLATIONS, GridRunner, GridSpec
from lcsm_core.paper_lab.cli import run_grid
from lcsm_core.training import RunStore

TINY = ["--seq-lens", "16", "--kv-pairs", "2", "--d-model", "8", "--expand-dim", "8", "--lrs", "0.01",
        "--steps", "3", "--batch-size", "4"]


def run_cli(args, env, timeout=240):
    return subprocess.run([sys.executable, "-m", "lcsm_core.paper_lab", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.strip().splitlines()]


def test_a_grid_prints_its_cells_and_a_summary_then_resumes(tmp_path, subprocess_env):
    db = tmp_path / "lab.sqlite"
    first = run_cli(["--grid", "parameterization", *TINY, "--workers", "2", "--db", str(db)], subprocess_env)
    assert first.returncode == 0, first.stderr
    *cell_lines, summary = lines(first.stdout)
    assert sorted(c["code"] for c in cell_lines) == ["0", "1-1-1-0"]
    assert all(c["ran_now"] and c["status"] == "completed" and c["steps"] == 3 for c in cell_lines)
    assert summary["claim"] == ABLATIONS["parameterization"].claim and summary["held"] in (True, False)
    assert summary["ran_now"] == 2 and summary["cells"] == 2 and set(summary["accuracy"]) == {"0", "1-1-1-0"}
    assert "2/2 cells" in first.stderr                                  # the progress bar

    again = run_cli(["--grid", "parameterization", *TINY, "--db", str(db)], subprocess_env)
    assert again.returncode == 0, again.stderr
    *cell_lines, summary = lines(again.stdout)
    assert [c["ran_now"] for c in cell_lines] == [False, False] and summary["ran_now"] == 0
    assert len(RunStore(db).list_runs()) == 2                           # nothing was run twice


@pytest.mark.parametrize("flags,message", [
    (["--grid", "parameterization", "--steps", "0"], "steps"),
    (["--grid", "parameterization", "--seq-lens", "31"], "seq_len"),
    (["--grid", "tau", "--seeds", "0", "0"], "seeds"),
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
    assert summary["ran_now"] == 2 and summary["held"] in (True, False) and len(results) == 2
    assert {r.status for r in RunStore(runner.db_path).list_runs()} == {"completed"}
    assert runner.where == "Ray at auto"


def test_ship_writes_a_results_file_that_loads_back(tmp_path, monkeypatch, capsys):
    from lcsm_core.paper_lab import cli, results
    monkeypatch.setattr(results, "SHIPPED_DIR", tmp_path / "shipped")
    assert cli.main(["--grid", "parameterization", *TINY, "--workers", "1", "--db", str(tmp_path / "s.sqlite"),
                     "--ship"]) == 0
    shipped = results.load_shipped("parameterization")
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert shipped.spec.grid_id == summary["summary"] and len(shipped.results) == 2
    assert results.is_complete(shipped.spec, shipped.results) and shipped.workers == 1
    assert {r.source for r in shipped.results} == {"shipped"} and "core CPU" in shipped.device

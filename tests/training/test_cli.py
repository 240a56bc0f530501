"""The CLI: last stdout line is JSON; a SIGKILLed run is left "interrupted" with its metrics."""
import json
import signal
import subprocess
import sys
import time

import pytest
import torch

from lcsm_core.training import run_config
from lcsm_serving import RunStore
from lcsm_serving.train import config_from_args, parse_args

TINY = ["--task", "mqar", "--variant", "gla", "--seq-len", "16", "--kv-pairs", "2", "--vocab-size", "16",
        "--d-model", "16", "--layers", "1", "--batch-size", "16", "--lr", "0.01", "--device", "cpu"]


def test_the_cli_flags_go_through_the_one_settings_to_config_translation():
    assert config_from_args(parse_args([])) == run_config()
    flags = parse_args(["--task", "selective_copying", "--copy-tokens", "5", "--code", " 1-9-1-0 ", "--d-model", "32"])
    config = config_from_args(flags)
    assert config == run_config(task="selective_copying", copy_tokens=5, code="1-9-1-0", d_model=32)
    assert (config.task.num_tokens, config.model.code, config.model.expand_dim) == (5, "1-9-1-0", 32)


def run_cli(args, env, timeout=120):
    return subprocess.run([sys.executable, "-m", "lcsm_serving.train", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_last_stdout_line_is_one_json_object_and_the_run_is_stored(tmp_path, subprocess_env):
    db = tmp_path / "cli.sqlite"
    out = run_cli([*TINY, "--max-steps", "15", "--max-seconds", "60", "--db", str(db)], subprocess_env)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"run_id", "status", "steps", "wall_s", "test_acc"} <= summary.keys()
    assert summary["status"] == "completed" and summary["steps"] == 15 and 0 <= summary["test_acc"] <= 1
    assert "step 15/" in out.stderr                                  # the progress bar
    row = RunStore(db).get_run(summary["run_id"])
    assert row.status == "completed" and row.steps == 15


def test_bad_input_still_ends_with_a_json_line(tmp_path, subprocess_env):
    out = run_cli([*TINY, "--code", "1-99-1-0", "--db", str(tmp_path / "x.sqlite")], subprocess_env)
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert out.returncode == 2 and summary["status"] == "invalid" and summary["error"]


@pytest.mark.parametrize("flags,message", [(["--device", "cuda"], "CUDA"), (["--form", "kernel"], "kernel")])
def test_an_unavailable_device_or_form_is_refused_in_one_line_before_a_run_exists(tmp_path, subprocess_env,
                                                                                  flags, message):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: both are available")
    subprocess_env.pop("TRITON_INTERPRET", None)
    db = tmp_path / "x.sqlite"
    out = run_cli([*TINY, *flags, "--db", str(db)], subprocess_env)
    [line] = out.stdout.strip().splitlines()
    summary = json.loads(line)
    assert out.returncode == 2 and summary["status"] == "invalid" and message in summary["error"]
    assert "Traceback" not in out.stderr and out.stderr.strip() == ""
    assert not db.exists() or RunStore(db).list_runs() == []


def test_a_killed_training_process_leaves_an_interrupted_run_with_its_metrics(tmp_path, subprocess_env):
    db = tmp_path / "kill.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "lcsm_serving.train", *TINY, "--max-steps", "100000",
                             "--max-seconds", "300", "--no-progress", "--db", str(db)], env=subprocess_env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        steps = 0
        while time.monotonic() < deadline and steps < 5:
            time.sleep(0.3)
            if db.exists():
                runs = RunStore(db).list_runs()
                steps = runs[0].steps if runs else 0
        assert steps >= 5, "training never got going"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    store = RunStore(db)
    [run] = store.list_runs()
    metrics = store.metrics(run.id)
    assert run.status == "interrupted" and run.ended_at is not None
    assert len(metrics["step"]) >= 5 and metrics["step"].max() >= run.steps
    assert store.integrity_ok()

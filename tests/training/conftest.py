import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def subprocess_env(tmp_path):
    """Environment for a child python: repo importable, data dir in tmp, one torch thread."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["LCSM_DATA_DIR"] = str(tmp_path / "data")
    env["OMP_NUM_THREADS"] = "1"
    return env

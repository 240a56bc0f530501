import os
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def subprocess_env(tmp_path):
    """Environment for a child python: repo importable, data dir in tmp, one torch thread."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["LCSM_DATA_DIR"] = str(tmp_path / "data")
    env["OMP_NUM_THREADS"] = "1"
    return env


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Tiny models on a shared CPU: one thread (extra ones spin); restored afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)

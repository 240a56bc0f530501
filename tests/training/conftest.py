import os
from pathlib import Path

import pytest

from tests.training.standin import install

ROOT = Path(__file__).resolve().parents[2]
STANDIN_INSTALLED = install()


@pytest.fixture
def subprocess_env(tmp_path):
    """Environment for a child python: repo importable, data dir in tmp, stand-in registry if needed."""
    env = dict(os.environ)
    paths = [str(ROOT)] + ([str(ROOT / "tests" / "training" / "standin_site")] if STANDIN_INSTALLED else [])
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")])
    env["LCSM_DATA_DIR"] = str(tmp_path / "data")
    env["OMP_NUM_THREADS"] = "1"
    return env

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


@pytest.fixture
def local_ray(monkeypatch):
    """Ray on loopback with two CPUs for one test (runs and grids placed with `ray_address="auto"`); shut down after."""
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_TOKEN"):    # a local instance asks no token
        monkeypatch.delenv(name, raising=False)
    for attempt in (1, 2):       # on a loaded machine Ray's own start may time out reaching its GCS: once more
        try:
            # address="local": a new instance of its own, never the token-guarded cluster another test process
            # may have started on this machine with `ray start` (ray.init() would join that one)
            ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                     _node_ip_address="127.0.0.1")
            break
        except RuntimeError as why:
            ray.shutdown()
            if attempt == 2 or "GCS" not in str(why):
                raise
    yield ray
    ray.shutdown()

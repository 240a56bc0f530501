"""Start the app as the README does (app/serve.py: the app behind its host guard), on a free port, for the
real-browser tests and tests/app/test_host_guard.py — through the one starter, benchmarks/app_process.py."""
import contextlib
from pathlib import Path

import pytest

from benchmarks.app_process import BROWSER_ARGS, CHROMIUM, AppServer

__all__ = ["BROWSER_ARGS", "CHROMIUM", "ROOT", "needs_chromium", "running_app"]
ROOT = Path(__file__).resolve().parents[2]
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs chromium on PATH (bash scripts/install.sh --tests)")


@contextlib.contextmanager
def running_app(data_dir: Path, log_path: Path | None = None):
    """Yields the app's base URL once /_stcore/health answers; runs are stored under `data_dir`."""
    server = AppServer(data_dir, log_path)
    try:
        server.start(timeout_s=60)
    except RuntimeError as why:
        pytest.fail(str(why))
    try:
        yield server.url
    finally:
        server.stop()

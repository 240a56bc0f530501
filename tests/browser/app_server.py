"""Start the app as the README does (app/serve.py: the app behind its host guard), on a free port, for the
real-browser tests and tests/app/test_host_guard.py — through the one starter, benchmarks/app_process.py."""
import contextlib
import os
import time
from pathlib import Path

import pytest

from benchmarks.app_process import BROWSER_ARGS, CHROMIUM, AppServer, wait_idle

__all__ = ["BROWSER_ARGS", "CHROMIUM", "FULL_SHOTS", "IN_CI", "ROOT", "draw_a_frame", "needs_chromium", "progress_now",
           "running_app", "wait_healthy", "wait_idle"]
ROOT = Path(__file__).resolve().parents[2]
# Under CI=true (scripts/test.sh installs them) a browser test that finds no chromium fails instead of skipping.
IN_CI = os.environ.get("CI") == "true"
CHROMIUM_MISSING = "needs chromium on PATH (bash scripts/install.sh --tests --system-packages, as root)"
needs_chromium = pytest.mark.skipif(CHROMIUM is None and not IN_CI, reason=CHROMIUM_MISSING)
# LCSM_FULL_SHOTS=1: the screenshots for looking at show whole pages (a window as tall as the page: slow to draw),
# else one screen each
FULL_SHOTS = os.environ.get("LCSM_FULL_SHOTS") == "1"


@contextlib.contextmanager
def running_app(data_dir: Path, log_path: Path | None = None):
    """Yields the app's base URL once /_stcore/health answers; runs are stored under `data_dir`.

    The server never sheds previews for load here (LCSM_PREVIEW_MAX_LOAD): CI's two test processes, each with a
    browser and a server, pass the default bound (2 × cores) and a page drawn without its drag preview failed
    the tests that look at it. Shedding itself is tested in tests/app/test_preview_pool.py."""
    server = AppServer(data_dir, log_path, env={"LCSM_PREVIEW_MAX_LOAD": "1e9"})
    try:
        server.start(timeout_s=60)
    except RuntimeError as why:
        pytest.fail(str(why))
    try:
        yield server.url
    finally:
        server.stop()


def wait_healthy(url: str, server, log: Path, timeout: float) -> None:
    """Until the app at `url` (http or https) answers its health check; fails with the log's end when the server
    process exits first or the time runs out."""
    from lcsm_explorer.app.web_tier import health_ok
    deadline = time.monotonic() + timeout
    while not health_ok(url):
        assert server.poll() is None, log.read_text()[-3000:]
        assert time.monotonic() < deadline, f"no answer on {url}: {log.read_text()[-3000:]}"
        time.sleep(0.5)


def draw_a_frame(page, timeout_s: float = 120.0) -> None:
    """Headless chromium draws, and sends what a page queued, on a frame: a one-pixel screenshot asks for one without
    encoding the page (a whole page's shot costs seconds of a loaded machine's time at every poll)."""
    page.screenshot(clip={"x": 0, "y": 0, "width": 1, "height": 1}, timeout=timeout_s * 1000)


PROGRESS_NOW = """() => {
    const bar = document.querySelector('[data-testid="stProgress"] [role="progressbar"]');
    return bar ? bar.getAttribute('aria-valuenow') : null }"""


def progress_now(page) -> str | None:
    """The first progress bar's aria-valuenow as a screen reader reads it (None where no bar shows), read in one
    page call: a bar found by one call may be gone by the next (its run or grid ended between them)."""
    return page.evaluate(PROGRESS_NOW)

"""The app starts and draws every page on a Streamlit it was not pinned to: the previous minor, whose private
internals differ from the pinned one's (its script runner's events have no run descriptor, so the batching of
app/kit/internals/script_events.py cannot be installed there). The start-up self-check logs its one fallback line
and every page, Home first, draws in chromium without an exception.

That Streamlit is installed by pip into a scratch venv made with --system-site-packages, which sees the project's
venv through a .pth file (torch, plotly and the rest are not installed again; the scratch venv's own Streamlit
comes first on its path). It is kept under the temp directory by version, so a rerun starts at once. Skipped, with
the reason printed, where pip cannot install it (no network, no package index)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from benchmarks.app_process import AppServer
from lcsm_explorer.app.kit.internals.self_check import FALLBACK_LINE
from lcsm_explorer.app.lessons import PAGES
from tests.browser.app_server import ROOT, needs_chromium, wait_idle

OTHER_STREAMLIT = "1.66"
VENV = Path(tempfile.gettempdir()) / "lcsm-other-streamlit" / OTHER_STREAMLIT
READY = VENV / "lcsm-ready"              # written once the venv holds that Streamlit
SHOTS = ROOT / "tests" / "screenshots"
LOG = SHOTS / f"app-server-streamlit-{OTHER_STREAMLIT}.log"

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_chromium, pytest.mark.xdist_group("other_streamlit")]


def skip(reason: str):
    print(f"\nskipped: {reason}")
    pytest.skip(reason)


def venv_python() -> Path:
    """The scratch venv's python, with Streamlit OTHER_STREAMLIT.* installed (made or reused)."""
    python = VENV / "bin" / "python"
    if READY.exists() and python.exists():
        return python
    shutil.rmtree(VENV, ignore_errors=True)
    VENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(VENV)], check=True, timeout=300)
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    found = subprocess.run([str(python), "-c", "import sys; print('\\n'.join(sys.path))"], capture_output=True,
                           text=True, check=True).stdout.split("\n")
    if not ours <= set(found):       # a venv's --system-site-packages is its base interpreter's, not this venv's
        site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        (Path(site) / "lcsm_project_venv.pth").write_text("\n".join(sorted(ours)) + "\n")
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                              f"streamlit=={OTHER_STREAMLIT}.*"], capture_output=True, text=True, timeout=900)
    if install.returncode != 0:
        shutil.rmtree(VENV, ignore_errors=True)
        skip(f"pip could not install streamlit=={OTHER_STREAMLIT}.*: {(install.stderr or install.stdout)[-300:]}")
    READY.write_text("")
    return python


def test_the_venv_runs_the_other_streamlit_over_the_project_packages():
    python = venv_python()
    versions = subprocess.run([str(python), "-c", "import plotly, streamlit, torch; print(streamlit.__version__)"],
                              capture_output=True, text=True, check=True).stdout.strip()
    assert versions.startswith(OTHER_STREAMLIT + "."), versions


@pytest.fixture(scope="module")
def other_app(tmp_path_factory):
    python = venv_python()
    SHOTS.mkdir(parents=True, exist_ok=True)
    LOG.write_text("")
    server = AppServer(tmp_path_factory.mktemp("data"), LOG, env={"LCSM_PREVIEW_MAX_LOAD": "1e9"},
                       python=str(python))
    try:
        server.start(timeout_s=180)
    except RuntimeError as why:
        pytest.fail(f"{why}\n{LOG.read_text()[-3000:]}")
    try:
        yield server.url
    finally:
        server.stop()


def test_every_page_draws_on_the_other_streamlit(other_app, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        for path in ("", *PAGES):
            page.goto(f"{other_app}/{path}")
            page.wait_for_selector("h1", timeout=120_000)
            wait_idle(page, timeout=180)
            errors = page.locator('[data-testid="stException"]')
            assert errors.count() == 0, f"/{path}: {errors.first.inner_text()[:500]}"
            page.screenshot(path=str(SHOTS / f"streamlit-{OTHER_STREAMLIT}-{path or 'home'}.png"))
    finally:
        page.close()
    log = LOG.read_text()
    assert "Traceback" not in log, log[-3000:]
    fallback = [line for line in log.splitlines() if FALLBACK_LINE in line]
    assert len(fallback) == 1 and "batched script events" in fallback[0], log[-3000:]

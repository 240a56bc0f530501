"""Real browser: the Train live page polls its run (st.fragment(run_every=...)), which AppTest cannot show.
Press play with a tiny config from the link, watch the steps metric grow without touching the page,
pause, reload: the same run is shown, paused."""
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TINY = "d_model=8&k=8&seq_len=16&vocab=16&kv_pairs=2&batch=8&layers=1&budget=120"

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def app_url(tmp_path):
    port = free_port()
    env = dict(os.environ, LCSM_DATA_DIR=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app/streamlit_app.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail("streamlit did not answer /_stcore/health within 60 s")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def steps_shown(page) -> int:
    values = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
    return int(values[0]) if values and values[0].isdigit() else -1


def wait_until(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return False


def test_the_page_polls_a_running_run_and_a_reload_shows_it(app_url):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{app_url}/train_live?{TINY}")
            play = page.get_by_role("button", name="▶ Play")
            play.wait_for(timeout=60_000)
            play.click()
            assert wait_until(lambda: steps_shown(page) > 0)
            first = steps_shown(page)
            assert wait_until(lambda: steps_shown(page) > first)          # moved with no user action: polling
            assert page.locator('[data-testid="stException"]').count() == 0
            page.get_by_role("button", name="⏸ Pause").click()
            assert wait_until(lambda: "status paused" in page.get_by_text("status").first.inner_text())
            paused_at = steps_shown(page)
            assert "run=" in page.url
            page.reload()
            assert wait_until(lambda: steps_shown(page) == paused_at)    # same run after a reload
            page.get_by_role("button", name="↺ Reset").click()
        finally:
            browser.close()

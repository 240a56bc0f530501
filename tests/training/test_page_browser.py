"""Real browser: the Train live page polls its run (st.fragment(run_every=...)), which AppTest cannot show.
Press play with a tiny config from the link, watch the steps metric and the progress bar grow without touching
the page, pause, reload: the same run is shown, paused, and still this tab's. A second browser (its own context, as
another student's) opens the run's share link: it sees the run read-only and cannot stop it. A backup taken while
the server runs, restored on a new server, shows the run to its owner, who plays it on."""
import time

import pytest

from tests.browser.app_server import BROWSER_ARGS as ARGS
from tests.browser.app_server import CHROMIUM, needs_chromium, progress_now, running_app

TINY = "d_model=8&k=8&seq_len=16&vocab=16&kv_pairs=2&batch=8&layers=1&steps=5000"

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              needs_chromium]


@pytest.fixture
def app_url(tmp_path):
    with running_app(tmp_path) as url:
        yield url


def steps_shown(page) -> int:
    values = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
    return int(values[0]) if values and values[0].isdigit() else -1


def settled_steps(page, quiet_s: float = 2.0, timeout: float = 30.0) -> int:
    """The steps metric once it has held one value for `quiet_s`: the status line and the metrics are separate
    elements, and a loaded browser may show the new status beside the previous poll's step count."""
    deadline = time.monotonic() + timeout
    last, since = steps_shown(page), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = steps_shown(page)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            break
    return last


def bar_shown(page) -> float:
    """The run's progress bar, as a screen reader reads it (its aria-valuenow; -1 where none shows)."""
    now = progress_now(page)
    return -1.0 if now is None else float(now or -1)


def wait_until(predicate, timeout=90.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return False


def test_the_page_polls_a_running_run_and_a_reload_shows_it(app_url):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{app_url}/train_live?{TINY}")
            play = page.get_by_role("button", name="▶ Play")
            play.wait_for(timeout=60_000)
            play.click()
            assert wait_until(lambda: steps_shown(page) > 0)
            first = steps_shown(page)
            assert wait_until(lambda: steps_shown(page) > first)          # moved with no user action: polling
            moved = bar_shown(page)
            assert wait_until(lambda: bar_shown(page) > moved), moved       # and its progress bar with it
            assert page.locator('[data-testid="stException"]').count() == 0
            page.get_by_role("button", name="⏸ Pause").click()
            assert wait_until(lambda: "status paused" in page.get_by_text("status").first.inner_text())
            paused_at = settled_steps(page)
            assert "run=" in page.url and "owner=" in page.url
            page.reload()
            assert wait_until(lambda: steps_shown(page) == paused_at), (paused_at, steps_shown(page))   # same run
            assert page.get_by_text("Your run").count() == 1
            assert page.get_by_role("button", name="⏸ Pause").is_enabled()   # still this tab's to drive

            share = page.locator('[data-testid="stCode"]').filter(has_text="run=").first.inner_text().strip()
            assert "run=" in share and "owner=" not in share
            other = browser.new_context().new_page()
            other.goto(share)
            assert wait_until(lambda: steps_shown(other) == paused_at), (paused_at, steps_shown(other))
            assert other.get_by_text("read-only").count() >= 1
            assert other.get_by_role("button", name="⏸ Pause").is_disabled()
            other.get_by_role("button", name="↺ Reset").click()             # clears the viewer's page only
            time.sleep(2)
            page.reload()
            assert wait_until(lambda: steps_shown(page) == paused_at), (paused_at, steps_shown(page))
            assert "status paused" in page.get_by_text("status").first.inner_text()
            page.get_by_role("button", name="↺ Reset").click()
        finally:
            browser.close()


def test_a_restored_backup_shows_the_run_and_its_owner_still_drives_it(tmp_path):
    """`lcsm-explorer backup` taken while the server runs (the paused run's checkpoint with it); the server
    stopped; a new one started on the copy: the owner's tab (its link) shows the same run, paused where it was,
    and plays it on from that step."""
    import subprocess
    import sys
    sync_api = pytest.importorskip("playwright.sync_api")
    copy = tmp_path / "backup"
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            with running_app(tmp_path / "data") as url:
                page.goto(f"{url}/train_live?{TINY}")
                page.get_by_role("button", name="▶ Play").click(timeout=60_000)
                assert wait_until(lambda: steps_shown(page) > 0)
                page.get_by_role("button", name="⏸ Pause").click()
                assert wait_until(lambda: "status paused" in page.get_by_text("status").first.inner_text())
                paused_at, link = settled_steps(page), page.url.removeprefix(url)
                made = subprocess.run([sys.executable, "-m", "lcsm_explorer", "backup", str(copy), "--data-dir",
                                       str(tmp_path / "data")], capture_output=True, text=True, timeout=120)
                assert made.returncode == 0, made.stderr
            with running_app(copy) as url:                                  # the old server is gone
                page.goto(f"{url}{link}")
                assert wait_until(lambda: steps_shown(page) == paused_at), (paused_at, steps_shown(page))
                assert wait_until(lambda: "status paused" in page.get_by_text("status").first.inner_text())
                assert page.get_by_text("Your run").count() == 1
                page.get_by_role("button", name="▶ Play").click()
                assert wait_until(lambda: steps_shown(page) > paused_at)     # the owner drives it on
                page.get_by_role("button", name="⏸ Pause").click()
                assert page.locator('[data-testid="stException"]').count() == 0
        finally:
            browser.close()

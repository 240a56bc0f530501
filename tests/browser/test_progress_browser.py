"""A grid's progress bar on the Paper lab page moves as its runs end (runs done of the grid's runs, read as a screen
reader reads it), and goes once the grid has finished. (A run's bar: tests/training/test_page_browser.py.)"""
import time

import pytest

from tests.browser.app_server import needs_chromium, progress_now, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_chromium]

# the smallest grid the page offers: SSM parameterization, 2 entries × 2 seeds, 100 steps at T = 32, d = 16
SMALL_GRID = "ablation=parameterization&lengths=32&kv_pairs=2&d_model=16&lrs=0.01&steps=100&seeds=2"
BAR = '[data-testid="stProgress"] [role="progressbar"]'


def test_a_grids_progress_bar_moves_as_its_runs_end(app_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{app_url}/paper_lab?{SMALL_GRID}")
        wait_idle(page, timeout=120)
        page.get_by_role("button", name="Run missing cells").click()
        seen, deadline = [], time.monotonic() + 240
        while time.monotonic() < deadline:
            now = progress_now(page)
            if now is not None:
                value = float(now or 0)
                if not seen or value != seen[-1]:
                    seen.append(value)
            elif seen:
                break                                   # the grid has finished: the bar is gone
            time.sleep(0.3)
        assert len(seen) >= 2 and seen == sorted(seen) and seen[-1] > seen[0], seen
        assert page.locator(BAR).count() == 0 and page.locator('[data-testid="stException"]').count() == 0
    finally:
        page.close()

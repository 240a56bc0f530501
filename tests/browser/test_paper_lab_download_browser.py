"""The paper lab's results download from the page as CSV, one row per cell of the grid on screen."""
import csv
import io
from pathlib import Path

import pytest

from tests.browser.app_server import needs_chromium, wait_idle

pytestmark = [pytest.mark.browser, needs_chromium]


def test_the_grid_on_screen_downloads_as_csv(app_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    try:
        page.goto(f"{app_url}/paper_lab")
        wait_idle(page, timeout=120)
        page.wait_for_timeout(1500)            # the live part's first poll settles
        wait_idle(page, timeout=120)
        with page.expect_download(timeout=45_000) as download:
            page.get_by_role("button", name="Results as CSV").click()
        got = download.value
        rows = list(csv.DictReader(io.StringIO(Path(got.path()).read_text(encoding="utf-8"))))
        assert got.suggested_filename.startswith("paper-lab-") and got.suggested_filename.endswith(".csv")
        assert rows and {"label", "seq_len", "lr", "seed", "best_acc", "source"} <= set(rows[0])
        assert {r["source"] for r in rows} == {"shipped"}
    finally:
        page.close()

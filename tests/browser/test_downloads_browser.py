"""What a learner saves from a page: the paper lab's results as CSV (one row per cell of the grid on screen), a
chart Streamlit draws as SVG and PNG (drawn on the server when clicked), and an instrument chart as SVG and PNG
(drawn by plotly.js in the browser) — each from the chart's "Show the data · SVG · PNG" line, not its tool bar."""
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


def saved(page, button) -> tuple[str, bytes]:
    """The file a click on `button` downloads: its suggested name and its bytes."""
    with page.expect_download(timeout=60_000) as download:
        button.click()
    return download.value.suggested_filename, Path(download.value.path()).read_bytes()


def test_a_streamlit_chart_saves_as_svg_and_png(app_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    try:
        page.goto(f"{app_url}/eos_view")
        wait_idle(page, timeout=120)
        page.get_by_text("Show the data · SVG · PNG").first.click()
        name, svg = saved(page, page.get_by_role("button", name="Save as SVG").first)
        assert name.endswith(".svg") and svg.startswith(b"<svg") and b"</svg>" in svg
        name, png = saved(page, page.get_by_role("button", name="Save as PNG").first)
        assert name.endswith(".png") and png[:8] == b"\x89PNG\r\n\x1a\n"
        assert page.get_by_text("Traceback").count() == 0
    finally:
        page.close()


def test_an_instrument_chart_saves_as_svg_and_png_in_the_browser(app_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    try:
        page.goto(f"{app_url}/spring")
        page.wait_for_selector(".lcsm-instrument[data-drawn]:not(.lcsm-pending) .lcsm-main .js-plotly-plot .main-svg",
                               timeout=120_000)
        wait_idle(page, timeout=120)
        chart = page.locator(".lcsm-main figure.lcsm-chart")
        chart.locator("details.lcsm-data > summary").click()
        name, svg = saved(page, chart.get_by_role("button", name="Save as SVG"))
        assert name.startswith("spring") and name.endswith(".svg") and svg.startswith(b"<svg")
        name, png = saved(page, chart.get_by_role("button", name="Save as PNG"))
        assert name.endswith(".png") and png[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        page.close()

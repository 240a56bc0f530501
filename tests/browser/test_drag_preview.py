"""Real browser: dragging a closed-form page's preview slider (the plotly slider under its swept chart,
`Lesson.sweep`) redraws the curve in the browser alone — no Streamlit rerun, no new value in the URL while
dragging — and releasing it commits the value to the page's own slider and the URL (every chart and readout
following the drag: test_drag_whole_page.py). Screenshots land in tests/screenshots/."""
import time

import pytest

from tests.browser.app_server import BROWSER_ARGS, CHROMIUM, ROOT, needs_chromium, running_app
from tests.browser.test_browser_pages import SCRIPT_STATE, wait_idle

SHOTS = ROOT / "tests" / "screenshots"
PREVIEW = '[data-testid="stPlotlyChart"]:has(.slider-container)'
# the first drawn line of the preview chart (spring: the position x(t)) — what a frame replaces
LINE_D = f"""() => {{ const p = document.querySelector('{PREVIEW} .scatterlayer .trace path.js-line');
                      return p ? p.getAttribute('d') : null }}"""
# the slider's "drag to preview damping c: 0.2" line (plotly draws it as the group's own label)
CURRENT_VALUE = f"() => document.querySelector('{PREVIEW} .slider-group > text.slider-label')?.textContent"

# the lead chart holds frames: the page link adds the family's (sent apart from the chart, once per family)
FRAMES_IN = f"""() => {{ const gd = document.querySelector('{PREVIEW} .js-plotly-plot');
                         return Boolean(gd && gd._transitionData && gd._transitionData._frames.length > 1) }}"""

pytestmark = [pytest.mark.browser, needs_chromium]


def test_dragging_the_spring_preview_redraws_the_curve_without_a_rerun(tmp_path):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with running_app(tmp_path, SHOTS / "drag-server.log") as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            page.goto(f"{url}/spring")
            page.wait_for_selector(f"{PREVIEW} .slider-rail-rect", timeout=90_000)   # the preview is in place
            page.wait_for_function(FRAMES_IN, timeout=30_000)     # and the page link has given it the family's frames
            wait_idle(page)
            page.screenshot(path=str(SHOTS / "spring-preview.png"))
            url_before, line_before = page.url, page.evaluate(LINE_D)
            assert line_before and "0.2" in page.evaluate(CURRENT_VALUE), page.evaluate(CURRENT_VALUE)
            sidebar_c = page.get_by_role("slider", name="damping c")
            c_before = sidebar_c.input_value()                 # an <input type=range>: its value is the setting
            deadline = time.monotonic() + 30                   # a loaded CI box once read -1 (the range's minimum)
            while float(c_before) != 0.2 and time.monotonic() < deadline:   # while the sidebar was still drawn
                time.sleep(0.2)
                c_before = sidebar_c.input_value()
            assert float(c_before) == 0.2, c_before

            rail = page.locator(f"{PREVIEW} .slider-rail-rect").bounding_box()
            grip = page.locator(f"{PREVIEW} .slider-grip-rect").bounding_box()
            y = grip["y"] + grip["height"] / 2
            page.mouse.move(grip["x"] + grip["width"] / 2, y)
            page.mouse.down()
            seen = {line_before}
            for fraction in (0.45, 0.7, 0.95):                  # towards c = 5: ringing → critical → creeping
                page.mouse.move(rail["x"] + fraction * rail["width"], y, steps=6)
                time.sleep(0.3)
                assert page.locator('[data-stale="true"]').count() == 0, "a Streamlit rerun started while dragging"
                assert page.evaluate(SCRIPT_STATE) == "notRunning" and page.url == url_before
                seen.add(page.evaluate(LINE_D))
            page.screenshot(path=str(SHOTS / "spring-preview-dragged.png"))
            page.mouse.up()
            assert len(seen) == 4, "the drawn curve did not change at every drag position"
            assert "5" in page.evaluate(CURRENT_VALUE), page.evaluate(CURRENT_VALUE)

            # the release commits the previewed value to the page's own setting (app.kit.page_link): URL and sidebar
            released = page.evaluate(CURRENT_VALUE).split(":")[-1].strip()
            page.wait_for_function("(c) => new URLSearchParams(location.search).get('c') === c", arg=released,
                                   timeout=60_000)
            wait_idle(page)
            assert float(released) > 4 and float(sidebar_c.input_value()) == float(released), sidebar_c.input_value()
            assert page.locator('[data-testid="stException"]').count() == 0
        finally:
            browser.close()

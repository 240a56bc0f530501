"""Real browser on a phone (390×844): a lesson without a drag preview draws its main chart's controls with the chart
(`app/kit/chart_controls.py`); moving the copy moves the one setting — the URL, the sidebar's slider, the readouts —
and a preset pill applies its preset. Screenshot: tests/screenshots/chart-controls-phone.png."""
import time

import pytest

from benchmarks.accessibility import PHONE
from tests.browser.app_server import ROOT, draw_a_frame, needs_chromium, wait_idle
from tests.browser.test_layouts import open_page

SHOTS = ROOT / "tests" / "screenshots"
pytestmark = [pytest.mark.browser, needs_chromium]

# The value each slider of that label shows (its thumb's number), in the copy and in the sidebar.
SLIDER_VALUES = """(label) => {
  const value = (root) => { if (!root) return null;
    const slider = [...root.querySelectorAll('[data-testid="stSlider"]')]
      .find(s => (s.querySelector('[data-testid="stWidgetLabel"]') || {}).innerText?.trim() === label);
    const thumb = slider && slider.querySelector('[data-testid="stSliderThumbValue"]');
    return thumb ? Number(thumb.innerText) : null };
  return {copy: value(document.querySelector('.st-key-chart_controls')),
          sidebar: value(document.querySelector('[data-testid="stSidebar"]'))} }"""
URL_VALUE = "(name) => new URL(location.href).searchParams.get(name)"


# A value widget's change (a slider's key press, a pill's click) reaches the server once the browser draws a frame;
# headless chromium draws none unless something asks, so after each the test takes a screenshot (which draws one),
# and `wait_for` takes one at every poll: a change queued after the first frame (a loaded machine) still goes out.
# Unasked, the change was held until the next event (a plain sidebar slider's too), as if lost; a button's was not.
def wait_for(page, check, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, what
        draw_a_frame(page)                                 # a frame (see above)
        time.sleep(0.2)
    return found


def test_the_copy_under_the_main_chart_moves_the_one_setting_on_a_phone(app_url, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    label = "key length ‖k‖"
    url = app_url
    before = len(browser.contexts)     # the pages this test opens: closed at its end
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844}, **PHONE)
        open_page(page, f"{url}/online_learners")      # its script done, its charts drawn
        copy = page.locator(".st-key-chart_controls")
        assert copy.is_visible(), "no controls with the main chart on a phone"
        metrics = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
        thumb = copy.get_by_role("slider", name=label)
        thumb.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "chart-controls-phone.png"))
        thumb.focus()
        thumb.press("ArrowRight")                      # 1.00 → 1.05
        draw_a_frame(page)                             # a frame: see wait_for
        wait_for(page, lambda: page.evaluate(URL_VALUE, "key_scale") == "1.05", f"the URL says {page.url}")
        wait_idle(page)
        moved = page.evaluate(URL_VALUE, "key_scale")
        values = wait_for(page, lambda: (v := page.evaluate(SLIDER_VALUES, label))["sidebar"] == float(moved)
                          and v, f"the sidebar does not show {moved}: {page.evaluate(SLIDER_VALUES, label)}")
        assert float(moved) > 1 and values["copy"] == float(moved), (moved, values)
        assert page.locator('[data-testid="stMetricValue"]').all_inner_texts() != metrics, "readouts unmoved"
        copy.locator("[data-testid=stButtonGroup] button", has_text="Overloaded").click()   # a preset pill
        draw_a_frame(page)
        wait_for(page, lambda: "n_keys=" in page.url and "n_keys=8" not in page.url,
                 f"the preset did not move the page: {page.url}")
        wait_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        for context in browser.contexts[before:]:
            context.close()

"""Real browser, the presenter view at 1280×720 (issue 21 item 5): a button's label is never cut to an ellipsis
("▶️ Run missi…" in Paper lab's four-column row, at the projector's larger type): it wraps. On a dynamics lesson the
buttons are the lesson instrument's presets (`button.lcsm-preset`, app/kit/instrument.js), in its controls column."""
import pytest

from tests.browser.app_server import ROOT, needs_chromium, wait_idle

pytestmark = [pytest.mark.browser, needs_chromium]
SHOTS = ROOT / "tests" / "screenshots"
PAGES = {"paper_lab": "Run missing cells", "train_live": "Play"}     # a page and a button it draws last
DYNAMICS = ("spring", "discretize", "rings", "lru_stability", "propagation")   # their buttons: the instrument's
CUT_BUTTONS = """() => [...document.querySelectorAll('button, a[data-testid="stBaseLinkButton-secondary"]')]
  .filter(b => b.offsetParent !== null && b.innerText.trim())
  .filter(b => [b, ...b.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1))
  .map(b => b.innerText.replace(/\\s+/g, ' ').trim())"""


def test_presenter_buttons_wrap_instead_of_cutting_their_labels(app_url, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    url = app_url
    before = len(browser.contexts)     # the pages this test opens: closed at its end
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        cut, shown_presets = {}, {}
        for path, last in [*PAGES.items(), *((path, None) for path in DYNAMICS)]:
            page.goto(f"{url}/{path}?present=1")
            if last is None:                            # the instrument draws its presets once it is drawn
                page.wait_for_selector(".lcsm-instrument[data-drawn] button.lcsm-preset", timeout=120_000)
            else:
                page.get_by_role("button", name=last).first.wait_for(timeout=120_000)
            wait_idle(page, timeout=120)
            page.screenshot(path=str(SHOTS / f"presenter-buttons-{path}.png"))
            cut[path] = page.evaluate(CUT_BUTTONS)
            if last is None:
                shown_presets[path] = page.locator("button.lcsm-preset:visible").count()
        assert not any(cut.values()), f"button labels cut on the projector: {cut}"
        assert all(shown_presets.values()), f"preset buttons shown in the presenter view: {shown_presets}"
    finally:
        for context in browser.contexts[before:]:
            context.close()

"""A learner without a mouse, in a real browser: Spring end to end with the keyboard alone.

From the page's top, Tab reaches the damping slider c; arrow keys change it and the readouts and every chart
follow, then the value is committed (the URL carries it); the half-life exercise is answered and checked; the Next
link is reached and followed. No mouse or pointer event is ever dispatched (the page counts them). On the way every
focused control shows the focus ring (≥ 3:1 against the page), each chart bar is one tab stop at most, and every
control the walk passes has an accessible name. Screenshots: tests/screenshots/keyboard-*.png.
"""
import time

import pytest

from tests.browser.app_server import ROOT, needs_chromium, wait_idle

SHOTS = ROOT / "tests" / "screenshots"
pytestmark = [pytest.mark.browser, needs_chromium]

COUNT_POINTERS = """() => { window.__pointers = 0;
  for (const kind of ['mousedown', 'mouseup', 'click', 'pointerdown', 'touchstart'])
    window.addEventListener(kind, (e) => { if (e.isTrusted && e.detail !== 0 || kind !== 'click')
      window.__pointers += e.isTrusted ? 1 : 0; }, true); }"""
FOCUSED = """() => { const a = document.activeElement;
  if (!a || a === document.body) return null;
  const style = getComputedStyle(a);
  const name = a.getAttribute('aria-label') || (a.labels && a.labels[0] && a.labels[0].innerText) ||
    (a.getAttribute('aria-labelledby') && document.getElementById(a.getAttribute('aria-labelledby'))?.innerText)
    || a.innerText || a.getAttribute('title') || a.getAttribute('data-title') || '';
  return {tag: a.tagName, type: a.type || '', name: name.trim().slice(0, 80),
          control: a.closest('[data-name]') ? a.closest('[data-name]').dataset.name : null,
          modebar: !!a.closest('.modebar'), chart: a.closest('.js-plotly-plot, [data-testid="stPlotlyChart"]') ?
            (a.closest('figure, [data-testid="stPlotlyChart"]') || {}).outerHTML.length : null,
          outline: [style.outlineStyle, parseFloat(style.outlineWidth), style.outlineColor],
          href: a.getAttribute('href') || ''}; }"""
READOUTS = "() => (document.querySelector('.lcsm-instrument .lcsm-readouts') || {}).innerText || ''"
MAIN_DATA = """() => { const p = document.querySelector('.lcsm-instrument .lcsm-main .js-plotly-plot');
  return p ? JSON.stringify((p.data || []).map(t => [t.y && (t.y.bdata || Array.from(t.y).slice(0, 50))])) : ''; }"""


@pytest.fixture(scope="module")
def browser_and_url(browser, app_url):
    return browser, app_url


def wait_for(page, check, what: str, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        page.wait_for_timeout(200)


def tab_until(page, wanted, most: int, walked: list) -> dict:
    """Tab (forward) until `wanted(focused)`; every focus on the way is kept in `walked`."""
    for _ in range(most):
        page.keyboard.press("Tab")
        page.wait_for_timeout(60)
        focused = page.evaluate(FOCUSED)
        if focused is not None:
            walked.append(focused)
            if wanted(focused):
                return focused
    raise AssertionError(f"not reached in {most} tabs; the last: {[(w['name'][:30], w['href']) for w in walked[-20:]]}")


def contrast(rgb: str, against=(255, 255, 255)) -> float:
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    def luminance(values):
        r, g, b = (channel(float(v)) for v in values[:3])
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    values = rgb[rgb.index("(") + 1:rgb.index(")")].split(",")
    light, dark = sorted((luminance(values), luminance(against)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_spring_end_to_end_with_the_keyboard_alone(browser_and_url):
    browser, url = browser_and_url
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.add_init_script(f"({COUNT_POINTERS})()")
    try:
        page.goto(f"{url}/spring")
        page.wait_for_selector(".lcsm-instrument[data-drawn] .lcsm-main .js-plotly-plot", timeout=90_000)
        wait_idle(page)
        walked: list = []
        slider = tab_until(page, lambda f: f["control"] == "c" and f["type"] == "range", 40, walked)
        reached_in = len(walked)
        readouts, data, url_before = page.evaluate(READOUTS), page.evaluate(MAIN_DATA), page.url
        for _ in range(3):
            page.keyboard.press("ArrowRight")
            page.wait_for_timeout(80)
        wait_for(page, lambda: page.evaluate(READOUTS) != readouts, "the readouts did not follow the arrows")
        wait_for(page, lambda: page.evaluate(MAIN_DATA) != data, "the main chart did not follow the arrows")
        wait_for(page, lambda: page.url != url_before and "c=" in page.url, "the move was not committed to the URL")
        wait_idle(page)
        page.screenshot(path=str(SHOTS / "keyboard-spring-moved.png"))
        assert page.evaluate(FOCUSED)["control"] == "c", "the slider lost the focus through the rerun"

        answer = tab_until(page, lambda f: f["tag"] == "INPUT" and f["name"].startswith("Your answer"), 80, walked)
        page.keyboard.type("13.86")
        page.keyboard.press("Tab")                       # the answer is sent as it loses the focus: one rerun
        wait_idle(page)
        walked.append(page.evaluate(FOCUSED))
        assert walked[-1]["name"] == "Check", f"after the answer: {walked[-1]}"
        page.keyboard.press("Enter")
        page.wait_for_timeout(500)
        wait_idle(page)
        page.screenshot(path=str(SHOTS / "keyboard-spring-checked.png"), full_page=True)
        wait_for(page, lambda: page.get_by_text("Correct.").count() > 0, "the exercise was not checked", 20)

        following = tab_until(page, lambda f: f["tag"] == "A" and f["href"].split("?")[0].endswith("discretize"), 60,
                              walked)
        page.keyboard.press("Enter")
        wait_for(page, lambda: "/discretize" in page.url, "Next did not lead to lesson 2")
        wait_idle(page)
        assert page.evaluate("() => window.__pointers") == 0, "a mouse or pointer event was dispatched"
    finally:
        context.close()

    assert reached_in <= 20, f"{reached_in} tabs from the top to the damping slider"
    assert slider["name"], "the damping slider has no accessible name"
    assert answer and following
    nameless = [w for w in walked if not w["name"] and w["tag"] not in ("MAIN", "DIV", "SECTION", "FIGURE")]
    assert not nameless, f"controls without a name: {nameless[:5]}"
    bars: dict = {}
    for w in walked:
        if w["modebar"]:
            bars[w["chart"]] = bars.get(w["chart"], 0) + 1
    assert all(count <= 1 for count in bars.values()), f"tab stops per chart bar: {bars}"
    unringed = [w for w in walked if w["tag"] in ("INPUT", "BUTTON", "A", "SELECT", "SUMMARY")
                and not (w["outline"][0] != "none" and w["outline"][1] >= 2 and contrast(w["outline"][2]) >= 3)]
    assert not unringed, f"focused without a ring of ≥ 3:1: {[(u['tag'], u['name'], u['outline']) for u in unringed]}"


def test_a_preset_pressed_with_the_keyboard_keeps_the_focus_through_the_redraw(browser_and_url):
    """Enter on a preset commits it; the instrument is redrawn at the preset (and again as its family arrives) and
    the focus stays on that preset, so the next Tab goes on from where the learner was."""
    browser, url = browser_and_url
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(f"{url}/spring")
        page.wait_for_selector(".lcsm-instrument[data-drawn] .lcsm-main .js-plotly-plot", timeout=90_000)
        wait_idle(page)
        preset = page.get_by_role("button", name="⚖️ Critically damped")
        preset.focus()
        drawn = page.evaluate("() => document.querySelector('.lcsm-instrument').dataset.drawn")
        page.keyboard.press("Enter")
        wait_for(page, lambda: "c=2" in page.url, "the preset was not committed to the URL")
        wait_for(page, lambda: page.evaluate("() => document.querySelector('.lcsm-instrument').dataset.drawn")
                 != drawn, "the instrument was not redrawn at the preset")
        wait_idle(page)
        page.wait_for_timeout(1500)                        # the family's redraw, if it comes after the page's
        focused = page.evaluate(FOCUSED)
        assert focused and focused["tag"] == "BUTTON" and focused["name"] == "⚖️ Critically damped", focused
    finally:
        context.close()

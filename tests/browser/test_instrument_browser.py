"""The lesson instrument in a real browser (app/kit/instrument.py + instrument.js), on lessons 1–5.

- Keyboard only (no mouse event): arrows on the swept control move every chart, readout and equation at once,
  and what they show during the move is what the server draws once the value is committed (URL included).
- Mouse drag and touch on the swept control commit the value they land on.
- Presets work in the presenter view and under a teacher's `show=`.
- One screen: at 1280×720 (student and presenter) the controls, the main chart and the readouts lie wholly in the
  first viewport; on a phone the readouts stay in view while the swept control moves.
- (That equations fit and no TeX source shows as text on any page: the accessibility gate's probes,
  tests/browser/test_accessibility_browser.py.)
- axe-core (WCAG 2.2 A/AA rules) finds no critical or serious violation in the instrument's presenter view (the
  student's view: every axe rule on every page, tests/browser/test_accessibility_browser.py).
Each lesson's views are opened once and walked through in order (a page load is most of such a check's cost): at
1280×720 the student's page (first screen, keys, a reload, a drag), the phone's (readouts, a tap), the presenter's
(first screen, axe). Screenshots: tests/screenshots/instrument-*.png.
"""
import time

import pytest

from benchmarks.accessibility import PHONE
from tests.browser.app_server import ROOT, draw_a_frame, needs_chromium
from tests.browser.test_browser_pages import SLIDERS

SHOTS = ROOT / "tests" / "screenshots"
DYNAMICS = ("spring", "discretize", "rings", "lru_stability", "propagation")
pytestmark = [pytest.mark.browser, needs_chromium]

# What the instrument shows: the member it is drawn at, every readout and equation term, every chart's y data.
READ = """() => {
  const root = document.querySelector('.lcsm-instrument');
  if (!root) return {member: null, pending: true};             // Streamlit mounting it afresh
  const TYPED = {f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
                 u2: Uint16Array, i1: Int8Array, u1: Uint8Array};
  const values = (y) => {                                      // plotly keeps a typed-array spec as it was given
    if (!y || !y.bdata) return y;
    const text = atob(y.bdata), bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new TYPED[y.dtype](bytes.buffer);
  };
  const charts = {};
  for (const fig of root.querySelectorAll('figure.lcsm-chart')) {
    const gd = fig.querySelector('.js-plotly-plot');
    charts[fig.dataset.chart] = gd ? gd.data.map(t => t.y ? Array.from(values(t.y)) : null).map(y => y && [y.length,
      ...y.filter((_, i) => i < 20 || i % 17 === 0).map(v => v === null ? null : Math.round(Number(v) * 1e5) / 1e5)])
      : null;
  }
  return {member: root.dataset.member, drawn: root.dataset.drawn, moved: root.dataset.moved,
          pending: root.classList.contains('lcsm-pending'),
          metrics: [...root.querySelectorAll('.lcsm-metric-value')].map(e => e.textContent),
          notices: [...root.querySelectorAll('.lcsm-notice')].map(e => e.textContent),
          equations: [...root.querySelectorAll('.lcsm-term')].map(e => e.dataset.tex), charts};
}"""
URL_VALUE = "(name) => new URL(location.href).searchParams.get(name)"
SWEPT = {"spring": "c", "discretize": "dt", "rings": "r_max", "lru_stability": "steps", "propagation": "nu"}


def open_instrument(page, url: str, swept: bool = True) -> dict:
    """The page at `url` once its instrument is drawn (`swept`: with its family, the swept control over it)."""
    page.goto(url)
    page.wait_for_selector(".lcsm-instrument[data-drawn]" + (" .lcsm-swept" if swept else ""), timeout=60000)
    return settle(page)


def settle(page, timeout: float = 60.0) -> dict:
    """The instrument once no commit is pending and nothing changed for 1 s (the server's page drawn)."""
    deadline, last, since = time.monotonic() + timeout, None, time.monotonic()
    while True:
        draw_a_frame(page)                                 # headless chromium draws (and sends) on a frame
        now = page.evaluate(READ)
        if now != last:
            last, since = now, time.monotonic()
        elif not now["pending"] and time.monotonic() - since > 1.0:
            return now
        assert time.monotonic() < deadline, f"the instrument did not settle: {now['member']}"
        time.sleep(0.2)


def wait_url(page, name: str, value: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while page.evaluate(URL_VALUE, name) != value:
        assert time.monotonic() < deadline, f"{name} never reached {value} in the URL: {page.url}"
        draw_a_frame(page)
        time.sleep(0.2)


@pytest.mark.parametrize("lesson", DYNAMICS)
def test_at_1280_one_screen_holds_the_instrument_and_keys_and_a_drag_move_it_to_what_the_server_draws(
        app_url, browser, lesson):
    """One page at 1280×720, as a student finds it: the first screen, then the keyboard alone, then the mouse."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        before = open_instrument(page, f"{app_url}/{lesson}")
        first_screen(page, lesson, "student")
        after = arrow_keys(page, lesson, before)
        reloaded = open_instrument(page, page.url)
        same_page(lesson, after, reloaded)                  # … and what the server draws at the committed URL
        drag(page, lesson, reloaded)
    finally:
        page.close()


def arrow_keys(page, lesson: str, before: dict) -> dict:
    """Arrows on the swept control (no mouse event) move every chart, readout and equation at once, to what the
    server draws once the value is committed."""
    swept = page.get_by_role("slider", name=SLIDERS[lesson])    # found as a screen reader names it
    assert swept.evaluate("(e) => e.matches('.lcsm-swept input[type=range]')"), "the named slider is not the swept one"
    swept.focus()                                           # the keyboard's focus; no mouse event below
    for key in ("ArrowRight", "ArrowRight"):
        page.keyboard.press(key)
    during = page.evaluate(READ)
    assert during["member"] is not None, "the instrument vanished during the move"
    assert during["member"] != before["member"], "the arrows moved nothing"
    assert during["metrics"] != before["metrics"] or during["charts"] != before["charts"]
    wait_url(page, SWEPT[lesson], during["member"])         # committed after the keys pause
    after = settle(page)
    page.screenshot(path=str(SHOTS / f"instrument-{lesson}-keys.png"))
    same_page(lesson, during, after)
    assert page.evaluate("() => document.activeElement.closest('[data-name]')?.dataset.name") == SWEPT[lesson], \
        "the swept control lost the keyboard's focus when the page was redrawn"
    if lesson in MOVED_IN_THE_BROWSER:                      # the server drew none of them: the browser moved them
        assert int(after["moved"]) == len(after["charts"]), after["moved"]
    return after


# the pages whose every chart follows the drag: a committed move of the swept control sends them none
MOVED_IN_THE_BROWSER = ("spring", "discretize", "rings", "propagation")


def same_page(lesson: str, during: dict, after: dict) -> None:
    assert after["member"] == during["member"]
    for part in ("metrics", "notices", "equations", "charts"):
        assert after[part] == during[part], f"{lesson}: the {part} during the move differ from the page drawn"


def drag(page, lesson: str, before: dict) -> None:
    """A mouse drag through the family commits the value it lands on, once the button is up."""
    box = page.locator(".lcsm-swept input[type=range]").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 3, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.45, y, steps=6)
    midway = page.evaluate(READ)
    page.mouse.move(box["x"] + box["width"] * 0.8, y, steps=6)
    during = page.evaluate(READ)                           # the pointer still down: nothing committed yet
    assert page.evaluate(URL_VALUE, SWEPT[lesson]) != during["member"] or before["member"] == during["member"]
    page.mouse.up()
    assert midway["member"] != during["member"], "the drag did not move through the family"
    wait_url(page, SWEPT[lesson], during["member"])
    same_page(lesson, during, settle(page))
    page.screenshot(path=str(SHOTS / f"instrument-{lesson}-drag.png"))


@pytest.mark.parametrize("lesson", DYNAMICS)
def test_on_a_phone_the_readouts_stay_in_view_during_a_move_and_a_tap_commits_to_what_the_server_draws(
        app_url, browser, lesson):
    phone = browser.new_page(viewport={"width": 390, "height": 844}, **PHONE)
    try:
        open_instrument(phone, f"{app_url}/{lesson}")
        swept = phone.locator(".lcsm-swept input[type=range]")
        swept.scroll_into_view_if_needed()
        swept.focus()
        phone.keyboard.press("ArrowRight")
        box = phone.evaluate(RECT, ".lcsm-instrument .lcsm-readouts")
        phone.screenshot(path=str(SHOTS / f"instrument-{lesson}-phone.png"))
        assert inside(box, 390, 844), f"{lesson}: the readouts at {box} are out of view during the move"
        wait_url(phone, SWEPT[lesson], phone.evaluate(READ)["member"])    # the arrow's move committed first
        settle(phone)
        box = swept.bounding_box()
        phone.touchscreen.tap(box["x"] + 3, box["y"] + box["height"] / 2)     # the first member
        tapped = phone.evaluate(READ)
        wait_url(phone, SWEPT[lesson], tapped["member"])
        same_page(lesson, tapped, settle(phone))
    finally:
        phone.close()


@pytest.mark.parametrize("query", ["present=1", "show=c"])
def test_presets_work_in_the_presenter_view_and_under_show(app_url, browser, query):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        open_instrument(page, f"{app_url}/spring?{query}")
        page.get_by_role("button", name="⚖️ Critically damped").click()
        wait_url(page, "c", "2")
        assert settle(page)["metrics"][:2] == ["critically damped", "1"]
    finally:
        page.close()


RECT = """(selector) => { const r = document.querySelector(selector).getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height} }"""


def inside(box, width: int, height: int) -> bool:
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= width + 0.5 \
        and box["y"] + box["height"] <= height + 0.5


def first_screen(page, lesson: str, view: str) -> None:
    """At 1280×720 the controls, the main chart and the readouts lie wholly in the first screen."""
    for part in (".lcsm-controls", ".lcsm-main", ".lcsm-readouts"):
        box = page.evaluate(RECT, f".lcsm-instrument {part}")
        assert inside(box, 1280, 720), f"{lesson} ({view}): {part} at {box} is not wholly in the first 1280×720 screen"
    page.screenshot(path=str(SHOTS / f"instrument-{lesson}-{view}.png"))


def test_no_app_file_reaches_into_plotly_internals():
    offending = [str(path.relative_to(ROOT)) for path in (ROOT / "app").rglob("*") if path.is_file()
                 and path.suffix in (".py", ".js") and any(word in path.read_text(encoding="utf-8")
                                                          for word in ("_transitionData", "_frameHash", "gd._ev"))]
    assert offending == []


@pytest.mark.parametrize("lesson", DYNAMICS)
def test_the_presenter_view_holds_the_instrument_in_one_screen_and_axe_finds_no_serious_violation_in_it(
        app_url, browser, lesson):
    """(The student's view: every axe rule on every page, tests/browser/test_accessibility_browser.py.)"""
    axe_playwright = pytest.importorskip("axe_playwright_python.sync_playwright",
                                         reason="axe-playwright-python is installed by scripts/install.sh --tests")
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        open_instrument(page, f"{app_url}/{lesson}?present=1")
        first_screen(page, lesson, "presenter")
        found = axe_playwright.Axe().run(page, context={"include": [[".lcsm-instrument"]]}, options={
            "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21aa", "wcag22aa"]},
            "resultTypes": ["violations"]}).response                  # (benchmarks/accessibility.py: AXE_OPTIONS)
        bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in found["violations"]
               if v["impact"] in ("critical", "serious")]
        assert bad == [], f"{lesson} (presenter): {bad}"
        assert found["passes"], "axe checked nothing"
    finally:
        page.close()


def test_an_open_teacher_link_follows_each_committed_move(app_url, browser):
    """A committed move reruns the instrument alone; the sidebar's teacher link shows the values, so while it is
    open the move reruns the page and the link follows it."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        before = open_instrument(page, f"{app_url}/spring")
        page.get_by_text("Share as a teacher link").click()
        link = page.locator('[data-testid="stSidebar"] code').filter(has_text="c=")
        link.wait_for(timeout=30000)
        assert f"c={before['member']}" in link.inner_text()
        page.locator(".lcsm-swept input[type=range]").focus()
        page.keyboard.press("ArrowRight")
        member = page.evaluate("() => document.querySelector('.lcsm-instrument').dataset.member")
        wait_url(page, "c", member)
        settle(page)
        deadline = time.monotonic() + 30
        while f"c={member}" not in link.inner_text():
            assert time.monotonic() < deadline, f"the teacher link stayed at {link.inner_text()!r}, not c={member}"
            time.sleep(0.3)
    finally:
        page.close()

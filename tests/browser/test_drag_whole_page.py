"""Real browser, lessons 1–5: dragging the lead chart's preview slider moves EVERY chart and readout of the page to
the same member with no Streamlit rerun (`app.kit.page_link`, which adds the family's frames to every chart), and
releasing it commits the value: the URL, the sidebar slider, the charts and the metrics Streamlit then draws at
that value equal what the drag showed, and the family itself is not sent again (a reference to the cached message).

Charts are found by their `layout.meta.lcsm` tag; what a chart shows is read from plotly's own `gd.data`.
Screenshots land in tests/screenshots/ (spring mid-drag: drag-whole-page-spring.png).
"""
import json
import time

import pytest

from app.lessons import lesson
from tests.app.test_sweep import same_data
from tests.browser.app_server import BROWSER_ARGS, CHROMIUM, ROOT, needs_chromium, running_app
from tests.browser.test_browser_pages import SCRIPT_STATE, wait_idle

SHOTS = ROOT / "tests" / "screenshots"
PAGES = ["spring", "discretize", "rings", "lru_stability", "propagation"]
STOPS = (0.15, 0.6, 0.9)              # where along the lead slider's rail the drag pauses (fractions)

pytestmark = [pytest.mark.browser, needs_chromium]

# Every tagged chart of the page: its name, its traces' moving data as JSON, and the frame names it holds; the
# lead chart's slider's active step; the readouts as shown (metric label/value, visible notice texts).
# plotly decodes a {dtype, bdata} array in place (adding `_inputArray`): the comparison keeps dtype and bdata only.
PICK = "const pick = (v) => v === undefined ? null : (v && v.bdata ? {dtype: v.dtype, bdata: v.bdata} : v);"
SNAPSHOT = """(page) => {
  """ + PICK + """
  const charts = {};
  let active = null;
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const tag = gd.layout && gd.layout.meta && gd.layout.meta.lcsm;
    if (!tag || tag.page !== page) continue;
    const frames = tag.follows ? Object.keys((gd._transitionData && gd._transitionData._frameHash) || {}) : [];
    const data = JSON.stringify(gd.data.map(t => ['x', 'y', 'z'].map(k => pick(t[k]))));
    charts[tag.chart] = {data, frames};
    const sliders = (gd._fullLayout && gd._fullLayout.sliders) || [];
    if (sliders.length) { const s = sliders[sliders.length - 1]; active = s.steps[s.active].value; }
  }
  const box = document.querySelector('.st-key-lcsm-readout');
  const text = (el) => el ? el.innerText.trim() : null;
  const metrics = box ? [...box.querySelectorAll('[data-testid="stMetric"]')].map(m =>
      [text(m.querySelector('[data-testid="stMetricLabel"]')), text(m.querySelector('[data-testid="stMetricValue"]'))])
      : [];
  const notices = box ? [...box.querySelectorAll('[data-testid="stAlert"], .lcsm-link-notice')]
      .filter(a => a.offsetParent !== null)
      .map(a => a.dataset.text || text(a.querySelector('[data-testid="stMarkdownContainer"]') || a)) : [];
  return {charts, active, metrics, notices, member: box ? box.getAttribute('data-lcsm-member') : null};
}"""
# What the member `name` holds for chart `chart` (its frame's data, as SNAPSHOT writes it): null without one.
FRAME_DATA = """([page, chart, name]) => {
  """ + PICK + """
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const tag = gd.layout && gd.layout.meta && gd.layout.meta.lcsm;
    if (!tag || tag.page !== page || tag.chart !== chart) continue;
    const frame = gd._transitionData._frameHash[name];
    if (!frame) return null;
    return JSON.stringify(frame.data.map((t, i) =>
        ['x', 'y', 'z'].map(k => pick(t[k] !== undefined ? t[k] : gd.data[i][k]))));
  }
  return null;
}"""
READOUTS = "([page, name]) => window.__lcsmPageLink[page].readoutsOf(name)"
FAMILY_MARK = b'"family_id"'          # in the page link's data only: a websocket frame holding it re-sent the family


def open_linked(page, url: str, name: str, query: str = ""):
    page.goto(f"{url}/{name}{query}")
    page.wait_for_function(
        """(page) => { const e = (window.__lcsmPageLink || {})[page];
                       return e && [...document.querySelectorAll('.js-plotly-plot')].some(g =>
                         g.layout?.meta?.lcsm?.page === page && g._fullLayout?.sliders?.length
                         && (g._ev || g).__lcsmLinked === e.onChange && g._transitionData?._frames?.length) }""",
        arg=name, timeout=120_000)
    wait_idle(page)


def same_drawing(drawn: str, expected: str) -> bool:
    """The traces' x, y, z as a chart shows them (tests/app/test_sweep.py's tolerance: what float32 can show)."""
    a, b = json.loads(drawn), json.loads(expected)
    return len(a) == len(b) and all(same_data(x, y) for ta, tb in zip(a, b) for x, y in zip(ta, tb))


def check_drawn_member(page, name: str, shot: dict, where: str) -> None:
    """Every chart that follows the drag (tagged `follows`: it holds the family's frames) draws the lead slider's
    member; every metric and notice is that member's."""
    member = shot["active"]
    assert member is not None, where
    followers = [chart for chart, drawn in shot["charts"].items() if drawn["frames"]]
    for chart in followers:
        frames = shot["charts"][chart]["frames"]
        assert member in frames, f"{where}: {chart} has no frame {member}"
        frame = page.evaluate(FRAME_DATA, [name, chart, member])
        assert same_drawing(shot["charts"][chart]["data"], frame), f"{where}: {chart} not at {member}"
    readouts = page.evaluate(READOUTS, [name, member])
    assert shot["metrics"] == [[m["label"], m["value"]] for m in readouts["metrics"]], where
    assert shot["notices"] == [n["text"] for n in readouts["notices"]], where
    current = page.evaluate("(page) => window.__lcsmPageLink[page].current()", name)
    assert shot["member"] == (None if member == current else member), where   # the page's own value: untouched


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with running_app(tmp_path_factory.mktemp("drag-data"), SHOTS / "drag-whole-page-server.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield chromium
        chromium.close()


@pytest.mark.parametrize("name, query", [(name, "") for name in PAGES] + [("spring", "?present=1")])
def test_a_drag_moves_every_chart_and_readout_and_the_release_commits_it(app_url, browser, name, query):
    """Lessons 1–5, and spring in the presenter view (its controls on the page, larger fonts)."""
    spec = lesson(name)
    setting = spec.settings[spec.sweep.setting]
    page = browser.new_page(viewport={"width": 1400, "height": 1800})
    errors, received = [], []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: received.append(
        frame if isinstance(frame, bytes) else frame.encode("utf-8", "replace"))))
    try:
        open_linked(page, app_url, name, query)
        assert any(FAMILY_MARK in frame for frame in received), "the page link's family never arrived"
        before = page.evaluate(SNAPSHOT, name)
        assert set(before["charts"]) == set(spec.chart_names()), "a chart of the page is not tagged"
        lead = page.locator('[data-testid="stPlotlyChart"]:has(.slider-container)', has_text="drag to preview")
        assert lead.count() == 1, "exactly one chart carries the visible slider"
        lead.scroll_into_view_if_needed()           # under the lesson's open story it may start below the window
        rail = lead.locator(".slider-rail-rect").bounding_box()
        grip = lead.locator(".slider-grip-rect").bounding_box()
        y = grip["y"] + grip["height"] / 2
        page.mouse.move(grip["x"] + grip["width"] / 2, y)
        page.mouse.down()
        seen = set()
        for stop in STOPS:
            page.mouse.move(rail["x"] + stop * rail["width"], y, steps=5)
            time.sleep(0.4)
            assert page.evaluate(SCRIPT_STATE) == "notRunning", "a Streamlit rerun started while dragging"
            shot = page.evaluate(SNAPSHOT, name)
            check_drawn_member(page, name, shot, f"{name} at {stop:.0%} ({shot['active']})")
            seen.add(shot["active"])
            if name == "spring" and stop == STOPS[0]:
                page.screenshot(path=str(SHOTS / "drag-whole-page-spring.png"), full_page=True)
            if stop == STOPS[1]:                 # back to where the drag began: the page's own value and picture
                page.mouse.move(grip["x"] + grip["width"] / 2, y, steps=5)
                time.sleep(0.4)
                back = page.evaluate(SNAPSHOT, name)
                assert back["active"] == page.evaluate("(page) => window.__lcsmPageLink[page].current()", name)
                check_drawn_member(page, name, back, f"{name} back at {back['active']}")
                assert back["metrics"] == before["metrics"] and back["notices"] == before["notices"]
                for chart in back["charts"]:
                    assert same_drawing(back["charts"][chart]["data"], before["charts"][chart]["data"]), chart
        assert len(seen) == len(STOPS), f"{name}: the drag did not reach {len(STOPS)} members: {seen}"
        followers = [c for c in shot["charts"] if shot["charts"][c]["frames"]]
        moved = [c for c in followers if not same_drawing(before["charts"][c]["data"], shot["charts"][c]["data"])]
        assert spec.sweep.chart in moved and len(moved) >= min(2, len(followers)), f"{name}: only {moved} moved"
        sent_before = len(received)
        page.mouse.up()

        value = shot["active"]                                      # the release commits the last member
        page.wait_for_function("(v) => location.search.includes(v)", arg=f"{setting.name}={value}",
                               timeout=60_000)
        wait_idle(page)
        after = wait_for_committed(page, name, value)
        sidebar = page.get_by_role("slider", name=setting.label)
        assert float(sidebar.input_value()) == float(value), "the sidebar slider does not show the released value"
        assert after["metrics"] == shot["metrics"], "the page drawn at the value differs from what the drag showed"
        assert after["notices"] == shot["notices"]
        for chart, drawn in after["charts"].items():
            if value in shot["charts"][chart]["frames"]:
                assert same_drawing(drawn["data"], shot["charts"][chart]["data"]), f"{chart} at {value} ≠ its frame"
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not errors, errors
        # the commit's rerun redrew the charts at the value but sent the family as a reference (the same message)
        assert not any(FAMILY_MARK in frame for frame in received[sent_before:]), "the family was sent again"
    finally:
        page.close()


def wait_for_committed(page, name: str, value: str, timeout: float = 60.0) -> dict:
    """The page's snapshot once Streamlit has redrawn it at `value` (the lead slider's active step is there)."""
    deadline = time.monotonic() + timeout
    while True:
        wait_idle(page)
        shot = page.evaluate(SNAPSHOT, name)
        if shot["active"] == value and shot["member"] is None:
            return shot
        assert time.monotonic() < deadline, f"the page never showed {value}: {shot['active']}"
        time.sleep(0.3)


# Per tagged chart: its first y axis's drawn range, the finite data on it, the lead slider's active step and the
# title (issue 21 defect 2: a runaway member's frame fits that axis to its own data).
Y_FIT = """(page) => {
  const found = {};
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const tag = gd.layout && gd.layout.meta && gd.layout.meta.lcsm;
    if (!tag || tag.page !== page || !gd._fullLayout || !gd._fullLayout.yaxis) continue;
    let low = Infinity, high = -Infinity;
    for (const t of gd._fullData || []) {
      if ((t.yaxis || 'y') !== 'y' || !t.y) continue;
      for (const v of t.y) if (Number.isFinite(v)) { low = Math.min(low, v); high = Math.max(high, v); }
    }
    const sliders = gd._fullLayout.sliders || [];
    const s = sliders.length ? sliders[sliders.length - 1] : null;
    found[tag.chart] = {range: gd._fullLayout.yaxis.range.slice(), low, high, left: gd._fullLayout._size.l,
                        title: (gd._fullLayout.title && gd._fullLayout.title.text) || '',
                        active: s ? s.steps[s.active].value : null};
  }
  return found;
}"""
RUNAWAY_CHARTS = ("response", "phase", "energy")        # spring's charts whose y data passes 10⁵ at c = −1


def shows_all(chart: dict) -> bool:
    """The drawn y range holds all of the chart's finite y data (float32's slack)."""
    slack = 1e-6 * (chart["high"] - chart["low"])
    return chart["range"][0] <= chart["low"] + slack and chart["high"] - slack <= chart["range"][1]


def test_a_drag_to_a_runaway_member_fits_its_axes_to_it_and_a_drag_back_restores_them(app_url, browser):
    """Spring's damping dragged to c = −1 (|x| passes 10⁶): the response, phase portrait and energy show the whole
    explosion on a y axis fitted to it, titled so — not vertical lines leaving the family's range; dragged back to
    the page's own value, every chart's range is the one it was drawn with. Waits for what it checks: no timing."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    page = browser.new_page(viewport={"width": 1400, "height": 1800})
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        open_linked(page, app_url, "spring")
        before = page.evaluate(Y_FIT, "spring")
        assert all(shows_all(before[c]) and before[c]["high"] - before[c]["low"] < 1e3 for c in RUNAWAY_CHARTS)
        lead = page.locator('[data-testid="stPlotlyChart"]:has(.slider-container)', has_text="drag to preview")
        lead.scroll_into_view_if_needed()
        rail = lead.locator(".slider-rail-rect").bounding_box()
        grip = lead.locator(".slider-grip-rect").bounding_box()
        y = grip["y"] + grip["height"] / 2
        page.mouse.move(grip["x"] + grip["width"] / 2, y)
        page.mouse.down()
        page.mouse.move(rail["x"] + 1, y, steps=5)                      # the rail's start: c = −1
        page.wait_for_function(
            """([page, charts]) => { const f = (""" + Y_FIT + """)(page);
                 return f.response && f.response.active === '-1' && charts.every(c => f[c] &&
                   f[c].high - f[c].low > 1e5 && f[c].range[0] <= f[c].low + 1e-6 * (f[c].high - f[c].low)
                   && f[c].high - 1e-6 * (f[c].high - f[c].low) <= f[c].range[1]) }""",
            arg=["spring", list(RUNAWAY_CHARTS)], timeout=60_000)
        wild = page.evaluate(Y_FIT, "spring")
        for chart in RUNAWAY_CHARTS:
            assert shows_all(wild[chart]) and "⚠" in wild[chart]["title"], (chart, wild[chart])
        assert before["poles"]["range"] == wild["poles"]["range"]      # a declared range: never fitted
        # the plot area did not move: plotly's animation does not redo the margins, and data drawn against the old
        # area once ended short of (response) or past (energy) the divergence line the axes drew in the new one
        assert all(wild[c]["left"] == before[c]["left"] for c in RUNAWAY_CHARTS), (before, wild)
        page.screenshot(path=str(SHOTS / "drag-runaway-spring.png"), full_page=True)
        page.mouse.move(grip["x"] + grip["width"] / 2, y, steps=5)      # back near the page's own value (0.2)
        try:                                             # any c ≥ 0 is drawn in the family's range, as 0.2 was
            page.wait_for_function(
                """([page, before]) => { const f = (""" + Y_FIT + """)(page);
                     return f.response && Number(f.response.active) >= 0 && Object.keys(before).every(c => f[c]
                       && f[c].range.every((v, i) => Math.abs(v - before[c].range[i]) <= 1e-9 * (1 + Math.abs(v))))
                   }""", arg=["spring", before], timeout=60_000)
        except PlaywrightTimeout:
            pass                                         # the assertions below say what is drawn instead
        back = page.evaluate(Y_FIT, "spring")
        assert float(back["response"]["active"]) >= 0, back["response"]
        assert all(back[c]["range"] == pytest.approx(before[c]["range"]) for c in before), (before, back)
        assert all("⚠" not in back[c]["title"] and shows_all(back[c]) for c in RUNAWAY_CHARTS), back
        page.mouse.up()                                 # a release at 0 commits it: this test needs no more of it
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not errors, errors
    finally:
        page.close()

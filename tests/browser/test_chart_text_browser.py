"""What a screen reader gets from the charts, in a real browser (app/kit/chart_text.py: the words; instrument.js and
Streamlit's chart `alt`: where they go):

- (a screen-reader pass over each charted lesson's accessibility tree, `aria_snapshot`, meeting every chart as a
  figure named by the summary the server computes from its data, runs in the accessibility gate's pass:
  tests/browser/test_accessibility_browser.py, with `summaries` and `figure_names` from here);
- on spring and rings, an arrow-key move of the swept control moves the main chart's name and its "Show the data"
  table to the member shown (the family's), and the page the server draws once the value is committed says the same;
- a chart's tables hold its traces' points as drawn (thinned);
- the live region announces once per committed move (its mutations counted): a swept move of three keys, a preset,
  a move of another control; nothing while the keys are still moving.
"""
import json
import re
import time

import pytest

from tests.browser.app_server import ROOT, draw_a_frame, needs_chromium
from tests.browser.test_instrument_browser import SWEPT, open_instrument, settle, wait_url

SHOTS = ROOT / "tests" / "screenshots"
STREAMLIT_PAGES = ("eos_view", "online_learners")          # charts drawn by st.plotly_chart, named by their alt
pytestmark = [pytest.mark.browser, needs_chromium]


def summaries(page: str) -> dict[str, str]:
    """Each chart's summary at the page's defaults, as the server computes it."""
    from lcsm_explorer.app.kit.render import chart_specs, freeze
    from lcsm_explorer.app.lessons import lesson
    spec = lesson(page)
    return {name: chart.text["summary"] for name, chart in chart_specs(page, freeze(spec.settings.defaults), False,
                                                                        spec).items()}


FIGURE = re.compile(r"""^\s*-\s+'?figure\s+("(?:[^"\\]|\\.)*")""")


def figure_names(snapshot: str) -> list[str]:
    """The names of the figures in an aria snapshot (Playwright writes a name as a JSON string)."""
    return [json.loads(found[1].replace("''", "'")) for line in snapshot.splitlines() if (found := FIGURE.match(line))]


def open_streamlit_page(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot', timeout=60000)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=60000)
    time.sleep(1.0)


# The main chart's words as the page shows them: its name, and its tables' cells (the details opened).
MAIN_WORDS = """() => {
  const figure = document.querySelector('.lcsm-main figure.lcsm-chart');
  return {name: figure.getAttribute('aria-label'),
          tables: [...figure.querySelectorAll('table')].map(t => ({caption: t.caption.textContent,
            rows: [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))}))};
}"""


def family_member(lesson: str, member: str) -> dict:
    """The main chart's words at the family member `member` at the page's defaults, as the server writes them
    (`chart_text` of the member's figure, with its note: what the browser's twin, chart_words.js, must say)."""
    from lcsm_explorer.app.kit.chart_text import chart_text
    from lcsm_explorer.app.kit.sweep import sweep_family, unworded_page
    from lcsm_explorer.app.lessons import lesson as declared
    spec = declared(lesson)
    held = {k: v for k, v in spec.settings.defaults.items() if k != spec.sweep.setting}
    results: dict = {}
    found = next(m for m in sweep_family(spec, held, results) if m["name"] == member)
    figures, _, notes = unworded_page(spec, {**held, spec.sweep.setting: found["value"]}, results[found["value"]])
    chart = spec.sweep.chart
    return json.loads(json.dumps(chart_text(figures[chart], notes.get(chart, ""), chart)))


def same_cells(shown: list[dict], tables: list[dict]) -> bool:
    """The tables shown hold the member's cells (numbers written to 4 significant digits)."""
    def value(text: str):
        try:
            return float(text)
        except ValueError:
            return text
    for table, expected in zip(shown, tables, strict=True):
        if table["caption"] != expected["caption"]:
            return False
        columns = list(zip(*table["rows"]))
        for column, cells in zip(columns, expected["columns"], strict=True):
            for text, cell in zip(column, cells, strict=True):
                found = value(text)
                if cell is None:
                    if text != "":
                        return False
                elif isinstance(cell, str) or isinstance(found, str):
                    if str(cell) != text:
                        return False
                elif abs(found - cell) > 1e-9 * max(1.0, abs(cell)):
                    return False
    return True


@pytest.mark.parametrize("lesson", ["spring", "rings"])
def test_an_arrow_key_move_moves_the_main_charts_name_and_table(app_url, browser, lesson):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        open_instrument(page, f"{app_url}/{lesson}")
        page.locator(".lcsm-main details.lcsm-data > summary").click()          # "Show the data"
        page.wait_for_selector(".lcsm-main details.lcsm-data[open] table")        # filled on its toggle event
        before = page.evaluate(MAIN_WORDS)
        assert before["tables"] and before["name"] == summaries(lesson)[SWEPT_CHART[lesson]]
        page.locator(".lcsm-swept input[type=range]").focus()
        for key in ("ArrowRight", "ArrowRight"):
            page.keyboard.press(key)
        member = page.evaluate("() => document.querySelector('.lcsm-instrument').dataset.member")
        expected = family_member(lesson, member)              # worded in the browser once the member is drawn
        page.wait_for_function("said => document.querySelector('.lcsm-main figure.lcsm-chart')"
                               ".getAttribute('aria-label') === said", arg=expected["summary"], timeout=10_000)
        during = page.evaluate(MAIN_WORDS)
        assert during["name"] != before["name"] and during["tables"] != before["tables"]
        assert during["name"] == expected["summary"] and same_cells(during["tables"], expected["tables"])
        wait_url(page, SWEPT[lesson], member)                                   # committed after the keys pause
        settle(page)
        after = page.evaluate(MAIN_WORDS)
        assert after == during, f"{lesson}: the page drawn at {member} says otherwise than the member shown"
        page.screenshot(path=str(SHOTS / f"chart-text-{lesson}-data.png"))
    finally:
        page.close()


SWEPT_CHART = {"spring": "response", "rings": "eigenvalues"}

# Every chart's tables (caption and rows) and its drawn traces' names and points.
TABLES_AND_TRACES = """() => {
  const TYPED = {f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
                 u2: Uint16Array, i1: Int8Array, u1: Uint8Array};
  const values = (v) => {
    if (!v || !v.bdata) return v ? Array.from(v) : null;
    const text = atob(v.bdata), bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return Array.from(new TYPED[v.dtype](bytes.buffer));
  };
  const found = {};
  for (const figure of document.querySelectorAll('figure.lcsm-chart')) {
    const gd = figure.querySelector('.js-plotly-plot');
    found[figure.dataset.chart] = {
      traces: gd.data.map(t => ({name: t.name || null, x: values(t.x), y: values(t.y), skip: t.hoverinfo === 'skip'})),
      tables: [...figure.querySelectorAll('table')].map(t => ({caption: t.caption.textContent,
        rows: [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))}))};
  }
  return found;
}"""


def test_a_charts_tables_hold_its_traces_points(app_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        open_instrument(page, f"{app_url}/spring")
        for summary in page.locator("details.lcsm-data > summary").all():
            summary.click()
        page.wait_for_function("() => [...document.querySelectorAll('details.lcsm-data')]"      # each filled on its
                               ".every(d => d.open && d.querySelector('.lcsm-data-body').children.length)")  # toggle
        for chart, drawn in page.evaluate(TABLES_AND_TRACES).items():
            traces = [t for t in drawn["traces"] if not t["skip"]]
            assert len(drawn["tables"]) == len(traces), chart
            for trace, table in zip(traces, drawn["tables"]):
                assert table["caption"].startswith(trace["name"]), (chart, table["caption"])
                rows = [(float(x), float(y)) for x, y in table["rows"]]
                assert 0 < len(rows) <= 50, chart
                points = list(zip(trace["x"] or range(len(trace["y"])), trace["y"]))
                assert near(rows[0], points[0]) and near(rows[-1], points[-1]), (chart, table["caption"])
                assert all(any(near(row, point) for point in points) for row in rows), (chart, table["caption"])
    finally:
        page.close()


def near(row: tuple[float, float], point: tuple[float, float]) -> bool:
    """A table's row is a point of the trace, written to 4 significant digits."""
    return all(abs(a - b) <= 5e-4 * abs(b) + 1e-12 for a, b in zip(row, point))


# Count what the instrument's live region is told: one record per change of its text (a rebuilt instrument's new
# region counts too).
WATCH_LIVE = """() => {
  window.__announced = [];
  new MutationObserver((records) => {
    for (const r of records) {
      const node = r.target.nodeType === Node.TEXT_NODE ? r.target.parentElement : r.target;   // a text's change too
      const region = node && node.closest ? node.closest('.lcsm-instrument [aria-live]') : null;
      if (region && region.textContent) {
        window.__announced.push(region.textContent);
        (window.__announcedAt ||= []).push(performance.now());
      }
    }
  }).observe(document.body, {childList: true, characterData: true, subtree: true});
}"""
ANNOUNCED = "() => window.__announced"
# What a missing announcement leaves to read: the region's text, the keys' target, the values shown and committed.
LIVE_STATE = """() => { const root = document.querySelector('.lcsm-instrument');
  const live = root?.querySelector('[aria-live]'), swept = root?.querySelector('.lcsm-swept input[type=range]');
  return {instruments: document.querySelectorAll('.lcsm-instrument').length, live: live?.textContent.slice(0, 60),
          focused: document.activeElement?.outerHTML.slice(0, 80), swept: swept?.value,
          member: root?.dataset.member, drawn: root?.dataset.drawn, pending: root?.classList.contains('lcsm-pending'),
          keys: window.__keys, url: location.search} }"""
# When each key went down (the page's clock), and the gaps between them: the instrument commits a run of arrow keys
# KEY_PAUSE_MS after its last key (instrument.js).
MEMBER = "() => document.querySelector('.lcsm-instrument').dataset.member"
KEY_TIMES = "() => document.addEventListener('keydown', () => (window.__keys ||= []).push(performance.now()), true)"
KEY_GAPS = "() => window.__keys.slice(1).map((t, i) => t - window.__keys[i])"
KEY_PAUSE_MS = int(re.search(r"const KEY_PAUSE_MS = (\d+)", (ROOT / "app/kit/instrument.js").read_text()).group(1))


def announced_after(page, count: int, timeout: float = 20.0) -> list[str]:
    """What the live region said, once it has said `count` things and then nothing more for 1.5 s."""
    deadline = time.monotonic() + timeout
    while len(page.evaluate(ANNOUNCED)) < count:
        assert time.monotonic() < deadline, \
            f"announced {page.evaluate(ANNOUNCED)}, expected {count}; the instrument: {page.evaluate(LIVE_STATE)}"
        draw_a_frame(page)
        time.sleep(0.2)
    time.sleep(1.5)
    draw_a_frame(page)
    return page.evaluate(ANNOUNCED)


def readout_words(read: dict) -> list[str]:
    labels = read["labels"]
    return [f"{label} {value}" for label, value in zip(labels, read["metrics"])]


READOUTS = """() => ({labels: [...document.querySelectorAll('.lcsm-metric-label')].map(e => e.textContent),
                      metrics: [...document.querySelectorAll('.lcsm-metric-value')].map(e => e.textContent)})"""


def test_the_live_region_announces_each_committed_move_once(app_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        open_instrument(page, f"{app_url}/spring")
        page.evaluate(WATCH_LIVE)
        page.evaluate(KEY_TIMES)
        swept = page.locator(".lcsm-swept input[type=range]")
        swept.focus()
        for _ in range(6):                                                     # one move: the keys never pause
            page.evaluate("() => { window.__keys = []; window.__announced = []; window.__announcedAt = []; }")
            at, last = int(swept.input_value()), int(swept.get_attribute("max"))
            key = "ArrowRight" if at + 3 <= last else "ArrowLeft"             # a key at the end would move nothing
            for _ in range(3):
                page.keyboard.press(key)
            assert int(swept.input_value()) == at + (3 if key == "ArrowRight" else -3), "the keys moved nothing"
            if max(page.evaluate(KEY_GAPS)) < KEY_PAUSE_MS * 0.8:
                break
            # a loaded machine paused between two presses: that was a move; once it is said, again
            wait_url(page, "c", page.evaluate(MEMBER))
            announced_after(page, 1)
        else:
            # what is held here (one announcement per committed move) needs a run of keys with no pause in it
            pytest.skip("six key runs in a row paused between keys: the machine is too loaded to tell")
        last_key = page.evaluate("() => window.__keys[window.__keys.length - 1]")
        assert not page.evaluate("(last) => window.__announcedAt.filter((t) => t <= last)", last_key), \
            "announced while the keys were still moving"
        member = page.evaluate(MEMBER)
        wait_url(page, "c", member)
        settle(page)
        said = announced_after(page, 1)
        assert len(said) == 1 and said[0] == "; ".join(readout_words(page.evaluate(READOUTS)))
        assert "damping ratio ζ" in said[0]

        page.get_by_role("button", name="⚖️ Critically damped").click()        # a preset: said once it is drawn
        wait_url(page, "c", "2")
        settle(page)
        said = announced_after(page, 2)
        assert len(said) == 2 and said[1].startswith("regime critically damped; damping ratio ζ 1")

        page.get_by_role("slider", name="spring constant k").focus()           # another control: the same
        page.keyboard.press("ArrowRight")
        wait_url(page, "k", "1.05")
        settle(page)
        said = announced_after(page, 3)
        assert len(said) == 3 and said[2] == "; ".join(readout_words(page.evaluate(READOUTS)))
    finally:
        page.close()


# A page whose settings are Streamlit's widgets: its readouts said by app/kit/announce.py's region.
WATCH_PAGE_LIVE = WATCH_LIVE.replace(".lcsm-instrument [aria-live]", ".lcsm-announce")
METRICS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMetric"]')].map(m =>
  [m.querySelector('[data-testid="stMetricLabel"]').innerText.trim(),
   m.querySelector('[data-testid="stMetricValue"]').innerText.trim()])"""


def test_a_widget_page_announces_its_readouts_once_per_move(app_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        open_streamlit_page(page, f"{app_url}/online_learners")
        region = page.locator(".lcsm-announce")
        assert region.count() == 1 and region.get_attribute("aria-live") == "polite"
        assert region.inner_text() == "", "said something on load"
        page.evaluate(WATCH_PAGE_LIVE)
        slider = page.get_by_role("slider", name="learning rate β (DeltaNet, Longhorn)")
        slider.focus()
        page.keyboard.press("ArrowLeft")
        said = announced_after(page, 1)
        page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=60000)
        metrics = page.evaluate(METRICS)
        assert len(said) == 1 and metrics, said
        assert said[0].startswith("; ".join(f"{label} {value}" for label, value in metrics)), (said, metrics)
        page.get_by_role("slider", name="seed").focus()                        # another move: said again, once
        page.keyboard.press("ArrowRight")
        assert len(announced_after(page, 2)) == 2
    finally:
        page.close()

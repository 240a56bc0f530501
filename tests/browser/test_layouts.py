"""Projector and phone layouts: every page at 1280×720 (normal and presenter view) and 390×844. (The 1280×720 and
390×844 checks of the page as a learner finds it run in the accessibility gate's passes, `projector_layout` and
`phone_layout`: one page load for both; the presenter view's here.)

Checked with element bounding boxes, not by eye alone (the screenshots in tests/screenshots/layout-*.png
are for that):
- no metric label, value or delta, nor widget label, is cut ("underdam…"): its text box is as wide as its text
  (on lessons 1–5, the lesson instrument's readouts and control labels: app/kit/instrument.py);
- nothing in the main block is wider than the window, unless it sits inside a box that scrolls sideways
  (a wide table or equation scrolls; the page itself never does);
- at 1280×720 the sidebar's first control shows without scrolling; on lessons 1–5, whose controls are the
  instrument's (their sidebar holds only the share panel and the score), the instrument's first control and the
  swept one (the spring's damping c among them) show without scrolling, beside the main chart, whole;
- at 1280×720 in the presenter view (`?present=1`) the page's main chart (its first; a lesson instrument's
  `.lcsm-main`) and the controls in use (the first one, and the setting the page previews while dragging) are all
  within the first screen, the main chart whole — a live page's too (Paper lab's heatmap) — and so with a
  challenge opened by the link (`&challenge=1`, as the class path's projector links do: the challenge sits under
  the charts there) (issue 21.5);
- on a phone the controls of the main chart sit with it on every lesson: the instrument's swept control (lessons
  1–5, once the drag preview's family is in), or the copy of its controls (`app/kit/chart_controls.py`) in the page,
  on the same screen as the chart;
- on a phone no chart's title, subplot titles and legend overlap; every x-axis title is whole (inside its chart,
  not cut by the box around it, clear of the tick labels); the charts stack, one a row (heatmaps among them), and
  no colour bar's tick labels overlap.
One browser and one app serve every page; a page is read once it finished running and drew its charts.
"""
import time
from urllib.parse import urlsplit

import pytest

from tests.browser.app_server import FULL_SHOTS, ROOT, needs_chromium

SHOTS = ROOT / "tests" / "screenshots"
PAGES = ("", "spring", "discretize", "rings", "lru_stability", "propagation", "eos_view", "online_learners",
         "train_live", "paper_lab", "check_math")
DYNAMICS = ("spring", "discretize", "rings", "lru_stability", "propagation")   # drawn by the lesson instrument
PROJECTOR, PHONE = (1280, 720), (390, 844)

pytestmark = [pytest.mark.browser, needs_chromium]

# A lesson instrument is ready once drawn (`data-drawn`) with its family, no commit pending, and every one of its
# charts drawn.
READY = """(instrument) => { const app = document.querySelector('[data-testid="stApp"]');
  const root = document.querySelector('.lcsm-instrument');
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !!document.querySelector('[data-testid="stMainBlockContainer"] h1')
    && !document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')
    && [...document.querySelectorAll('[data-testid="stPlotlyChart"], .lcsm-instrument figure.lcsm-chart')]
         .every(c => c.querySelector('.main-svg'))
    && (!instrument || (!!root && root.dataset.drawn !== undefined && !root.classList.contains('lcsm-pending')
                        && !!root.querySelector('.lcsm-swept'))) }"""   # its family in: no rerun to follow

# Text boxes narrower than their text (Streamlit ends them with "…"): a metric's label, value and delta, and the
# label of a widget (a toggle's, in the presenter view's narrow columns); the lesson instrument's the same: its
# readouts' label, value and delta, and its controls' labels and shown values.
CUT_TEXT = """() => [...document.querySelectorAll('[data-testid="stMetricLabel"] p, [data-testid="stMetricValue"], '
    + '[data-testid="stMetricValue"] div, [data-testid="stMetricDelta"] div, [data-testid="stWidgetLabel"] p, '
    + '[data-testid="stCheckbox"] label p, .lcsm-metric-label, .lcsm-metric-value, .lcsm-metric-delta, '
    + '.lcsm-control label, .lcsm-control .lcsm-value, .lcsm-preset')]
  .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
  .map(e => `${e.closest('[data-testid="stMetric"], .lcsm-metric') ? 'metric' : 'label'} `
            + `${JSON.stringify(e.innerText.trim().slice(0, 40))}: text ${e.scrollWidth} px in ${e.clientWidth} px`)"""

# Elements of the main block whose right edge passes the block's (or the window's), outside any box that scrolls
# sideways; and equations cut by their box (wider than it, and it does not scroll).
OVERFLOW = """() => { const main = document.querySelector('[data-testid="stMainBlockContainer"]'), out = [];
  const edge = Math.min(document.documentElement.clientWidth, main.getBoundingClientRect().right);
  const scrolls = e => { for (let p = e.parentElement; p && p !== main; p = p.parentElement) {
      const s = getComputedStyle(p);                      // a scroll box, or a visually hidden one (a11y inputs)
      if (['auto', 'scroll'].includes(s.overflowX) || s.clip !== 'auto' || s.clipPath !== 'none') return true; }
    return false };
  for (const e of main.querySelectorAll('*')) {
    const b = e.getBoundingClientRect();
    if (b.width === 0 || b.height === 0 || b.right <= edge + 1 || scrolls(e)    // below: unseen MathML and
        || e.closest('.katex-mathml') || (e.ownerSVGElement && e.closest('.katex'))) continue;  // clipped glyphs
    const id = (e.closest('[data-testid]') || e).dataset.testid;
    out.push(`${id} <${e.tagName.toLowerCase()}> ${JSON.stringify((e.innerText || '').trim().slice(0, 40))}: `
             + `right edge ${Math.round(b.right)} px > ${Math.round(edge)} px`);
    if (out.length > 5) break; }
  for (const k of main.querySelectorAll('.katex-display')) {
    const s = getComputedStyle(k).overflowX;
    if (k.scrollWidth > k.clientWidth + 1 && s !== 'auto' && s !== 'scroll')
      out.push(`equation ${JSON.stringify(k.innerText.trim().slice(0, 30))} cut: `
               + `${k.scrollWidth} px in ${k.clientWidth} px`); }
  return out }"""

# Every chart of the page: Streamlit's, and the lesson instrument's (the main one first, then the others).
PLOTS = "'[data-testid=\"stPlotlyChart\"] .js-plotly-plot, .lcsm-instrument figure.lcsm-chart .js-plotly-plot'"

# Per chart, the boxes of its title, notes (subplot titles among them) and legend entries: pairs that overlap,
# and any that sticks out of the chart (plotly cuts text at the chart's edge).
CHART_OVERLAPS = """() => { const out = [];
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  document.querySelectorAll(""" + PLOTS + """).forEach((plot, n) => {
    const title = plot.querySelector('.gtitle'), legend = plot.querySelector('.legend .scrollbox');
    const name = `chart ${n + 1} (${(title && title.textContent.slice(0, 30)) || 'untitled'})`;
    const boxes = [];
    if (title) boxes.push(['title', title]);
    plot.querySelectorAll('.annotation-text').forEach(a => {
      if (a.textContent.trim()) boxes.push(['note ' + JSON.stringify(a.textContent.slice(0, 30)), a]) });
    if (legend) boxes.push(['legend', legend]);
    plot.querySelectorAll('.modebar-group').forEach(g => { if (getComputedStyle(g).opacity !== '0')
      boxes.push(['tool bar', g]) });                  // shown for good on a touch screen
    const rects = boxes.map(([what, e]) => [what, e.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
    const frame = plot.getBoundingClientRect();
    for (let i = 0; i < rects.length; i++) {
      const r = rects[i][1];
      if (rects[i][0] !== 'tool bar' && (r.left < frame.left - 1 || r.right > frame.right + 1 || r.top < frame.top - 1))
        out.push(`${name}: ${rects[i][0]} sticks out of the chart`);
      for (let j = i + 1; j < rects.length; j++)
        if (hit(r, rects[j][1]) && !(rects[i][0] === 'tool bar' && rects[j][0] === 'tool bar'))
          out.push(`${name}: ${rects[i][0]} overlaps ${rects[j][0]}`); } });
  return out }"""

# The sidebar's first widget, and the spring's damping slider: their bottom edge (px from the top of the window).
CONTROL_BOTTOM = """(label) => { const side = document.querySelector('[data-testid="stSidebarUserContent"]');
  if (!side) return {};
  const first = side.querySelector('[data-testid="stWidgetLabel"]');
  const widget = first && first.closest('.stElementContainer, [data-testid="stElementContainer"]');
  const out = {first: widget ? [first.innerText.trim(), widget.getBoundingClientRect().bottom] : null};
  if (label) { const lab = [...side.querySelectorAll('[data-testid="stWidgetLabel"]')]
      .find(e => e.innerText.trim() === label);
    const box = lab && lab.closest('.stElementContainer, [data-testid="stElementContainer"]');
    out.named = box ? [label, box.getBoundingClientRect().bottom] : [label, null]; }
  return out }"""

# Whether the phone's copy of the main chart's controls is on screen (it must not be where the sidebar is open).
COPY_SHOWN = """() => [...document.querySelectorAll('.st-key-chart_controls')].some(e => e.offsetParent !== null)"""

# Page → the control a teacher reaches for first, checked above the fold by its label (the spring's: its instrument's
# swept control, checked on every lesson 1–5 by `INSTRUMENT_FOLD`).
MAIN_CONTROL = {"spring": "damping c"}

# The presenter view's first screen: the main chart (the page's first) and the controls column's first widget and
# the one labelled `label` (the setting the page previews while dragging): [label, top, bottom] of each (px).
PRESENTER_FOLD = """(label) => { const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const span = e => { const b = e.getBoundingClientRect(); return [Math.round(b.top), Math.round(b.bottom)] };
  const controls = document.querySelector('.st-key-presenter_controls');
  const labels = controls ? [...controls.querySelectorAll('[data-testid="stWidgetLabel"]')] : [];
  const widget = l => l.closest('[data-testid="stElementContainer"]') || l;
  const chart = main.querySelector('[data-testid="stPlotlyChart"]');
  const named = label && labels.find(l => l.innerText.trim() === label);
  return {chart: chart ? [(chart.querySelector('.gtitle') || {}).textContent || 'chart', ...span(chart)] : null,
          first: labels.length ? [labels[0].innerText.trim(), ...span(widget(labels[0]))] : null,
          named: label ? (named ? [label, ...span(widget(named))] : [label, null, null]) : null} }"""

# The same on a lesson instrument (lessons 1–5): its main chart (`.lcsm-main`), its first control, and the control
# of the setting `name` (the swept one): [label, top, bottom] of each (px).
INSTRUMENT_FOLD = """(name) => { const root = document.querySelector('.lcsm-instrument');
  const span = e => { const b = e.getBoundingClientRect(); return [Math.round(b.top), Math.round(b.bottom)] };
  const controls = root ? [...root.querySelectorAll('.lcsm-controls .lcsm-control[data-name]')]
    .filter(c => c.offsetParent !== null) : [];
  const label = c => (c.querySelector('label') || c).innerText.trim();
  const chart = root && root.querySelector('.lcsm-main figure.lcsm-chart');
  const named = name && controls.find(c => c.dataset.name === name);
  return {chart: chart ? [(chart.querySelector('.gtitle') || {}).textContent || 'chart', ...span(chart)] : null,
          first: controls.length ? [label(controls[0]), ...span(controls[0])] : null,
          named: name ? (named ? [label(named), ...span(named)] : [name, null, null]) : null} }"""

# Per chart on a phone: x-axis titles cut (outside the chart, or by a box around it that hides what overflows) or
# on top of tick labels; charts side by side; colour-bar tick labels on top of each other.
PHONE_CHARTS = """() => { const out = [], main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const width = main.getBoundingClientRect().width;
  document.querySelectorAll(""" + PLOTS + """).forEach((plot, n) => {
    const title = plot.querySelector('.gtitle');
    const name = `chart ${n + 1} (${(title && title.textContent.slice(0, 30)) || 'untitled'})`;
    const frame = plot.getBoundingClientRect();
    if (frame.width < 0.85 * width) out.push(`${name}: ${Math.round(frame.width)} px wide in ${Math.round(width)} px:`
                                              + ' not stacked');
    let clip = null;
    for (let e = plot.parentElement; e && e !== main; e = e.parentElement) {
      const st = getComputedStyle(e);
      if (st.overflowY !== 'visible') { clip = e.getBoundingClientRect(); break; } }
    const ticks = [...plot.querySelectorAll('.xaxislayer-above text, .yaxislayer-above text')]
      .map(t => t.getBoundingClientRect()).filter(r => r.width > 0);
    plot.querySelectorAll('[class^="g-x"][class$="title"] text').forEach(t => {
      const b = t.getBoundingClientRect(), what = `${name}: x-axis title ${JSON.stringify(t.textContent)}`;
      if (!t.textContent.trim() || b.width === 0) return;
      if (b.top < frame.top - 1 || b.bottom > frame.bottom + 1 || b.left < frame.left - 1 || b.right > frame.right + 1)
        out.push(`${what} sticks out of the chart`);
      if (clip && b.bottom > clip.bottom + 1) out.push(`${what} is cut at ${Math.round(clip.bottom)} px`);
      if (ticks.some(r => hit(b, r))) out.push(`${what} overlaps tick labels`); });
    plot.querySelectorAll('.colorbar').forEach(bar => {
      const labels = [...bar.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()])
        .filter(([, r]) => r.width > 0);
      for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++)
        if (hit(labels[i][1], labels[j][1])) {
          out.push(`${name}: colour-bar labels ${JSON.stringify(labels[i][0])} and ${JSON.stringify(labels[j][0])} `
                   + 'overlap'); return; } }); });
  return out }"""


# On a phone: whether the lesson instrument's swept control steps through the drag preview's family (`lcsm-swept`),
# and the tops (px, page coordinates) of the main chart (the page's first; the instrument's `.lcsm-main`) and of the
# control of that chart: the instrument's swept control, or the first visible widget in the copy of the chart's
# controls (None where there is none).
PHONE_CONTROLS = """() => { const main = document.querySelector('[data-testid="stMain"]');
  const top = e => Math.round(e.getBoundingClientRect().top + main.scrollTop);
  const root = document.querySelector('[data-testid="stMainBlockContainer"] .lcsm-instrument');
  const chart = root ? root.querySelector('.lcsm-main figure.lcsm-chart')
    : document.querySelector('[data-testid="stMainBlockContainer"] [data-testid="stPlotlyChart"]');
  const copy = document.querySelector('[data-testid="stMainBlockContainer"] .st-key-chart_controls');
  const widget = root ? root.querySelector('.lcsm-swept input[type=range]')
    : copy && [...copy.querySelectorAll('[data-testid="stWidgetLabel"]')].find(e => e.offsetParent);
  return {swept: !!(root && root.querySelector('.lcsm-swept input[type=range]')), chart: chart ? top(chart) : null,
          control: widget ? top(widget) : null} }"""


@pytest.fixture(scope="module")
def browser_and_url(browser, app_url):
    return browser, app_url


def open_page(page, url: str, timeout: float = 90.0) -> None:
    """Go to `url` and wait until its script finished, nothing is stale or a skeleton, and every chart drew (on a
    lesson 1–5, its instrument's too, with no commit pending)."""
    page.goto(url)
    wait_drawn(page, timeout)


def wait_drawn(page, timeout: float = 90.0) -> None:
    """Until the page's script finished, nothing is stale or a skeleton, and every chart drew (on a lesson 1–5, its
    instrument's too, with no commit pending)."""
    url = page.url
    instrument = url.split("?")[0].rstrip("/").rsplit("/", 1)[-1] in DYNAMICS
    deadline, calm = time.monotonic() + timeout, 0
    while calm < 3:                                 # three calm polls in a row: a rerun may follow the first run
        assert time.monotonic() < deadline, f"{url} did not finish drawing"
        calm = calm + 1 if page.evaluate(READY, instrument) else 0
        time.sleep(0.15)


def name_of(path: str) -> str:
    return path or "home"


def path_of(page) -> str:
    """The page's path as PAGES names it ("" for Home)."""
    return urlsplit(page.url).path.strip("/")


def projector_layout(page) -> list[str]:
    """At 1280×720 as a learner finds the page (no fold opened; the accessibility gate's pass calls it, one load for
    both): no metric or label cut, nothing wider than the main block; on lessons 1–5 the instrument's first and
    swept controls and its main chart whole on the first screen, on the other lessons the sidebar's first control
    above the fold and no phone copy of the chart's controls beside it. A screenshot for looking at."""
    try:
        wait_drawn(page)
    except AssertionError as why:                  # said by the page's test, not by the whole pass
        return [str(why)]
    path = path_of(page)
    page.screenshot(path=str(SHOTS / f"layout-1280-{name_of(path)}.png"))
    found = page.evaluate(CUT_TEXT) + page.evaluate(OVERFLOW)
    if path in DYNAMICS:                            # lessons 1–5: the controls are the instrument's, by its main chart
        fold = page.evaluate(INSTRUMENT_FOLD, swept_name(path))
        found += presenter_fold(fold)
        if path in MAIN_CONTROL and fold["named"][0] != MAIN_CONTROL[path]:
            found.append(f"the swept control is {fold['named'][0]!r}, not {MAIN_CONTROL[path]!r}")
    elif path:                                      # lessons: controls in the sidebar, open at this width
        where = page.evaluate(CONTROL_BOTTOM, MAIN_CONTROL.get(path))
        for key in ("first", "named"):
            if key in where and (where[key] is None or where[key][1] is None or where[key][1] > PROJECTOR[1]):
                found.append(f"sidebar control {where[key]} ends below the fold ({PROJECTOR[1]} px)")
        if page.evaluate(COPY_SHOWN):
            found.append("the phone's copy of the chart's controls shows beside the open sidebar")
    return found


def swept_label(path: str) -> str | None:
    """The label of the setting a page previews while dragging (None for a page without a preview)."""
    from lcsm_explorer.app.lessons import lesson

    sweep = lesson(path).sweep
    return lesson(path).settings[sweep.setting].label if sweep is not None else None


def swept_name(path: str) -> str | None:
    """The name of the setting a page previews while dragging (None for a page without a preview)."""
    from lcsm_explorer.app.lessons import lesson

    sweep = lesson(path).sweep
    return sweep.setting if sweep is not None else None


def presenter_fold(found: dict) -> list[str]:
    """What of the presenter view's main chart (whole) and controls in use lies outside the first screen."""
    def outside(what: str, box) -> bool:
        return box[1] is None or box[1] < 0 or box[2] > PROJECTOR[1]

    return [f"{what} {box[0]!r} is not within the first screen (top {box[1]}, bottom {box[2]} px; "
            f"the screen is {PROJECTOR[1]} px)"
            for what, box in (("main chart", found["chart"]), ("first control", found["first"]),
                              ("previewed control", found["named"]))
            if box is not None and outside(what, box)] + (
        ["no control in the presenter view's controls column"] if found["first"] is None else [])


def test_presenter_view_at_1280x720_cuts_no_metric_and_shows_main_chart_and_controls(browser_and_url):
    browser, url = browser_and_url
    page = browser.new_page(viewport=dict(zip(("width", "height"), PROJECTOR)))
    problems = []
    try:
        for path, query in [("spring", "present=1")] + [(path, "present=1&challenge=1") for path in PAGES[1:]]:
            open_page(page, f"{url}/{path}?{query}")       # the class path's projector link opens a challenge
            page.screenshot(path=str(SHOTS / f"layout-present-{path}.png"))
            problems += [f"{path}: {p}" for p in page.evaluate(CUT_TEXT) + page.evaluate(OVERFLOW)]
            fold = presenter_fold(page.evaluate(INSTRUMENT_FOLD, swept_name(path)) if path in DYNAMICS
                                  else page.evaluate(PRESENTER_FOLD, swept_label(path)))
            problems += [f"{path}: {p}" for p in fold]
    finally:
        page.close()
    assert not problems, "\n".join(problems)


def phone_layout(page) -> list[str]:
    """At 390×844 on a phone, as a learner finds the page (no fold opened; the accessibility gate's phone pass calls
    it, one load for both): no metric or label cut, nothing wider than the main block, no chart's title, legend or
    axis title overlapping, the charts one a row, and the main chart's controls with it. A screenshot for looking
    at."""
    try:
        wait_drawn(page)
    except AssertionError as why:                  # said by the page's test, not by the whole pass
        return [str(why)]
    path = path_of(page)
    page.screenshot(path=str(SHOTS / f"layout-390-{name_of(path)}.png"))
    found = page.evaluate(CUT_TEXT) + page.evaluate(OVERFLOW) + page.evaluate(CHART_OVERLAPS)
    found += page.evaluate(PHONE_CHARTS)
    if path:
        found += phone_controls_with_chart(phone_controls(page, swept=path in DYNAMICS), swept=path in DYNAMICS)
    if FULL_SHOTS:
        whole_page_shot(page, SHOTS / f"layout-390-{name_of(path)}-full.png")
    return found


def phone_controls(page, swept: bool, timeout: float = 45.0) -> dict:
    """`PHONE_CONTROLS` once a swept page's family is in (its swept control is a plain range until then, computed
    off the request path: on a busy machine a few seconds after the page finished)."""
    deadline = time.monotonic() + timeout
    found = page.evaluate(PHONE_CONTROLS)
    while swept and not found["swept"] and time.monotonic() < deadline:
        time.sleep(0.5)
        found = page.evaluate(PHONE_CONTROLS)
    return found


def phone_controls_with_chart(found: dict, swept: bool) -> list[str]:
    """On a phone: a swept page's instrument draws its swept control (stepping through the drag preview's family);
    any other lesson draws the copy of its chart's controls in the page; either starts within one screen of the
    main chart's top (a page without a chart at this moment, Train live before a run, Check the math: the copy
    alone)."""
    if swept and not found["swept"]:
        return ["the instrument's swept control does not step through the drag preview's family"]
    if found["control"] is None:
        return ["no control of the main chart in the page (only in the sidebar)"]
    if found["chart"] is not None and abs(found["control"] - found["chart"]) > PHONE[1]:
        return [f"the main chart's controls start {abs(found['control'] - found['chart'])} px from it: more than a "
                f"screen ({PHONE[1]} px)"]
    return []


def whole_page_shot(page, path) -> None:
    """The main block scrolls inside the window (a full-page shot shows one screen): the window grows to the
    block's height for the shot, then returns to phone size (charts keep their heights; only widths reflow)."""
    size = page.viewport_size
    tall = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(tall, 16000))})
    try:
        time.sleep(0.3)
        page.screenshot(path=str(path), animations="disabled")
    finally:
        page.set_viewport_size(size)

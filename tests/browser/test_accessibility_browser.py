"""The accessibility gate (WCAG 2.2 AA) on Home, Class view and every lesson, every fold open.

- axe-core (benchmarks/accessibility.py's `audit`: every rule axe runs by default and target-size, none disabled, no
  element excluded) at 1280×720 and 390×844: no violation of any impact (the issue asks none critical or serious);
- reflow (1.4.10) at 320 CSS px (a 1280-px window at 400 %) and at 1280×720: nothing scrolls sideways — not the
  page, not the main column, not a display equation (made to fit its column: its scrollWidth is at most its
  width; a box that scrolls would not count) — but a data table (a grid: two-dimensional by nature);
- target size (2.5.8): axe's target-size covers what a keyboard reaches; plotly's tool-bar buttons, which it does
  not see, are 24×24 px or spaced so that a 24-px circle on each touches no other;
- what a screen reader gets (chromium's accessibility tree): every control a learner can operate has a name, every
  slider its value;
- the page's language (3.1.1) is set; one h1 a page, and no heading level skipped in the page or its sidebar;
- every formula shown carries KaTeX's MathML, what a screen reader reads (Streamlit's and the instrument's); no
  TeX source shows as text, and the instrument's live equations never scroll sideways;
- with `prefers-reduced-motion: reduce` the lesson instrument's transitions are off, and nothing on the page moves
  longer than a blink (2.3.3);
- on a phone a control the keyboard reaches is not hidden behind the instrument's readouts, which stay at the foot
  of the screen (2.4.11);
- at 1280×720 and on a phone (390×844, opened as a mobile page with touch), before any fold opens,
  tests/browser/test_layouts.py's projector and phone checks (`projector_layout`, `phone_layout`);
- every page runs without an exception at every size; the navigation shows Home and its sections; each lesson
  instrument draws its charts; and a screen reader's pass over a charted lesson (its accessibility tree, as a
  learner finds it at 1280×720) meets every chart as a figure named by the summary the server computes from it
  (tests/browser/test_chart_text_browser.py: the words themselves, and how they follow a move).
- a teacher's screens, at projector size: a dynamics lesson's and a widget page's presenter view (`?present=1`),
  the Class view of a running class and its projector view — no critical or serious violation, one h1, no level
  skipped (`benchmarks/accessibility.py --presenter` audits every lesson's).
One app and one browser serve every check; a page is read once it has finished running.
"""
import re

import pytest

from benchmarks.accessibility import (
    PROJECTED_CLASS,
    RUNNING_CLASS,
    VIEWPORTS,
    audit,
    open_page,
    page_names,
    wait_idle,
)
from tests.browser.app_server import needs_chromium
from tests.browser.test_chart_text_browser import STREAMLIT_PAGES, figure_names, summaries
from tests.browser.test_instrument_browser import DYNAMICS
from tests.browser.test_layouts import PAGES as LAYOUT_PAGES
from tests.browser.test_layouts import phone_layout, projector_layout

# one test process runs them all: the audit (minutes) is one module fixture (scripts/test.sh: --dist loadgroup)
pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.xdist_group("accessibility")]

PAGES = page_names()
BLOCKING = ("critical", "serious")

# What scrolls sideways: the page, and every box that shows more by scrolling (overflow auto or scroll) or is a
# display equation; a data table may (st.dataframe's grid, or a chart's "Show the data" table in its focusable
# region). What no one can see (a folded sidebar) is left out.
SIDEWAYS = """() => { const out = [], doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth)
    out.push(`the page: ${doc.scrollWidth} px in a ${window.innerWidth}-px window`);
  for (const e of document.querySelectorAll('body *')) {
    if (e.scrollWidth <= e.clientWidth) continue;
    const equation = e.classList.contains('katex-display'), style = getComputedStyle(e);
    if (!equation && !['auto', 'scroll'].includes(style.overflowX)) continue;
    const box = e.getBoundingClientRect();
    if (box.width === 0 || box.right <= 0 || box.left >= window.innerWidth
        || !e.checkVisibility({visibilityProperty: true})) continue;
    if (e.closest('[data-testid="stDataFrame"]') || e.matches('[role="region"][tabindex="0"]:has(> table)'))
      continue;                                                  // a data table's own focusable scroll region
    const what = equation ? `equation ${JSON.stringify(e.innerText.trim().slice(0, 30))}`
      : `${(e.closest('[data-testid]') || e).getAttribute('data-testid') || e.tagName.toLowerCase()} box`;
    out.push(`${what}: ${e.scrollWidth} px in ${e.clientWidth} px`); }
  return out }"""

# Every heading shown: [level, where ("sidebar", "main" or "elsewhere"), text].
HEADINGS = """() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]')]
  .filter(h => h.checkVisibility({visibilityProperty: true}))
  .map(h => [Number(h.getAttribute('aria-level') || h.tagName.slice(1)),
             h.closest('[data-testid="stSidebar"]') ? 'sidebar'
               : h.closest('[data-testid="stMain"]') ? 'main' : 'elsewhere',
             h.textContent.trim().slice(0, 50)])"""

# Every KaTeX formula: how many, and those without MathML inside (a screen reader would get nothing).
MATH = """() => { const all = [...document.querySelectorAll('.katex')];
  return {formulas: all.length, without: all.filter(k => !k.querySelector('.katex-mathml math semantics'))
    .map(k => k.textContent.trim().slice(0, 30))} }"""

# plotly's tool-bar buttons under 24×24 px whose 24-px circle (on the centre of the button) reaches another button,
# or another small button's circle (WCAG 2.5.8's spacing exception).
TOOL_BAR = """() => { const buttons = [...document.querySelectorAll('.modebar-btn')]
    .map(e => [e, e.getBoundingClientRect()]).filter(([, r]) => r.width > 0 && r.height > 0);
  const centre = r => [r.left + r.width / 2, r.top + r.height / 2];
  const small = r => r.width < 24 || r.height < 24;
  const reaches = ([x, y], r) =>
    Math.max(r.left - x, 0, x - r.right) ** 2 + Math.max(r.top - y, 0, y - r.bottom) ** 2 < 144;
  const apart = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  const out = [];
  for (const [e, r] of buttons) {
    if (!small(r)) continue;
    const c = centre(r);
    const near = buttons.find(([f, s]) => f !== e && (reaches(c, s) || (small(s) && apart(centre(s), c) < 24)));
    if (near) out.push(`${e.getAttribute('data-title')} (${Math.round(r.width)}×${Math.round(r.height)} px) next to `
                       + near[0].getAttribute('data-title')); }
  return out }"""

# Visible text that is TeX source: a command, a sub/superscript group, or a TeX environment.
TEX_SOURCE = r"""() => {
  const walker = document.createTreeWalker(document.querySelector('[data-testid="stMain"]') || document.body,
    NodeFilter.SHOW_TEXT);
  const found = [];
  const tex = /\\(frac|text|lambda|mathbb|begin|sqrt|quad|theta|sum|odot|top|Delta)\b|[_^]\{|\$[^$\s][^$]*\$/;
  while (walker.nextNode()) {
    const node = walker.currentNode, parent = node.parentElement;
    if (!parent || parent.closest('.katex, script, style, code, pre, annotation, textarea, [hidden]')) continue;
    if (!parent.offsetParent && getComputedStyle(parent).position !== 'fixed') continue;     // not rendered
    if (tex.test(node.textContent)) found.push(node.textContent.trim().slice(0, 80));
  }
  return found;
}"""
# The live equations (the instrument's): their block never scrolls sideways.
OVERFLOW = """() => [...document.querySelectorAll('.lcsm-equations, .lcsm-equation')]
  .filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 1).map(e => [e.scrollWidth, e.clientWidth])"""

# What a screen reader gets: every control a learner can operate has a name, every slider says its value.
OPERABLE = {"slider", "spinbutton", "combobox", "checkbox", "button", "textbox", "radio", "switch", "link", "tab",
            "menuitem", "listbox", "searchbox"}
VALUED = {"slider"}                  # a number box may be empty (an answer not yet typed)




def value_of(node: dict, key: str) -> str:
    field = node.get(key) or {}
    return str(field.get("value", "")).strip()


def unnamed_controls(tree: list[dict]) -> list[str]:
    """The operable nodes without a name, and the sliders without a value."""
    faults = []
    for node in tree:
        if node.get("ignored"):
            continue
        role = value_of(node, "role")
        if role not in OPERABLE:
            continue
        name = value_of(node, "name")
        if not name:
            faults.append(f"{role} without a name (node {node.get('backendDOMNodeId')})")
        elif role in VALUED and not (value_of(node, "value") or any(
                p.get("name") == "valuetext" for p in node.get("properties", []))):
            faults.append(f"{role} {name!r} without a value")
    return faults


def controls_read(page) -> dict:
    """What a screen reader gets of the page's controls, from chromium's accessibility tree (the DevTools protocol's
    Accessibility.getFullAXTree): how many operable nodes, and those without a name or (sliders) a value."""
    session = page.context.new_cdp_session(page)
    try:
        tree = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    return {"operable": sum(1 for n in tree if not n.get("ignored") and value_of(n, "role") in OPERABLE),
            "unnamed": unnamed_controls(tree)}


# How many traces each of a lesson instrument's charts drew (none on a page without the instrument).
CHART_DATA = """() => [...document.querySelectorAll('.lcsm-instrument figure.lcsm-chart .js-plotly-plot')]
  .map(d => (d.data || []).length)"""


def as_found(page) -> dict:
    """The page as a learner finds it, once drawn (after `projector_layout`, which waits for every chart): the
    navigation's sections, the instrument's charts (traces in each), and the figures a screen reader meets and
    their names (the main block's accessibility tree)."""
    return {"sections": page.locator('[data-testid="stTopNavSection"]').count(),
            "charts": page.evaluate(CHART_DATA),
            "figures": figure_names(page.locator('[data-testid="stMain"]').aria_snapshot())}


def exceptions(page) -> list[str]:
    """The start of each exception the page shows (Streamlit's box for an error the script raised)."""
    return [text[:500] for text in page.locator('[data-testid="stException"]').all_inner_texts()]


PROBES = {"controls": controls_read, "exceptions": exceptions, "tex": lambda page: page.evaluate(TEX_SOURCE),
          "equations": lambda page: page.evaluate(OVERFLOW),
          "sideways": lambda page: page.evaluate(SIDEWAYS), "headings": lambda page: page.evaluate(HEADINGS),
          "math": lambda page: page.evaluate(MATH), "tool_bar": lambda page: page.evaluate(TOOL_BAR),
          "lang": lambda page: page.evaluate("() => document.documentElement.lang")}
NARROW = (320, 640)
SIZES = (*VIEWPORTS, "320×640")        # every viewport the probes look at; axe looks at the first two
SETTLED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def narrowed(page) -> dict:
    """The probes on the page made 320 px wide (the phone's page, not loaded again: a third fewer page loads)."""
    page.set_viewport_size({"width": NARROW[0], "height": NARROW[1]})
    page.evaluate(SETTLED)
    page.wait_for_timeout(300)                 # plotly's own resize waits for the window to stop changing
    wait_idle(page)
    page.evaluate(SETTLED)
    return {name: look(page) for name, look in PROBES.items()}

# The longest transition and animation (s; a delay moves nothing) of the lesson instrument's pending state (`.lcsm-main`
# fades), of the rest of the instrument, and of every other element of the page.
MOTION = """() => { const root = document.querySelector('.lcsm-instrument');
  root.classList.add('lcsm-pending');                      // what a commit waiting for the server shows
  const seconds = list => Math.max(0, ...list.split(',')
    .map(t => parseFloat(t) * (t.trim().endsWith('ms') ? 1e-3 : 1)));
  const longest = e => { const s = getComputedStyle(e);
    return Math.max(seconds(s.transitionDuration), s.animationName === 'none' ? 0 : seconds(s.animationDuration)) };
  const out = {pending: longest(root.querySelector('.lcsm-main')), instrument: 0, page: 0};
  for (const e of document.querySelectorAll('*')) {
    const where = root.contains(e) ? 'instrument' : 'page';
    out[where] = Math.max(out[where], longest(e)); }
  root.classList.remove('lcsm-pending');
  return out }"""


# The focused element, and whether the lesson instrument's readouts (sticky at the foot of a phone's screen) cover
# all of it.
FOCUS_HIDDEN = """() => { const at = document.activeElement.getBoundingClientRect();
  const cover = document.querySelector('.lcsm-readouts').getBoundingClientRect();
  return [document.activeElement.outerHTML.slice(0, 80), at.top >= cover.top && at.bottom <= cover.bottom] }"""


@pytest.fixture(scope="module")
def app_and_browser(app_url, browser):
    return app_url, browser


@pytest.fixture(scope="module")
def audited(app_and_browser) -> dict:
    """(page, viewport label) → what was found there: axe's violations at the laptop's and the phone's viewport
    (`audit`'s rows) and the probes at those and at 320 px (the phone's page made narrower)."""
    url, browser = app_and_browser
    laptop, phone = ({label: size} for label, size in VIEWPORTS.items())
    rows = (audit(url, PAGES, laptop, PROBES, browser=browser, folded={"layout": projector_layout, "found": as_found})
            + audit(url, PAGES, phone, {**PROBES, "narrowed": narrowed}, browser=browser,
                    folded={"layout": phone_layout}))
    found = {(row["page"], size_of(row)): row for row in rows}
    for row in rows:
        if "narrowed" in row["probes"]:
            narrow = dict(page=row["page"], viewport=NARROW, violations=[], probes=row["probes"].pop("narrowed"))
            found[(row["page"], size_of(narrow))] = narrow
    return found


def size_of(row: dict) -> str:
    return f"{row['viewport'][0]}×{row['viewport'][1]}"


def rows_of(audited: dict, page: str, sizes=SIZES) -> list[dict]:
    return [audited[(page, size)] for size in sizes]


@pytest.mark.parametrize("page", PAGES)
def test_axe_finds_nothing_of_any_impact(audited, page):
    """The issue asks 0 critical and 0 serious; every page reached 0 of any impact, and is held there."""
    found = [f"{size_of(row)}: {v['id']} ({v['impact']}, ×{v['nodes']}) "
             f"{v['help']} — {v['targets']}"
             for row in rows_of(audited, page, tuple(VIEWPORTS)) for v in row["violations"]]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("page", PAGES)
def test_nothing_scrolls_sideways_at_320_px_or_on_a_laptop(audited, page):
    found = [f"{size}: {what}" for size in ("320×640", "1280×720")
             for what in audited[(page, size)]["probes"]["sideways"]]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("page", PAGES)
def test_one_h1_and_no_heading_level_skipped(audited, page):
    for row in rows_of(audited, page):
        headings = row["probes"]["headings"]
        size = size_of(row)
        assert not [h for h in headings if h[1] == "elsewhere"], (size, headings)
        main = [level for level, where, _ in headings if where == "main"]
        side = [level for level, where, _ in headings if where == "sidebar"]
        assert main[:1] == [1] and main.count(1) == 1, (size, headings)
        assert 1 not in side and side[:1] in ([], [2]), (size, headings)
        for levels in (main, side):
            assert all(b <= a + 1 for a, b in zip(levels, levels[1:])), (size, headings)


@pytest.mark.parametrize("page", PAGES)
def test_no_tex_source_shows_and_the_live_equations_fit(audited, page):
    """Every fold open (the lesson text's and the charts' data included), at the laptop's and the phone's size."""
    for row in rows_of(audited, page, tuple(VIEWPORTS)):
        assert not row["probes"]["tex"], f"{size_of(row)}: TeX source shown as text: {row['probes']['tex']}"
        assert not row["probes"]["equations"], f"{size_of(row)}: a live equation overflows its box"


@pytest.mark.parametrize("page", PAGES)
def test_every_control_has_a_name_and_every_slider_its_value(audited, page):
    for row in rows_of(audited, page, tuple(VIEWPORTS)):
        read = row["probes"]["controls"]
        assert read["operable"], f"{size_of(row)}: no control read"
        assert not read["unnamed"], f"{size_of(row)}: controls a screen reader cannot name: {read['unnamed']}"


@pytest.mark.parametrize("page", [name or "home" for name in LAYOUT_PAGES])
def test_projector_1280x720_metrics_whole_controls_above_the_fold(audited, page):
    """tests/browser/test_layouts.py's checks at projector size, on the page as a learner finds it."""
    found = audited[(page, "1280×720")]["probes"]["layout"]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("page", [name or "home" for name in LAYOUT_PAGES])
def test_phone_390x844_nothing_overflows_and_charts_keep_titles_clear_of_legends(audited, page):
    """tests/browser/test_layouts.py's checks on a phone, on the page as a learner finds it."""
    found = audited[(page, "390×844")]["probes"]["layout"]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("page", PAGES)
def test_no_page_raises_at_any_size(audited, page):
    found = [f"{size_of(row)}: {text}" for row in rows_of(audited, page) for text in row["probes"]["exceptions"]]
    assert not found, "\n".join(found)


def test_the_navigation_shows_its_sections(audited):
    """The pages are reached from the top bar: Home, then a menu per section (app/streamlit_app.py)."""
    assert audited[("home", "1280×720")]["probes"]["found"]["sections"] >= 2


@pytest.mark.parametrize("page", DYNAMICS)
def test_each_lesson_instrument_draws_its_charts(audited, page):
    charts = audited[(page, "1280×720")]["probes"]["found"]["charts"]
    assert charts and all(charts), f"{page}: traces per instrument chart {charts}"


@pytest.mark.parametrize("page", (*DYNAMICS, *STREAMLIT_PAGES))
def test_every_chart_is_a_figure_named_by_its_summary(audited, page):
    """What a screen reader meets: each chart a figure, named by the summary the server computes from its data."""
    names = audited[(page, "1280×720")]["probes"]["found"]["figures"]
    expected = summaries(page)
    assert sorted(names) == sorted(expected.values()), f"{page}: {names}"
    for summary in expected.values():
        assert re.search(r"\d", summary), summary
        assert names.count(summary) == 1, f"{page}: {summary!r} names {names.count(summary)} figures"


@pytest.mark.parametrize("page", PAGES)
def test_the_page_says_its_language(audited, page):
    assert {row["probes"]["lang"] for row in rows_of(audited, page)} == {"en"}


@pytest.mark.parametrize("page", PAGES)
def test_every_formula_carries_mathml(audited, page):
    for row in rows_of(audited, page):
        assert not row["probes"]["math"]["without"], row["probes"]["math"]


def test_the_pages_with_math_are_seen_to_have_it(audited):
    """The MathML check is not empty: Home's equation, check_math's, and the instrument's live equations (spring)."""
    for page in ("home", "check_math", "spring"):
        assert audited[(page, "1280×720")]["probes"]["math"]["formulas"] > 0, page


@pytest.mark.parametrize("page", PAGES)
def test_chart_tool_bar_buttons_are_large_or_spaced(audited, page):
    found = [f"{size_of(row)}: {what}" for row in rows_of(audited, page)
             for what in row["probes"]["tool_bar"]]
    assert not found, "\n".join(found)


PRESENTED = ("spring?present=1", "eos_view?present=1", RUNNING_CLASS, PROJECTED_CLASS)


@pytest.fixture(scope="module")
def presented(app_and_browser) -> dict:
    url, browser = app_and_browser
    laptop = {"1280×720": VIEWPORTS["1280×720"]}
    return {row["page"]: row for row in audit(url, list(PRESENTED), laptop, PROBES, browser=browser)}


@pytest.mark.parametrize("page", PRESENTED)
def test_a_teachers_screens_pass_axe_with_one_h1_and_headings_in_order(presented, page):
    row = presented[page]
    found = [f"{v['id']} ({v['impact']}, ×{v['nodes']}) {v['help']} — {v['targets']}" for v in row["violations"]
             if v["impact"] in BLOCKING or v["id"] == "heading-order"]
    assert not found, "\n".join(found)
    main = [level for level, where, _ in row["probes"]["headings"] if where == "main"]
    assert main[:1] == [1] and main.count(1) == 1, row["probes"]["headings"]
    assert all(b <= a + 1 for a, b in zip(main, main[1:])), row["probes"]["headings"]
    assert not row["probes"]["sideways"], row["probes"]["sideways"]


def test_reduced_motion_turns_the_instruments_transitions_off(app_and_browser):
    url, browser = app_and_browser
    seen = {}
    for motion in ("no-preference", "reduce"):
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        try:
            page = open_page(context, url, "spring")
            page.emulate_media(reduced_motion=motion)
            page.wait_for_selector(".lcsm-instrument[data-drawn]", timeout=60_000)
            wait_idle(page)
            seen[motion] = page.evaluate(MOTION)
        finally:
            context.close()
    assert seen["no-preference"]["pending"] > 0, seen          # the fade the reduced motion takes away
    assert seen["reduce"]["pending"] == 0 and seen["reduce"]["instrument"] == 0, seen
    assert seen["reduce"]["page"] <= 1e-4, seen                # Streamlit's own: a blink (0.01 ms), no motion


def test_a_control_reached_by_keyboard_is_not_hidden_behind_the_phones_readouts(app_and_browser):
    url, browser = app_and_browser
    context = browser.new_context(viewport={"width": NARROW[0], "height": NARROW[1]})
    try:
        page = open_page(context, url, "spring")
        page.wait_for_selector(".lcsm-instrument[data-drawn] .lcsm-swept", timeout=60_000)
        wait_idle(page)
        page.locator(".lcsm-controls input").first.focus()
        hidden = []
        for _ in range(12):                                    # the controls, then the presets under them
            page.keyboard.press("Tab")
            page.evaluate(SETTLED)
            what, covered = page.evaluate(FOCUS_HIDDEN)
            if covered:
                hidden.append(what)
        assert not hidden, hidden
    finally:
        context.close()


"""Colour in a real browser (app/kit/figure_style.py, "Colour"; the unit checks: tests/app/test_figure_colour.py).

- Spring, Rings and Train live as a protanope, deuteranope and tritanope see them (Chromium's
  `Emulation.setEmulatedVisionDeficiency`), in the light and the dark theme (Spring's one page, switched from the
  light to the dark; the others opened in each):
  tests/screenshots/colour-<page>-<theme>-<deficiency>.png, for a person to look at. While they are taken, the
  series of every chart stay told apart by what the page draws: each chart's named series differ in colour as
  simulated (ΔE2000) or in dash, marker or pattern.
- What the charts draw, read back from the page in the light and the dark theme, on Spring and Propagation (the
  lesson instrument), Online learners (Streamlit's chart element) and Train live: every tick label, axis title,
  title, legend entry, note and colour-bar label at 4.5:1 against what it stands on (the chart's background, or a
  note's own box; over a translucent box, against the worst of what may lie beneath), every drawn line at 3:1.
- A theme change while a lesson is open redraws the instrument's charts in the new theme.
"""
import time

import pytest

from tests.browser.app_server import ROOT, draw_a_frame, needs_chromium
from tests.colour_vision import DEFICIENCIES, contrast, delta_e, hex_color, rgba

SHOTS = ROOT / "tests" / "screenshots"
pytestmark = [pytest.mark.browser, needs_chromium]
INSTRUMENT = ".lcsm-instrument[data-drawn]"
CHART_ELEMENT = '[data-testid="stPlotlyChart"] .js-plotly-plot'
TINY_RUN = "d_model=8&k=8&seq_len=16&vocab=16&kv_pairs=2&batch=8&layers=2&steps=5000"

# Every piece of text and every line of every chart on the page, with what it stands on (computed styles).
DRAWN = """() => {
  const found = [];
  const style = (node) => getComputedStyle(node);
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    if (!gd._fullLayout) continue;
    const chart = (gd.closest('[data-chart]') || {dataset: {}}).dataset.chart
      || ((gd._fullLayout.title || {}).text || '').slice(0, 40);
    const paper = gd._fullLayout.paper_bgcolor;
    const texts = '.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .gtitle, .legendtext, .cbaxis text,'
      + ' .cbtitle text';
    for (const node of gd.querySelectorAll(texts)) {
      if (!node.textContent.trim()) continue;
      found.push({chart, kind: 'text', what: node.textContent.slice(0, 30), colour: style(node).fill,
                  opacity: style(node).fillOpacity, background: paper});
    }
    for (const note of gd.querySelectorAll('g.annotation')) {
      const text = note.querySelector('.annotation-text'), box = note.querySelector('rect.bg');
      if (!text || !text.textContent.trim()) continue;
      const boxed = box && style(box).fill !== 'none' && Number(style(box).fillOpacity) > 0
        && !/rgba\\(.*,\\s*0\\)$/.test(style(box).fill);
      found.push({chart, kind: 'text', what: text.textContent.slice(0, 30), colour: style(text).fill,
                  opacity: style(text).fillOpacity, background: boxed ? style(box).fill : paper,
                  boxOpacity: boxed ? style(box).fillOpacity : '1'});
    }
    for (const line of gd.querySelectorAll('.scatterlayer .js-line')) {
      const s = style(line), trace = line.closest('.trace');
      if (parseFloat(s.strokeWidth) === 0 || s.stroke === 'none') continue;
      found.push({chart, kind: 'line', what: (trace && trace.__data__ && trace.__data__[0].trace.name) || '',
                  colour: s.stroke, opacity: String(Number(s.strokeOpacity) * Number(style(trace).opacity)),
                  background: paper});
    }
  }
  return found;
}"""

# Each chart's named series as drawn: colour, dash, marker symbol, bar pattern (plotly's full data).
SERIES = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(gd => gd._fullData).map(gd => ({
  chart: ((gd._fullLayout.title || {}).text || '').slice(0, 40),
  series: gd._fullData.filter(t => t.visible === true && t.showlegend && t.name && ['scatter', 'bar', 'histogram']
      .includes(t.type)).map(t => ({name: t.name, plot: (t.xaxis || 'x') + (t.yaxis || 'y'), type: t.type,
    mode: t.mode || '', colour: t.type === 'scatter' && (t.mode || '').includes('lines') ? t.line.color
      : (typeof (t.marker || {}).color === 'string' ? t.marker.color : null), dash: t.line ? t.line.dash : null,
    width: t.line ? t.line.width : null, symbol: t.marker ? String(t.marker.symbol) : null,
    size: t.marker ? t.marker.size : null, pattern: t.marker && t.marker.pattern ? t.marker.pattern.shape : null,
    fill: t.fill || null}))}))"""


def opened(browser, url: str, theme: str, ready: str, height: int = 900):
    page = browser.new_page(viewport={"width": 1280, "height": height}, color_scheme=theme)
    page.goto(url)
    page.wait_for_selector(ready, timeout=120_000)
    settle(page)
    return page


def settle(page, quiet_s: float = 1.5, timeout: float = 60.0) -> None:
    """Once no chart is stale and what the charts draw has held for `quiet_s` (a family, a poll, a redraw)."""
    deadline, last, since = time.monotonic() + timeout, None, time.monotonic()
    while time.monotonic() < deadline:
        draw_a_frame(page)
        now = (page.locator('[data-stale="true"]').count(), page.evaluate(DRAWN))
        if now != last:
            last, since = now, time.monotonic()
        elif not now[0] and time.monotonic() - since > quiet_s:
            return
        time.sleep(0.25)


def opaque(colour: str, opacity: str, beneath: str) -> str:
    """`colour` (a computed "rgb(...)"/"rgba(...)") drawn at `opacity` over the opaque colour `beneath`."""
    rgb, alpha = rgba(colour)
    under, _ = rgba(beneath)
    alpha *= float(opacity)
    return hex_color(alpha * rgb + (1 - alpha) * under)


def check_drawn(page, where: str) -> int:
    """Every text at 4.5:1 and every line at 3:1 against what it stands on; the number of pieces checked."""
    found = page.evaluate(DRAWN)
    assert found, f"{where}: nothing drawn"
    failures = []
    for piece in found:
        if piece.get("boxOpacity", "1") != "1":               # a translucent box: the worst of what lies beneath
            boxes = [opaque(piece["background"], piece["boxOpacity"], beneath) for beneath in ("#FFFFFF", "#000000")]
        else:
            boxes = [opaque(piece["background"], "1", "#FFFFFF")]
        ratios = [contrast(opaque(piece["colour"], piece["opacity"], box), box) for box in boxes]
        need = 4.5 if piece["kind"] == "text" else 3.0
        if min(ratios) < need:
            failures.append(f"{piece['chart']}: {piece['kind']} {piece['what']!r} {piece['colour']} on "
                            f"{piece['background']}: {min(ratios):.2f}:1")
    assert not failures, f"{where}:\n" + "\n".join(failures)
    return len(found)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lesson,ready", [("propagation", INSTRUMENT), ("online_learners", CHART_ELEMENT)])
def test_chart_text_and_lines_as_drawn_meet_contrast(app_url, browser, lesson, ready, theme):
    page = opened(browser, f"{app_url}/{lesson}", theme, ready, height=2400)
    try:
        assert check_drawn(page, f"{lesson} ({theme})") > 20
    finally:
        page.close()


def test_spring_in_the_light_theme_then_switched_to_dark_meets_contrast_and_keeps_its_series_apart(app_url, browser):
    """One Spring page, as drawn in the light theme and once the system's scheme turns dark (Streamlit follows it
    by default; the instrument redraws its charts in the new theme): contrast as drawn, the series told apart, the
    screenshots under each simulated deficiency. (A page opened in the dark theme: Propagation's and Rings'.)"""
    page = opened(browser, f"{app_url}/spring", "light", INSTRUMENT + " .lcsm-swept", height=2400)
    try:
        assert check_drawn(page, "spring (light)") > 20
        series_apart(page, "spring (light)")
        assert len(shoot(page, "spring", "light")) == 4
        tick = "() => getComputedStyle(document.querySelector('.lcsm-instrument .xtick text')).fill"
        light = page.evaluate(tick)
        page.emulate_media(color_scheme="dark")
        deadline = time.monotonic() + 30
        while page.evaluate(tick) == light:
            assert time.monotonic() < deadline, "the instrument kept its light-theme charts on a dark page"
            draw_a_frame(page)
            time.sleep(0.25)
        settle(page)
        assert page.locator(".lcsm-instrument.lcsm-dark").count() == 1
        assert check_drawn(page, "spring, switched to dark") > 20
        series_apart(page, "spring (dark)")
        assert len(shoot(page, "spring", "dark")) == 4
    finally:
        page.close()


@pytest.mark.xfail(strict=True, reason="Streamlit's chart element replaces the theme's colour placeholders in the "
                   "figure once, in place: after a live theme change its text keeps the old theme's colour (a "
                   "reload draws it right; streamlit/streamlit#11974, the fix proposed in #13854 rebuilds the "
                   "figure from its spec); the instrument's charts follow (test above)")
def test_a_theme_change_redraws_streamlits_charts_in_the_new_theme(app_url, browser):
    page = opened(browser, f"{app_url}/online_learners", "light", CHART_ELEMENT)
    try:
        tick = f"() => getComputedStyle(document.querySelector('{CHART_ELEMENT} .xtick text')).fill"
        light = page.evaluate(tick)
        page.emulate_media(color_scheme="dark")
        deadline = time.monotonic() + 5
        while page.evaluate(tick) == light and time.monotonic() < deadline:
            draw_a_frame(page)
            time.sleep(0.25)
        settle(page)
        check_drawn(page, "online_learners, switched to dark")
    finally:
        page.close()


def series_apart(page, where: str) -> None:
    """On each plot of each chart, two named series differ in dash, width, marker or pattern, or their colours (as
    drawn) stay ΔE2000 12 apart under every simulated deficiency."""
    for chart in page.evaluate(SERIES):
        plots: dict[str, list] = {}
        for series in chart["series"]:
            plots.setdefault(series["plot"], []).append(series)
        for series in plots.values():
            for n, a in enumerate(series):
                for b in series[n + 1:]:
                    look = ("type", "mode", "dash", "width", "symbol", "size", "pattern", "fill")
                    if a["name"] == b["name"] or any(a[k] != b[k] for k in look):
                        continue
                    for view in ("normal", *DEFICIENCIES):
                        apart = delta_e(hex_color(rgba(a["colour"])[0]), hex_color(rgba(b["colour"])[0]), view)
                        assert apart >= 12, f"{where} {chart['chart']}: {a['name']}, {b['name']} ({view}) {apart:.1f}"


def shoot(page, name: str, theme: str) -> list[str]:
    """The page as drawn normally and under each simulated deficiency: the screenshots' names."""
    session = page.context.new_cdp_session(page)
    names = []
    try:
        for deficiency in ("none", *DEFICIENCIES):
            session.send("Emulation.setEmulatedVisionDeficiency", {"type": deficiency})
            time.sleep(0.3)
            shot = f"colour-{name}-{theme}-{deficiency}.png"
            page.screenshot(path=str(SHOTS / shot), full_page=True, timeout=120_000)
            names.append(shot)
    finally:
        session.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
    return names


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_rings_under_simulated_colour_vision_deficiencies(app_url, browser, theme):
    page = opened(browser, f"{app_url}/rings", theme, INSTRUMENT + " .lcsm-swept", height=2000)
    try:
        series_apart(page, "rings")
        assert len(shoot(page, "rings", theme)) == 4
    finally:
        page.close()


@pytest.mark.slow
def test_train_live_under_simulated_colour_vision_deficiencies(app_url, browser):
    """A tiny run played until its test accuracy has a few points, then paused: its curves and eigenvalues in the
    light theme, then the same run reopened in the dark one (one run for both)."""
    page = opened(browser, f"{app_url}/train_live?{TINY_RUN}", "light", 'button:has-text("▶ Play")', height=2000)
    try:
        page.get_by_role("button", name="▶ Play").click()
        deadline = time.monotonic() + 240
        while page.locator(CHART_ELEMENT).count() < 2 or page.evaluate(
                "() => [...document.querySelectorAll('.js-plotly-plot')].some(gd => (gd._fullData || [])"
                ".some(t => t.name === 'test accuracy' && t.x && t.x.length >= 4))") is False:
            assert time.monotonic() < deadline, "the run drew no test accuracy"
            draw_a_frame(page)
            time.sleep(1.0)
        page.get_by_role("button", name="⏸ Pause").click()
        time.sleep(3)
        for theme in ("light", "dark"):
            if theme == "dark":              # the run, paused, as the tab reopens it in the dark theme
                page.emulate_media(color_scheme=theme)
                page.reload()
                page.wait_for_selector(CHART_ELEMENT, timeout=120_000)
            settle(page, quiet_s=3.0)
            series_apart(page, f"train_live ({theme})")
            check_drawn(page, f"train_live ({theme})")
            assert len(shoot(page, "train_live", theme)) == 4
    finally:
        page.close()

"""The page layout rules every page shares, for a projector at 1280×720 and a phone at 390×844:
one style sheet, injected once per run by the router (tests/browser/test_layouts.py holds every page to it).

- A metric never ends in "…": its label, value and delta wrap, and the value's type shrinks with its column
  (at most 16 % of the column's width per em: "underdamped" fits a quarter of a 1280-px page with the sidebar open).
- A display equation fits its column (WCAG 1.4.10, reflow at 320 px): it breaks after a relation or an operator
  and, inside a part still too wide, between its pieces; what is still wider is set smaller by the page script
  (`page_script.js`). Should that script not run, the equation scrolls inside its own box, a shadow at the edge
  that hides more of it; the page never scrolls sideways.
- A caption is the text at 80 % opacity, not Streamlit's 60 % (3.9:1 on white; WCAG 1.4.3 asks 4.5:1): an
  opacity, not a fixed grey, so that it holds in the dark theme too.
- A page's live region (`announce.py`) is drawn out of the flow, still in the accessibility tree.
- `prefers-reduced-motion: reduce` stops Streamlit's animations and transitions (WCAG 2.3.3); the instrument's are
  off in instrument.css.
- A page's sections are h2 under its title's h1 (WCAG 1.3.1), at the size Streamlit draws h3.
- Streamlit's phone menu is given list roles by the page script (`page_script.js` says why).
- A page link (Home's lesson list) and a toggle's label wrap instead of cutting their text.
- On a phone (touch: no hover) plotly's tool bar stays shown: it gets its own row above the chart instead of
  covering the chart's title.
- The presenter view (`?present=1`, a projector at 1280×720) is a stage, as TensorFlow Playground's: the page's
  controls and its readouts in a narrow column on the left, the charts on the right, under nothing but the title
  (the objectives and notes fold at the end), so the controls in use and the main chart share the first screen
  (`presenter_columns`).
- On a phone the controls of the main chart sit with it (`app.kit.chart_controls`): their copy, in the container
  keyed `CHART_CONTROLS_KEY`, is drawn on every screen and hidden wider than a phone (the sidebar is open there).
Charts place their titles and legends in `figure_style.build`; the sidebar's order is `render.render_lesson`'s.
Streamlit's elements are reached by their data-testid attributes, a private detail of its markup: it has no public
class for a metric, a caption or a page link (a keyed container's st-key-… class is public, and used where it
serves). They are kept in this one style sheet, so that a Streamlit upgrade is checked in one place.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

LAYOUT_CSS = """
<style>
[data-testid="stMetric"] { container-type: inline-size; }
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] *,
[data-testid="stMetricValue"], [data-testid="stMetricValue"] *,
[data-testid="stMetricDelta"], [data-testid="stMetricDelta"] *, [data-testid="stCheckbox"] label p {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
[data-testid="stMetricValue"] { font-size: min(2.25rem, 16cqi); line-height: 1.2; overflow-wrap: anywhere; }
[data-testid="stMetricDelta"] { height: auto !important; }
[data-testid="stMarkdownContainer"] .katex-display { overflow-x: auto; overflow-y: hidden; max-width: 100%;
  padding: 0.2rem 0;       /* a shadow at an edge with more equation behind it (covers scroll with the text) */
  background: linear-gradient(to right, #fff 40%, rgba(255,255,255,0)) left / 1.5rem 100% no-repeat local,
    linear-gradient(to left, #fff 40%, rgba(255,255,255,0)) right / 1.5rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0,0,0,0.25), transparent) left / 0.6rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,0.25), transparent) right / 0.6rem 100% no-repeat scroll; }
/* KaTeX sets a display equation on one line and each of its parts (split after a relation or an operator) on one
   line: here the parts wrap, and inside a part its pieces wrap (width: auto, not KaTeX's min-content, so a part
   that fits stays whole). The end padding holds the 2 px a last subscript's box sticks out (KaTeX's .vlist-s). */
.katex-display > .katex { white-space: normal; padding: 0 3px; }
.katex-display > .katex > .katex-html > .base { white-space: normal; width: auto; margin: 0.1em 0; }
[data-testid="stCaptionContainer"] { opacity: 0.8 !important; }
/* A page's sections are h2 (its title the one h1), drawn at the size Streamlit gives h3, as they were when they were
   h3: the outline changed, not the look (the instrument's group names and the presenter's keep their own). */
[data-testid="stMainBlockContainer"] h2:not(.lcsm-group) { font-size: 1.75rem; padding: 0.75rem 0 1rem; }
.st-key-lcsm_page_script, [data-testid="stLayoutWrapper"]:has(> .st-key-lcsm_page_script) { display: none; }
.lcsm-sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
[data-testid="stElementContainer"]:has(.lcsm-announce) { position: absolute; width: 1px; height: 1px;
  overflow: hidden; clip: rect(0 0 0 0); }        /* out of the flow (no gap), still read: not display: none */
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation-duration: 0.01ms !important; animation-iteration-count: 1 !important;
    transition-duration: 0.01ms !important; scroll-behavior: auto !important; }
}
[data-testid="stPageLink"] a, [data-testid="stPageLink"] a * { white-space: normal !important;
  overflow: visible !important; text-overflow: clip !important; height: auto; }
.st-key-presenter_controls [data-testid="stWidgetLabel"] p,
.st-key-presenter_controls [data-testid="stMetricLabel"] p { font-size: 1.05rem !important; }
.st-key-presenter_controls [data-testid="stMetricValue"], .st-key-presenter_controls [data-testid="stMetricValue"] * {
  font-size: 1.6rem !important; overflow-wrap: normal !important; }
.st-key-presenter_controls { gap: 0.4rem; }
.st-key-presenter_controls h2, .st-key-presenter_controls h3 { font-size: 1.2rem !important;
  padding: 0.4rem 0 0.6rem !important; }                       /* a group's name, not a page heading */
.st-key-presenter_stage [data-testid="stHorizontalBlock"]:has([data-testid="stPlotlyChart"]) { flex-wrap: wrap;
  row-gap: 1rem; }
.st-key-presenter_stage [data-testid="stHorizontalBlock"]:has([data-testid="stPlotlyChart"])
  > [data-testid="stColumn"] { min-width: calc(45% - 1rem) !important; }   /* 3 charts: 2 + 1; buttons: one row */
.st-key-presenter_controls [data-testid="stHorizontalBlock"] { flex-wrap: wrap; row-gap: 0.2rem; }
.st-key-presenter_controls [data-testid="stColumn"] { flex: 1 1 100% !important; min-width: 100% !important; }
[data-testid="stMainBlockContainer"]:has(.st-key-presenter_controls) { padding-top: 0.25rem !important; }
[data-testid="stMainBlockContainer"]:has(.st-key-presenter_controls) h1 { font-size: 1.9rem !important;
  padding-top: 0.25rem !important; padding-bottom: 0 !important; }
[data-testid="stMainBlockContainer"]:has(.lcsm-instrument) { padding-top: 4.25rem !important; }
[data-testid="stMainBlockContainer"]:has(.lcsm-instrument) h1 { font-size: 2rem !important;
  padding: 0.25rem 0 0 !important; }
@media (min-width: 641px) { .st-key-chart_controls { display: none !important; } }
.st-key-chart_controls { border-left: 3px solid rgba(255, 75, 75, 0.5); padding-left: 0.6rem; }
@media (max-width: 640px) {
  [data-testid="stPlotlyChart"] { margin-top: 30px; }         /* not padding: the chart's box has its height */
  [data-testid="stElementContainer"]:has([data-testid="stPlotlyChart"]) { overflow: visible !important;
    margin-bottom: 30px; }   /* its box keeps the chart's height: the 30 px moved down would be cut (the x title) */
  [data-testid="stPlotlyChart"] .modebar-container { top: -30px !important; }
}
</style>
"""


CHART_CONTROLS_KEY = "chart_controls"   # its CSS class, st-key-chart_controls, is in LAYOUT_CSS
PAGE_SCRIPT_KEY = "lcsm_page_script"    # its CSS class, st-key-lcsm_page_script, is in LAYOUT_CSS
PAGE_SCRIPT = (Path(__file__).parent / "page_script.js").read_text(encoding="utf-8")
PRESENTER_SPLIT = (1, 3)       # controls : charts, in the presenter view's two columns


def presenter_columns():
    """The presenter view's two columns: (controls, stage), keyed for their style. The readouts go in the controls
    column, under the controls, so a tall first chart still fits the screen beside them; in the stage a chart keeps
    at least 45 % of its width (a row of three charts wraps into two and one instead of squeezing each plot)."""
    controls, stage = st.columns(PRESENTER_SPLIT, gap="medium")
    return controls.container(key="presenter_controls"), stage.container(key="presenter_stage")


def layout_style() -> None:
    """The shared layout rules and the focus mark (app/kit/focus_style.py; a style-only st.html goes to the page's
    event container: it takes no space), and the page script (`page_script.js`). A script's st.html is an element of
    the page: it sits in a container of its own, which the style sheet hides (a hidden element takes no gap in the
    page's column)."""
    from .focus_style import FOCUS_CSS
    st.html(LAYOUT_CSS + FOCUS_CSS)
    with st.container(key=PAGE_SCRIPT_KEY):
        st.html(f"<script>{PAGE_SCRIPT}</script>", unsafe_allow_javascript=True)

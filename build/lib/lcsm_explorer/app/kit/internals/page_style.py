"""The style sheets that reach into Streamlit's page markup, and the page script that fixes what CSS cannot.

Streamlit's elements are reached by their data-testid attributes and st… classes, a private detail of its
frontend's markup: it has no public class for a metric, a caption or a page link (a keyed container's st-key-…
class is public, and used where it serves). Every such selector is here, so that a Streamlit upgrade is checked in
one place; the rules themselves are told where they are used: `layout.py` (the page layout every page shares),
`focus_style.py` (the keyboard's focus mark) and `classroom.py` (the presenter view). A sheet whose selectors no
longer match styles nothing: the page still works, in Streamlit's own look. `page_script.js` relies on the
markup of Streamlit's phone menu (it says how).
"""
from __future__ import annotations

from pathlib import Path

LAYOUT_SHEET = """
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


def layout_sheet() -> str:
    """The layout rules every page shares (`layout.py` says what each does), as a <style> element."""
    return LAYOUT_SHEET


def focus_sheet(ring: str) -> str:
    """The keyboard's focus mark (`focus_style.py` says why): a two-tone ring in `ring` inside a white band on
    every focused control, Streamlit's slider thumb (a baseweb element) included, as a <style> element."""
    return f"""
<style>
:focus-visible, [data-baseweb="slider"] [role="slider"]:focus-visible {{
  outline: 3px solid {ring} !important; outline-offset: 2px !important;
  box-shadow: 0 0 0 5px #ffffff !important; }}
</style>
"""


PRESENTER_SHEET = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
[data-testid="stToolbar"], [data-testid="stDecoration"], [data-testid="stSidebarNav"] { display: none !important; }
.stMainBlockContainer, .block-container { padding-top: 1rem !important; max-width: 100% !important; }
html, body, [data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 22px; }
[data-testid="stMetricValue"], [data-testid="stMetricValue"] * { font-size: min(2.2rem, 16cqi) !important; }
h1 { font-size: 2.2rem !important; padding-bottom: 0.2rem !important; }
[data-testid="stMetricLabel"] p { font-size: 1.2rem !important; }
[data-testid="stWidgetLabel"] p { font-size: 1.2rem !important; }
.stButton button *, .stDownloadButton button *, .stLinkButton a * { white-space: normal !important;
  text-overflow: clip !important; overflow: visible !important; }
.stButton button [data-testid="stMarkdownContainer"] p { font-size: 18px; line-height: 1.25; }
</style>
"""


def presenter_sheet() -> str:
    """The presenter view's large type and no chrome (`classroom.presenter_style` says why), as a <style>
    element."""
    return PRESENTER_SHEET


PAGE_SCRIPT = (Path(__file__).parent / "page_script.js").read_text(encoding="utf-8")


def page_script() -> str:
    """The page script's text (`page_script.js`: what it fixes and why), for an st.html <script>."""
    return PAGE_SCRIPT

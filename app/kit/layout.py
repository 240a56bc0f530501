"""The page layout rules every page shares, for a projector at 1280×720 and a phone at 390×844 (issue 12):
one style sheet, injected once per run by the router (tests/browser/test_layouts.py holds every page to it).

- A metric never ends in "…": its label, value and delta wrap, and the value's type shrinks with its column
  (at most 16 % of the column's width per em: "underdamped" fits a quarter of a 1280-px page with the sidebar open).
- A display equation wider than the column scrolls sideways inside its own box; the page never does.
- A page link (Home's lesson list) and a toggle's label wrap instead of cutting their text.
- On a phone (touch: no hover) plotly's tool bar stays shown: it gets its own row above the chart instead of
  covering the chart's title.
Charts place their titles and legends in `figure_style.build`; the sidebar's order is `render.render_lesson`'s.
"""
from __future__ import annotations

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
  padding: 0.2rem 0; }
[data-testid="stPageLink"] a, [data-testid="stPageLink"] a * { white-space: normal !important;
  overflow: visible !important; text-overflow: clip !important; height: auto; }
@media (max-width: 640px) {
  [data-testid="stPlotlyChart"] { margin-top: 30px; }         /* not padding: the chart's box has its height */
  [data-testid="stPlotlyChart"] .modebar-container { top: -30px !important; }
}
</style>
"""


def layout_style() -> None:
    """The shared layout rules (a style-only st.html goes to the page's event container: it takes no space)."""
    st.html(LAYOUT_CSS)

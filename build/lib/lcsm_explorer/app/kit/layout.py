"""The page layout rules every page shares, for a projector at 1280×720 and a phone at 390×844:
one style sheet, injected once per run by the router (tests/browser/test_layouts.py holds every page to it).

- A metric never ends in "…": its label, value and delta wrap, and the value's type shrinks with its column
  (at most 16 % of the column's width per em: "underdamped" fits a quarter of a 1280-px page with the sidebar open).
- A display equation fits its column (WCAG 1.4.10, reflow at 320 px): it breaks after a relation or an operator
  and, inside a part still too wide, between its pieces; what is still wider is set smaller by the page script
  (`internals/page_script.js`). Should that script not run, the equation scrolls inside its own box, a shadow at
  the edge that hides more of it; the page never scrolls sideways.
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
- On a phone the controls of the main chart sit with it (`app/kit/chart_controls.py`): their copy, in the container
  keyed `CHART_CONTROLS_KEY`, is drawn on every screen and hidden wider than a phone (the sidebar is open there).
Charts place their titles and legends in `figure_style.build`; the sidebar's order is `render.render_lesson`'s.
The sheet itself is `internals.page_style.layout_sheet()`: it reaches Streamlit's elements through their private
markup, which is kept in that one place so that a Streamlit upgrade is checked there.
"""
from __future__ import annotations

import streamlit as st

from .internals.page_style import layout_sheet, page_script

LAYOUT_CSS = layout_sheet()        # the rules above, in Streamlit's markup: internals.page_style


CHART_CONTROLS_KEY = "chart_controls"   # its CSS class, st-key-chart_controls, is in LAYOUT_CSS
PAGE_SCRIPT_KEY = "lcsm_page_script"    # its CSS class, st-key-lcsm_page_script, is in LAYOUT_CSS
PAGE_SCRIPT = page_script()
PRESENTER_SPLIT = (1, 3)       # controls : charts, in the presenter view's two columns


def presenter_columns():
    """The presenter view's two columns: (controls, stage), keyed for their style. The readouts go in the controls
    column, under the controls, so a tall first chart still fits the screen beside them; in the stage a chart keeps
    at least 45 % of its width (a row of three charts wraps into two and one instead of squeezing each plot)."""
    controls, stage = st.columns(PRESENTER_SPLIT, gap="medium")
    return controls.container(key="presenter_controls"), stage.container(key="presenter_stage")


def layout_style() -> None:
    """The shared layout rules and the focus mark (app/kit/focus_style.py; a style-only st.html goes to the page's
    event container: it takes no space), and the page script (`internals/page_script.js`). A script's st.html is an
    element of the page: it sits in a container of its own, which the style sheet hides (a hidden element takes no
    gap in the page's column)."""
    from .focus_style import FOCUS_CSS
    st.html(LAYOUT_CSS + FOCUS_CSS)
    with st.container(key=PAGE_SCRIPT_KEY):
        st.html(f"<script>{PAGE_SCRIPT}</script>", unsafe_allow_javascript=True)

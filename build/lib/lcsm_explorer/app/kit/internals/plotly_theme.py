"""The two colours of a chart that Streamlit's frontend replaces with the page theme's own.

Streamlit's plotly template (streamlit/elements/lib/streamlit_plotly_theme.py) writes its text and background as
the placeholders GRAY_90 ("#000037") and BG_COLOR ("#000038"), and its chart element replaces them throughout a
figure with the theme's colours before plotly.js draws it (a detail of its frontend, no public API). A chart
written in these follows the page's light or dark theme; where a Streamlit no longer replaces them, its text
would be drawn in these near-black blues, still readable on a light page.
"""
from __future__ import annotations

THEME_TEXT = "#000037"           # Streamlit's GRAY_90 placeholder: the theme's text colour
THEME_BACKGROUND = "#000038"     # Streamlit's BG_COLOR placeholder: the theme's background

"""The keyboard's focus mark on every page: a ring that shows where the keys act, whatever the theme.

Streamlit marks a focused slider with a faint pink halo and some controls with none; WCAG 2.2 asks for a mark with
at least 3:1 contrast against what is around it (2.4.7, 2.4.13). The ring is two-tone — dark blue inside a white
band — so one of the two stands out on a light page and on a dark one. Only `:focus-visible`: a mouse click does not
draw it. The instrument (instrument.css) draws the same ring inside its component.
"""
from __future__ import annotations

from .internals.page_style import focus_sheet

RING = "#1f4e99"         # 8.3:1 on white
FOCUS_CSS = focus_sheet(RING)        # its selectors are Streamlit's markup: internals.page_style

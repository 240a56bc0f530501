"""A page's readouts said once per committed move, for a screen reader (WCAG 4.1.3), on pages whose settings are
Streamlit widgets (a dynamics lesson's instrument has its own live region).

A polite live region is read out when its text changes, not when it first appears: the region is drawn at the
same place on every run (Streamlit then updates the element, never re-mounts it), empty on a page's first run, and
given the readouts in words when the settings differ from the last run's. A rerun that moves nothing (an exercise
checked, a training tick) leaves the text as it was, so nothing is said twice.
"""
from __future__ import annotations

import html
import re
from collections.abc import Sequence

import streamlit as st

from .lesson import Metric, Notice

SAID_KEY = "announce.{page}"          # (the settings last drawn, what the region says)


def readout_words(items: Sequence[Metric | Notice]) -> str:
    """"label value; …; notice", the instrument's words (instrument.js `readoutWords`): no Markdown, no $."""
    metrics = [f"{m.label} {m.value}" for m in items if isinstance(m, Metric)]
    notices = [re.sub(r"\$([^$]+)\$", r"\1", n.text.replace("**", "")) for n in items if isinstance(n, Notice)]
    return "; ".join(metrics + notices)


def said_now(page: str, values: dict, words: str) -> str:
    """What the region says on this run: nothing on the first, `words` after a move, else what it said before."""
    key = SAID_KEY.format(page=page)
    settings = tuple(sorted((name, repr(value)) for name, value in values.items()))
    last = st.session_state.get(key)
    said = "" if last is None else (words if last[0] != settings else last[1])
    st.session_state[key] = (settings, said)
    return said


def announce_readouts(page: str, values: dict, items: Sequence[Metric | Notice]) -> None:
    said = said_now(page, values, readout_words(items))
    st.markdown(f'<div class="lcsm-sr-only lcsm-announce" role="status" aria-live="polite" aria-atomic="true">'
                f"{html.escape(said)}</div>", unsafe_allow_html=True)

"""A tab whose web process died comes back by itself: its page reruns on the process it reconnects to, from the
tab's URL and widgets, even if the learner touches nothing.

Behind HAProxy a killed web process's tabs reconnect to another one, which opens a new session for each. Streamlit's
frontend (1.67, `App.handleConnectionStateChanged`) asks the new session for a run on a reconnect only when a run
was under way or the page has an auto-rerun fragment (`st.fragment(run_every=…)`): an idle lesson page kept what
it showed, on a session that had never run — no page link for its drag preview, nothing polled — until the next
move. `rerun_on_reconnect` gives every page an empty auto-rerun fragment, so a reconnect always asks for a run, and
that run carries the tab's URL (every setting, its tokens) and its widgets, as a move does. The fragment itself
reruns once per `INTERVAL_S` and draws nothing (its empty container is not drawn): a few ms of a web process's CPU
per tab per ten minutes. The router declares it first: a fragment call deep-copies the run's container cursors, few
at the top of a page, and a page that stops early keeps it.
tests/browser/test_web_tier.py kills a web process under an idle tab and sees the page run on the other one.
"""
from __future__ import annotations

import streamlit as st

INTERVAL_S = 600.0


@st.fragment(run_every=INTERVAL_S)
def rerun_on_reconnect() -> None:
    """Draws nothing: its `run_every` is what makes the frontend rerun the page after a reconnect."""

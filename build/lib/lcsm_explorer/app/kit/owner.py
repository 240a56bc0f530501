"""This browser's owner token (`?owner=`): a training run belongs to the token that started it.

In a browser with its identity cookie (app/kit/browser_identity.py) the token is derived from it: every tab of the
browser drives its runs, and a link carrying it drives nothing in another browser. Without the cookie it lives in
the URL, so a reload of the tab keeps driving its run; share links leave it out, so whoever opens a shared run only
reads it. Every live page (Train live, and any page that starts runs) asks `owner_token()`.

The server issues the token, signed (`lcsm_serving.tokens`): without the cookie a link's `?owner=` is honoured only
when this server signed it, so a crafted link cannot hand a learner a token someone else knows. A link's token that
is not the tab's is ignored with a note saying whose it is. `issued_token` does the same for the learner token of
progress (app/kit/progress.py).
"""
from __future__ import annotations

import secrets

import streamlit as st

from lcsm_serving import tokens
from lcsm_serving.store_faults import store_fault_message

from . import browser_identity
from .literal import literal

OWNER_TOKEN = tokens.TOKEN_SHAPE
SESSION_KEY = "train_live_session"
ANOTHER_BROWSER = {
    "owner": "so this browser uses its own: the runs the link shows open read-only, and ▶ Play starts one of yours.",
    "learner": "so this browser keeps its own score (a score belongs to the browser that earned it).",
}
NOT_ISSUED = {
    "owner": "so this tab got its own: it can read the runs a link shows, but drives only the runs it starts.",
    "learner": "so this tab keeps a score of its own (a score link works only in the tab that made it).",
}


def owner_token() -> str:
    """The tab's owner token (`issued_token`), written back to the URL."""
    return issued_token("owner", SESSION_KEY, "owner")


def issued_token(param: str, session_key: str, purpose: str) -> str:
    """The tab's token for `purpose`, kept in `st.session_state[session_key]` and in the URL's `?param=` on every
    run. In a browser with its identity cookie (app/kit/browser_identity.py): the browser's own token (every tab of
    it the same), whatever the link carries. Without one: the link's when the server signed it for `purpose`, else
    a fresh signed one. A link carrying another token is noted on the page. A server that cannot keep its key (a
    store fault) gives a tab-only token and says so."""
    if session_key not in st.session_state:
        value = st.query_params.get(param, "")
        browser = browser_identity.browser_token()
        try:
            if browser is not None:
                token = tokens.of_browser(purpose, browser)
            else:
                token = value if tokens.verify(value, purpose) else tokens.mint(purpose)
        except OSError as why:
            token = secrets.token_hex(32)                 # the shape of a signed one, signed by nobody
            st.warning(f"{store_fault_message(why) or why} This tab's {purpose} token lasts until it is closed.",
                       icon="💾")
        else:
            if value and token != value:
                _note_foreign(value, purpose)
        st.session_state[session_key] = token
    token = st.session_state[session_key]
    if st.query_params.get(param) != token:
        st.query_params[param] = token
    return token


def _note_foreign(value: str, purpose: str) -> None:
    """Say why the link's token was not taken: another browser's, or none this server issued."""
    try:
        ours = tokens.verify(value, purpose)
    except OSError:
        ours = False
    if ours:
        st.info(f"This link carries another browser's {purpose} token, " + ANOTHER_BROWSER[purpose], icon="🔑")
    else:
        st.info(f"This link's {purpose} token {literal(value)} was not issued by this server, "
                + NOT_ISSUED[purpose], icon="🔑")

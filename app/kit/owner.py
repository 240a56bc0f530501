"""This browser tab's owner token (`?owner=`): a training run belongs to the token that started it.

It lives in the URL, so a reload of the tab keeps driving its run; share links leave it out, so whoever opens a
shared run only reads it. Every live page (Train live, and any page that starts runs) asks `owner_token()`.
"""
from __future__ import annotations

import re
import uuid

import streamlit as st

OWNER_TOKEN = re.compile(r"[0-9a-f]{32}")
SESSION_KEY = "train_live_session"


def owner_token() -> str:
    """The tab's token: the link's `?owner=` when well formed, else a fresh one, written back to the URL."""
    if SESSION_KEY not in st.session_state:
        value = st.query_params.get("owner", "")
        st.session_state[SESSION_KEY] = value if OWNER_TOKEN.fullmatch(value) else uuid.uuid4().hex
    token = st.session_state[SESSION_KEY]
    if st.query_params.get("owner") != token:
        st.query_params["owner"] = token
    return token

"""Who is asking, as the server sees them: the key the admission policy counts a visitor's work under.

A fresh owner token is free to mint, so quotas are tied to what a visitor cannot mint for free: the client address
the web process sees (`st.context.ip_address`); behind the project's HAProxy, the address HAProxy forwards, and only
from HAProxy. Streamlit's server (uvicorn) replaces the peer's address by the X-Forwarded-For one only
for the peers in FORWARDED_ALLOW_IPS: app/web_tier.py names HAProxy (loopback) for the web processes behind it
and nobody for a single process; HAProxy drops any X-Forwarded-For a client sends (app/haproxy.cfg.in). The
admission policy keys the address (lcsm_serving/admission.py: IPv6 by its /64; loopback is the operator).

A learner who joined a teacher's class (app/kit/class_join.py: the code checked against the store, kept in the
session beside the tab's server-signed learner token) is counted per (class, learner) within the class's allowance
instead (admission.class_visitor_key), so a class behind one school address can each press ▶ Play.
"""
from __future__ import annotations

import streamlit as st

from lcsm_serving.admission import class_visitor_key

from .class_join import CLASS_KEY
from .client_address import client_address
from .progress import LEARNER_KEY  # the session key of the tab's learner token


def visitor_key() -> str:
    """The visitor's address as the server sees it; "local" when Streamlit does not know it (AppTest, scripts); a
    class learner's key (class, learner token, address) when this tab joined a class."""
    address = client_address()
    try:
        code, token = st.session_state.get(CLASS_KEY), st.session_state.get(LEARNER_KEY)
    except Exception:                     # no session (a bare script)
        code = token = None
    if code and token:
        return class_visitor_key(address, code, token)
    return address

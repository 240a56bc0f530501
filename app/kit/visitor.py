"""Who is asking, as the server sees them: the key the admission policy counts a visitor's work under.

A fresh owner token is free to mint, so quotas are tied to what a visitor cannot mint for free: the client address
the web process sees (`st.context.ip_address`); behind the project's HAProxy, the address HAProxy forwards, and only
from HAProxy (issue 24). Streamlit's server (uvicorn) replaces the peer's address by the X-Forwarded-For one only
for the peers in FORWARDED_ALLOW_IPS: scripts/web_tier.py names HAProxy (loopback) for the web processes behind it
and nobody for a single process; HAProxy drops any X-Forwarded-For a client sends (scripts/haproxy.cfg.in). The
admission policy keys the address (lcsm_core/training/admission.py: IPv6 by its /64; loopback is the operator).
"""
from __future__ import annotations

import streamlit as st


def visitor_key() -> str:
    """The visitor's address as the server sees it; "local" when Streamlit does not know it (AppTest, scripts)."""
    try:
        address = st.context.ip_address
    except Exception:                     # outside a script run (AppTest without a websocket)
        address = None
    return address or "local"

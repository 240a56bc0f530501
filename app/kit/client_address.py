"""The client's address as the server sees it (behind the project's HAProxy: the address HAProxy forwards; see
app/kit/visitor.py for why a quota is keyed by it)."""
from __future__ import annotations

import streamlit as st


def client_address() -> str:
    """The client's address; "local" when Streamlit does not know it (AppTest, scripts)."""
    try:
        address = st.context.ip_address
    except Exception:                     # outside a script run (AppTest without a websocket)
        address = None
    if not isinstance(address, str) or not address:      # AppTest's context answers a mock
        address = "local"
    return address

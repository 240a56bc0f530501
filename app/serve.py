"""The app behind the host guard: `python -m streamlit run app/serve.py` (what scripts/app.sh runs).

Streamlit finds the `st.App` below and serves app/streamlit_app.py through it, with app/kit/host_guard.py's
middleware in front of every HTTP request and websocket: a request for a host outside LCSM_ALLOWED_HOSTS, or from
another origin, gets 403; and with app/kit/browser_identity.py's, which gives each browser its identity cookie; and
with app/kit/fair_share.py's, which caps the tabs one visitor holds. Running app/streamlit_app.py directly still
works, without either (tabs then keep per-tab tokens).
"""
import sys
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

try:
    import lcsm_explorer  # noqa: F401  (installed, or a checkout's root already on the path)
except ImportError:       # `streamlit run app/...` in a checkout: its root holds lcsm_explorer/
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lcsm_explorer.app.kit import browser_identity, run_trace, vendor, web_process  # noqa: E402
from lcsm_explorer.app.kit.browser_identity import BrowserIdentity  # noqa: E402
from lcsm_explorer.app.kit.fair_share import FairShare  # noqa: E402
from lcsm_explorer.app.kit.host_guard import HostGuard  # noqa: E402

# One BLAS/OpenMP/torch thread, every page's module imported and the heap frozen, before any session connects:
# 2-10x less CPU per move on a busy server (app/kit/web_process.py says why and what was measured).
web_process.prepare()
run_trace.start_from_env()          # LCSM_TRACE_RUNS: which project files each script run executes (benchmarks)

app = st.App("streamlit_app.py", routes=vendor.routes() + browser_identity.routes(),
             middleware=[Middleware(HostGuard), Middleware(BrowserIdentity), Middleware(FairShare)])

"""The app behind the host guard: `python -m streamlit run app/serve.py` (what scripts/app.sh runs).

Streamlit finds the `st.App` below and serves app/streamlit_app.py through it, with
app/kit/host_guard.py's middleware in front of every HTTP request and websocket: a request for a
host outside LCSM_ALLOWED_HOSTS, or from another origin, gets 403. Running app/streamlit_app.py
directly still works, without the guard.
"""
import sys
from pathlib import Path

import streamlit as st
import torch
from starlette.middleware import Middleware

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # so `app.kit` imports when Streamlit imports this file as `serve`
    sys.path.insert(0, str(ROOT))

from app.kit.host_guard import HostGuard  # noqa: E402

# One torch thread per web process: its torch work is small page computes, and a second OpenMP thread spin-waits
# on a core the other web processes and the trainer need — 2–10× the CPU per move once the server is busy
# (benchmarks/page_compute_cpu.py vs --threads 1). Training runs in worker processes, which set their own.
torch.set_num_threads(1)

app = st.App("streamlit_app.py", middleware=[Middleware(HostGuard)])

"""The one router of LCSM Explorer. Run: python -m streamlit run app/streamlit_app.py"""
from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # so `lcsm_core` imports when run from anywhere
    sys.path.insert(0, str(ROOT))

from app.page_list import available_pages  # noqa: E402

st.set_page_config(page_title="LCSM Explorer", page_icon="🌀", layout="wide")

sections: dict[str, list] = {}
for entry in available_pages():
    sections.setdefault(entry.section, []).append(
        st.Page(str(entry.path), title=entry.title, icon=entry.icon, url_path=entry.url_path,
                default=entry.url_path == "home"))
st.navigation(sections).run()

"""The router and the Home page load without exceptions and show the registry."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

import lcsm_core

ROOT = Path(__file__).resolve().parent.parent


def test_home_page_loads_and_lists_every_variant():
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    assert at.title[0].value.startswith("🌀 LCSM Explorer")
    table = at.dataframe[0].value
    assert set(table["name"]) == set(lcsm_core.VARIANTS)
    assert any(m.label == "Device" for m in at.metric)

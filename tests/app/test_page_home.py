"""The router and the Home page load without exceptions, show the registry and link every lesson."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

import lcsm_core
from app.lessons import all_lessons

ROOT = Path(__file__).resolve().parents[2]


def test_home_page_loads_lists_every_variant_and_links_every_lesson():
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    assert at.title[0].value.startswith("🌀 LCSM Explorer")
    table = next(d.value for d in at.dataframe if "name" in d.value.columns)     # the registry
    assert set(table["name"]) == set(lcsm_core.VARIANTS)
    assert any(m.label == "Device" for m in at.metric)
    links = [link.proto.label for link in at.get("page_link")]
    assert links == [f"{x.number} · {x.title} — {x.summary}" for x in all_lessons()]

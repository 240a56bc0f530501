"""The router and the Home page load without exceptions, show the registry and link every lesson."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

import lcsm_core
from lcsm_explorer.app.lessons import all_lessons

ROOT = Path(__file__).resolve().parents[2]


def test_home_page_loads_lists_every_variant_and_links_every_lesson():
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    assert at.title[0].value.startswith("🌀 LCSM Explorer")
    table = next(d.value for d in at.dataframe if "name" in d.value.columns)     # the registry
    assert set(table["name"]) == set(lcsm_core.VARIANTS)
    links = [link.proto.label for link in at.get("page_link")]
    assert links[1:] == [f"{x.number} · {x.title} — {x.summary}" for x in all_lessons()]


def test_home_says_what_the_explorer_is_and_where_to_start_before_anything_else():
    """Issue 21: Home's biggest text was the scan path ("torch chunked or recurrent form, …", a metric)."""
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    first = all_lessons()[0]
    assert at.markdown[0].value.startswith("**An interactive course on linear sequence models")
    start = at.get("page_link")[0].proto
    assert start.label == f"Start: {first.number} · {first.title} — {first.summary}"
    assert start.page == first.page and start.page_script_hash == at.get("page_link")[1].proto.page_script_hash
    assert "Start with lesson 1" in " ".join(m.value for m in at.markdown[:3])
    assert not at.metric                                                   # no big numbers about the machinery
    big = [at.title[0].value] + [h.value for h in at.header]
    assert not any("torch" in text or "chunked" in text for text in big), big
    assert any("eos_scan path" in c.value for c in at.caption)             # still there, small, in an expander

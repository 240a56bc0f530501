"""The one router of LCSM Explorer. Run: bash scripts/app.sh (app/serve.py: this router behind the host guard),
or without the guard: python -m streamlit run app/streamlit_app.py

Home, then every lesson declared in `lcsm_explorer.app.lessons`, each drawn by `render_lesson`."""
from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

try:
    import lcsm_explorer  # noqa: F401  (installed, or a checkout's root already on the path)
except ImportError:       # `streamlit run app/...` in a checkout: its root holds lcsm_explorer/
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lcsm_explorer.app.class_view import render_class_view  # noqa: E402
from lcsm_explorer.app.home import render_home  # noqa: E402
from lcsm_explorer.app.kit.fair_share import pace, page_turn  # noqa: E402
from lcsm_explorer.app.kit.internals.reconnect import rerun_on_reconnect  # noqa: E402
from lcsm_explorer.app.kit.layout import layout_style  # noqa: E402
from lcsm_explorer.app.kit.preview import warm_once  # noqa: E402
from lcsm_explorer.app.kit.render import render_lesson  # noqa: E402
from lcsm_explorer.app.lessons import all_lessons  # noqa: E402


def lesson_page(lesson) -> st.Page:
    def page() -> None:
        render_lesson(lesson)
    return st.Page(page, title=f"{lesson.number} · {lesson.title}", icon=lesson.icon, url_path=lesson.page)


def home_page(lessons: dict[st.Page, object]) -> st.Page:
    def home() -> None:
        render_home(lessons)
    return st.Page(home, title="Home", icon="🏠", url_path="home", default=True)


def navigation() -> st.navigation:
    lessons = {lesson_page(lesson): lesson for lesson in all_lessons()}
    warm_once(lessons.values())                                 # the defaults' and presets' previews, at low priority
    sections: dict[str, list] = {"": [home_page(lessons)]}      # "": Home first in the bar, outside the menus
    for page, lesson in lessons.items():
        sections.setdefault(lesson.section, []).append(page)
    sections["Teach"] = [st.Page(render_class_view, title="Class view", icon="👥", url_path="class_view")]
    # In the top bar, not the sidebar: eleven links there pushed a lesson's controls below the fold of a projector at
    # 1280×720 (a phone, too narrow for the bar, gets them in its sidebar menu).
    return st.navigation(sections, position="top")


st.set_page_config(page_title="LCSM Explorer", page_icon="🌀", layout="wide")
layout_style()
pace()                   # a visitor's page runs at its share of the server (app/kit/fair_share.py)
with page_turn():        # and, when the server is busy, in the visitor's turn
    rerun_on_reconnect()     # first, while the page has few containers: a fragment call deep-copies their cursors
    navigation().run()

"""The live-lesson kind (app/kit/live_lesson.py) on a tiny declared page: a command shows its run in the URL, a
refusal and a run-store fault land in the error slot in words, a fault while polling is told (not a traceback)
and what is not a store fault is not hidden; a link naming no run id gets a note."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app import live_demo
from tests.app.pages import url_value

SCRIPT = """
import streamlit as st
from lcsm_explorer.app.kit.live_lesson import render_live
from tests.app.live_demo import LESSON
st.caption(f"quantities {render_live(LESSON, {'a': 1})}")
"""


@pytest.fixture
def page(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    live_demo.WORLD.update(fault=None, moving=False, started=0, steered=[], state=0, page_runs=0)
    return AppTest.from_string(SCRIPT, default_timeout=30)


def shown(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_a_command_shows_its_run_and_the_buttons_follow(page):
    at = page.run()
    assert not at.exception and "started 0 · run None" in shown(at)
    assert at.button(key="full").disabled and "quantities {'started': 0.0}" in at.caption[-1].value
    at.button(key="start").click().run()
    assert not at.exception and at.session_state["live_demo_run"] == 7 and url_value(at, "run") == "7"
    assert "started 1 · run 7" in shown(at) and not at.button(key="full").disabled


def test_a_refusal_and_a_store_fault_go_to_the_error_slot(page):
    at = page.run()
    at.button(key="refuse").click().run()
    assert not at.exception and [e.value for e in at.error] == ["Cannot start this run: `too big`"]
    at.run()
    assert not at.error                                           # said once
    at.button(key="start").click().run()
    at.button(key="full").click().run()
    assert not at.exception and any("disk is full" in e.value for e in at.error)


def test_a_store_fault_while_polling_is_told_and_a_bug_is_not_hidden(page):
    at = page.run()
    live_demo.WORLD["fault"] = "store"
    at.run()
    assert not at.exception and any("cannot open its run store" in e.value for e in at.error)
    assert "quantities {'started': -1.0}" in at.caption[-1].value  # nothing fetched: the exercises read "not yet"
    live_demo.WORLD["fault"] = "bug"
    at.run()
    assert at.exception


def test_a_run_link_that_is_not_an_id_gets_a_note(page):
    page.query_params["run"] = "12abc"
    at = page.run()
    assert not at.exception and at.session_state["live_demo_run"] is None
    assert any("is not a run id" in w.value for w in at.warning)
    page2 = AppTest.from_string(SCRIPT, default_timeout=30)
    page2.query_params["run"] = "42"
    at2 = page2.run()
    assert at2.session_state["live_demo_run"] == 42 and "run 42" in shown(at2)


POLL_SCRIPT = """
import streamlit as st
from lcsm_explorer.app.kit.live_lesson import polled, render_live
from tests.app.live_demo import LESSON, WORLD
WORLD["page_runs"] += 1
render_live(LESSON, {'a': 1})
if not st.session_state.get("polled_once"):       # one poll after the page was drawn, as the fragment's timer would
    st.session_state["polled_once"] = True
    WORLD["state"] += WORLD.pop("change", 0)
    polled(LESSON, {'a': 1}, None)
"""


@pytest.mark.parametrize("change, page_runs", [(0, 1), (1, 2)])
def test_a_poll_reruns_the_whole_page_when_its_page_state_changed(page, change, page_runs):
    """What the buttons and the lead are drawn from (`page_state`, e.g. a visitor's place in a line) is outside the
    polled part: a poll that finds it changed reruns the page, and one that finds it the same does not."""
    live_demo.WORLD["change"] = change
    at = AppTest.from_string(POLL_SCRIPT, default_timeout=30).run()
    assert not at.exception and live_demo.WORLD["page_runs"] == page_runs


SETTINGS_SCRIPT = """
import streamlit as st
from lcsm_explorer.app.kit.live_lesson import render_live
from lcsm_explorer.app.kit.url_state import load_settings, save_settings
from lcsm_explorer.app.kit.widgets import draw_sidebar_settings
from tests.app.live_demo import LESSON
load_settings(LESSON.settings)
values = save_settings(LESSON.settings)
draw_sidebar_settings(LESSON.settings, values)
st.caption(f"quantities {render_live(LESSON, values)}")
"""


def test_a_steering_setting_moved_as_a_reconnected_tabs_first_event_still_steers(page):
    """A tab whose web process died reconnects to a fresh session and its first event moves a setting whose
    on_change steers the shown run (Train live's lr): the fresh session has not drawn the widget, so its callback
    cannot run; the recovered move runs the on_change itself, once, with the moved value and the URL's run."""
    tab = AppTest.from_string(SETTINGS_SCRIPT, default_timeout=30).run()
    tab.button(key="start").click().run()
    tab.slider(key="live_demo.b").set_value(3).run()
    assert not tab.exception and live_demo.WORLD["steered"] == [(7, 3)]          # the callback, as usual
    url = {name: url_value(tab, name) for name in tab.query_params}
    tab.slider(key="live_demo.b").set_value(4)                                   # the move the dead process missed
    fresh = AppTest.from_string(SETTINGS_SCRIPT, default_timeout=30)
    for name, value in url.items():
        fresh.query_params[name] = value
    fresh._run(tab._tree.get_widget_states())
    assert not fresh.exception and fresh.slider(key="live_demo.b").value == 4
    assert live_demo.WORLD["steered"] == [(7, 3), (7, 4)]
    fresh.run()                                                                  # no second steer on a plain run
    assert live_demo.WORLD["steered"] == [(7, 3), (7, 4)]

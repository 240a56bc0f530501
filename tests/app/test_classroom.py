"""Teacher links (?show=, ?lock=1, ?present=1): what students see, read-only controls, the presenter view,
links that round-trip through the share panel, and notes (never markup) for names a link gets wrong; a tab that
reconnects to another web process keeps its settings and its first move."""
import json
from urllib.parse import parse_qs

import pytest
from streamlit.testing.v1 import AppTest

from lcsm_explorer.app.kit.classroom import ClassroomView, read_view, share_query
from lcsm_explorer.app.kit.instrument import TRIGGER_SUFFIX, instrument_key
from lcsm_explorer.app.lessons import PAGES, lesson
from tests.app.pages import SCRIPT, assert_clean, control, instrument, open_page, url_value

SPRING = lesson("spring").settings


def sidebar_keys(at) -> set:
    return {w.key for w in at.sidebar.slider} | {w.key for w in at.sidebar.selectbox}


def main_keys(at) -> set:
    return {w.key for w in at.main.slider} | {w.key for w in at.main.selectbox}


def shown_controls(at, page: str) -> set:
    """The settings the instrument of a dynamics lesson draws (its controls whose `shown` holds)."""
    return {c["name"] for c in instrument(at, page)["controls"] if c["shown"]}


def instrument_in(part, page: str) -> bool:
    """Whether `part` (at.main, at.sidebar) holds the page's instrument."""
    return any(e.proto.id.endswith(f"-{instrument_key(page)}") for e in part.get("bidi_component"))


def test_a_link_reads_into_a_view():
    assert read_view(SPRING, {}) == ClassroomView()
    view = read_view(SPRING, {"show": ["c,forcing"], "lock": ["1"], "present": ["0"]})
    assert view == ClassroomView(frozenset({"c", "forcing"}), lock=True, present=False)
    assert view.drawn("m") and not view.editable("m") and view.editable("c")
    assert not read_view(SPRING, {"show": ["c"]}).drawn("m")


@pytest.mark.parametrize("query,note", [
    ({"show": ["c,mass"]}, "`mass` is not a setting"), ({"lock": ["yes"]}, "lock: `yes` is not 1 or 0"),
    ({"present": ["2"]}, "present: `2`"), ({"show": ["[evil](https://evil.example)"]}, "`[evil](https://evil.example)`"),
])
def test_bad_view_values_fall_back_with_a_note(query, note):
    view = read_view(SPRING, query)
    assert any(note in n for n in view.notes)
    assert not view.lock and not view.present


def test_show_draws_only_the_chosen_controls(tmp_path):
    at = open_page("spring", {"show": "c,forcing", "c": "0.5"})
    assert_clean(at, "show")
    assert not sidebar_keys(at) and shown_controls(at, "spring") == {"c", "forcing"}     # in the instrument
    c = control(at, "spring", "c")
    assert c["value"] == "0.5" and c["editable"]


def test_show_keeps_the_presets_its_try_this_steps_press():
    """A teacher's `show=` picks the controls students see; the presets stay (the lesson's steps say "Press ⚖️
    Critically damped"), and a preset sets every setting, the hidden ones included, as it does without the link."""
    at = open_page("spring", {"show": "c,forcing", "c": "0.5"})
    assert_clean(at, "show")
    assert [p["label"] for p in instrument(at, "spring")["presets"]] == [p.label for p in lesson("spring").presets]


def test_lock_shows_the_rest_read_only():
    at = open_page("spring", {"show": "c", "lock": "1"})
    assert_clean(at, "lock")
    assert not sidebar_keys(at) and {"m", "k", "c"} <= shown_controls(at, "spring")
    assert not control(at, "spring", "m")["editable"] and control(at, "spring", "c")["editable"]
    assert not instrument(at, "spring")["presets"]


def test_presenter_view_puts_the_controls_on_the_page_with_large_charts():
    at = open_page("spring", {"show": "c,forcing", "present": "1"})
    assert_clean(at, "present")
    assert not sidebar_keys(at) and not instrument_in(at.sidebar, "spring") and instrument_in(at.main, "spring")
    payload = instrument(at, "spring")
    assert payload["present"] and shown_controls(at, "spring") >= {"c", "forcing"}
    assert any("stSidebar" in m.value for m in at.markdown)                  # the chrome is hidden
    assert payload["figures"]["response"]["layout"]["font"]["size"] == 18


def test_presenter_view_without_a_list_draws_every_control_on_the_page():
    at = open_page("eos_view", {"present": "1"})                          # nine controls: rows of four
    assert_clean(at, "present, all")
    expected = {f"eos_view.{name}" for name in ("variant", "signal", "scale", "T", "k", "d", "channel",
                                                 "seed")}
    assert not sidebar_keys(at) and main_keys(at) >= expected


@pytest.mark.parametrize("page", PAGES)
def test_a_share_link_round_trips_every_page(page):
    settings = lesson(page).settings
    names = [p.name for p in settings.params][:2]
    query = parse_qs(share_query(settings, settings.defaults, shown=names, lock=True, present=True))
    assert query["show"] == [",".join(names)] and query["lock"] == ["1"] and query["present"] == ["1"]
    view = read_view(settings, query)
    assert view == ClassroomView(frozenset(names), lock=True, present=True) and not view.notes
    values, notes = settings.read({k: v for k, v in query.items() if k in settings})
    assert values == settings.defaults and not notes


def test_the_share_panel_builds_the_link_of_the_current_settings():
    at = open_page("spring", {"c": "0.7"})
    at.multiselect(key="spring.share.show").set_value(["c"]).run()
    at.checkbox(key="spring.share.present").check().run()
    [link] = [c.value for c in at.code if "present=1" in c.value]
    query = parse_qs(link.split("?", 1)[1])
    assert query["c"] == ["0.7"] and query["show"] == ["c"] and "lock" not in query
    assert "learner" not in query                       # whoever opens a teacher's link starts their own score
    linked = open_page("spring", {k: v[-1] for k, v in query.items()})
    assert_clean(linked, "shared")
    assert control(linked, "spring", "c")["value"] == "0.7" and shown_controls(linked, "spring") == {"c"}
    assert instrument(linked, "spring")["present"] and not sidebar_keys(linked)


def test_the_presenter_view_keeps_a_legend_at_a_smaller_font_than_the_chart():
    """At 18 px in half a projector's width a legend at the right left discretize's square z-plane 60 px wide,
    its ticks turned sideways into each other: the legend, a key read up close, keeps a smaller font."""
    from lcsm_explorer.app.kit.classroom import PRESENTER_LEGEND_PX, presenter_figure
    from lcsm_explorer.app.lessons.discretize import LESSON as DISCRETIZE
    values = DISCRETIZE.settings.defaults
    fig = DISCRETIZE.figures(values, DISCRETIZE.compute(values))["z-plane"].to_dict()
    shown = presenter_figure(fig)["layout"]
    assert shown["font"]["size"] == 18 and shown["legend"]["font"]["size"] == PRESENTER_LEGEND_PX < 18
    assert {k: v for k, v in shown["legend"].items() if k != "font"} == fig["layout"]["legend"]   # placed as before
    assert "legend" not in presenter_figure({"data": [], "layout": {"height": 300}})["layout"]


# --- a tab that reconnects to another web process (issue 19: a killed process) -------------------------------
def reconnected_move(page: str, query: dict, move) -> tuple:
    """A tab shows `page` at `query`, its process dies, it reconnects to a fresh session on another process and
    its first event is `move(tab)` (a widget set, not run; or, on a dynamics lesson, the widget states with the
    instrument's commit, as `instrument_commit` makes them): the fresh session runs with the browser's widget
    states and the tab's URL, as Streamlit's frontend sends them. Returns (tab before, fresh session after)."""
    tab = open_page(page, query)
    assert_clean(tab, "before")
    url = {name: url_value(tab, name) for name in tab.query_params}
    states = move(tab)
    fresh = AppTest.from_string(SCRIPT.format(page=page), default_timeout=120)
    for name, value in url.items():
        fresh.query_params[name] = value
    fresh._run(states if states is not None and hasattr(states, "widgets")
               else tab._tree.get_widget_states())     # AppTest.run() would start from no widget states
    assert_clean(fresh, "after")
    return tab, fresh


def instrument_commit(at, page: str, values: dict | None = None, preset: int | None = None, seq: int = 1):
    """The widget states the browser sends when the instrument commits (`instrument.js`): the tab's own, and the
    component's trigger `$$STREAMLIT_INTERNAL_KEY_<component id>__events` carrying the commit event."""
    [element] = [e for e in at.get("bidi_component") if e.proto.id.endswith(f"-{instrument_key(page)}")]
    states = at._tree.get_widget_states()
    trigger = states.widgets.add()
    trigger.id = f"$$STREAMLIT_INTERNAL_KEY_{element.proto.id}{TRIGGER_SUFFIX}"
    trigger.json_trigger_value = json.dumps([{"event": "commit", "value": {
        "seq": seq, "values": {name: str(text) for name, text in (values or {}).items()}, "preset": preset}}])
    return states


def send_commit(at, page: str, values: dict | None = None, preset: int | None = None, seq: int = 1):
    """A commit from the instrument in this session: its callback (`instrument.commit`) runs before the script."""
    at._run(instrument_commit(at, page, values, preset, seq))
    assert_clean(at, "commit")
    return at


@pytest.mark.parametrize("page, query, kind, name, value", [
    ("eos_view", {"T": "32"}, "selectbox", "variant", "mamba"),                         # an option by its label
])
def test_the_first_move_after_a_reconnect_keeps_the_other_settings_and_the_move(page, query, kind, name, value):
    settings = lesson(page).settings
    _, fresh = reconnected_move(page, query, lambda tab: getattr(tab, kind)(key=settings.key(name)).set_value(value))
    assert getattr(fresh, kind)(key=settings.key(name)).value == value                  # the move is not undone
    assert url_value(fresh, name) == settings[name].encode(value)
    for other, text in query.items():                                                    # the rest stay the URL's
        if other != name:
            assert url_value(fresh, other) == text


@pytest.mark.parametrize("page, query, name, value", [
    ("spring", {"m": "2", "c": "0.5"}, "c", 0.7),                                      # a float
    ("lru_stability", {"steps": "40"}, "lr", 0.1),                                     # an option (was a select_slider)
    ("lru_stability", {"steps": "40"}, "gamma", False),                                # a bool (was a toggle)
])
def test_the_first_instrument_move_after_a_reconnect_keeps_the_other_settings_and_the_move(page, query, name, value):
    """A dynamics lesson: the move is the instrument's commit; the fresh session has not mounted the instrument, so
    its callback cannot run, and `instrument.recover_commit` applies what the browser sent."""
    settings = lesson(page).settings
    text = settings[name].encode(value)
    _, fresh = reconnected_move(page, query, lambda tab: instrument_commit(tab, page, {name: text}))
    assert fresh.session_state[settings.key(name)] == value                             # the move is not undone
    assert control(fresh, page, name)["value"] == text and url_value(fresh, name) == text
    for other, linked in query.items():                                                  # the rest stay the URL's
        if other != name:
            assert url_value(fresh, other) == linked
            assert control(fresh, page, other)["value"] == linked


def test_the_presenter_view_moves_a_preview_slider_below_its_larger_axis_title_within_the_same_height():
    from lcsm_explorer.app.kit.classroom import PRESENTER_SLIDER_GAP, presenter_figure
    fig = {"data": [], "layout": {"height": 420, "margin": {"b": 125}, "sliders": [{"pad": {"t": 50}}]}}
    shown = presenter_figure(fig)["layout"]
    assert shown["sliders"][0]["pad"]["t"] == 50 + PRESENTER_SLIDER_GAP
    assert shown["margin"]["b"] == 125 + PRESENTER_SLIDER_GAP and shown["height"] == 420
    assert presenter_figure({"data": [], "layout": {"height": 300}})["layout"].get("sliders") is None

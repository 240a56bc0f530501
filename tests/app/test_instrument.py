"""The lesson instrument's server side (app/kit/instrument.py, app/kit/page_text.py): a dynamics lesson draws its
settings in the instrument, none in the sidebar; a commit takes only values its settings can hold; the page's text
never shows a signed zero and its equations come cut into terms."""
import json

import pytest

from lcsm_explorer.app.kit.classroom import ClassroomView
from lcsm_explorer.app.kit.instrument import (
    apply_commit,
    control,
    instrument_key,
    instrument_payload,
    settings_controlled,
)
from lcsm_explorer.app.kit.page_text import no_negative_zero, page_text, terms
from lcsm_explorer.app.kit.sweep_figure import MOVING_DATA, MOVING_LAYOUT
from lcsm_explorer.app.lessons import all_lessons, lesson
from tests.app.pages import assert_clean, open_page

DYNAMICS = [spec.page for spec in all_lessons() if settings_controlled(spec)]
WIDGETS = ("slider", "select_slider", "selectbox", "radio", "toggle", "number_input", "text_input", "button")


def test_the_five_dynamics_lessons_are_instruments():
    assert DYNAMICS == ["spring", "discretize", "rings", "lru_stability", "propagation"]


@pytest.mark.parametrize("page", DYNAMICS)
def test_a_dynamics_lesson_draws_none_of_its_settings_in_the_sidebar(page):
    at = open_page(page)
    assert_clean(at, page)
    keys = {lesson(page).settings.key(p.name) for p in lesson(page).settings.params}
    drawn = [w.key for kind in WIDGETS for w in getattr(at.sidebar, kind) if w.key in keys]
    assert drawn == [], f"{page}: settings controls in the sidebar: {drawn}"
    assert [w.key for kind in WIDGETS for w in getattr(at.main, kind) if w.key in keys] == []
    assert not at.main.slider, f"{page}: a Streamlit slider beside the instrument"


@pytest.mark.parametrize("text,want", [("ζ: -0", "ζ: 0"), ("x -0.00 y", "x +0.00 y"), ("= -0", "= 0"),
                                       ("−0 rad/s", "0 rad/s"), ("-0.5", "-0.5"), ("1-0", "1-0"), ("e-05", "e-05")])
def test_no_signed_zero(text, want):
    assert no_negative_zero(text) == want


def test_equations_are_cut_into_terms_at_top_level_quads_only():
    assert terms(r"a = 1\qquad b = {2\quad 3},\quad c") == ["a = 1", r"b = {2\quad 3},", "c"]
    assert terms(r"\quad x") == ["x"]


@pytest.mark.parametrize("page", DYNAMICS)
def test_the_text_of_a_page_has_no_signed_zero_anywhere(page):
    spec = lesson(page)
    for preset in spec.presets:
        values = preset.state(spec.settings)
        text = json.dumps(page_text(spec, values, spec.compute(values)), ensure_ascii=False)
        assert no_negative_zero(text) == text.replace("+-", "+"), (page, preset.label)


class FakeState(dict):
    """st.session_state as apply_commit uses it."""


def test_a_commit_takes_only_values_its_settings_can_hold(monkeypatch):
    import lcsm_explorer.app.kit.instrument as instrument
    state = FakeState()
    monkeypatch.setattr(instrument.st, "session_state", state)
    spring = lesson("spring")
    assert apply_commit(spring, ClassroomView(), {"seq": 3, "values": {"c": "0.5", "m": "99", "k": "nan",
                                                                        "nope": "1", "forcing": "sine"}})
    assert state == {"spring.c": 0.5, "spring.forcing": "sine", "spring.instrument_seq": 3}
    locked = ClassroomView(shown=frozenset({"c"}), lock=True)
    state.clear()
    apply_commit(spring, locked, {"values": {"c": "1", "m": "2"}, "preset": 1})   # a lock refuses presets
    assert state == {"spring.c": 1.0}
    state.clear()
    apply_commit(spring, ClassroomView(), {"values": {}, "preset": 1})
    assert state["spring.c"] == 2.0 and state["spring.preset.last"].startswith("ζ = 1")
    for junk in (None, "c=1", {"values": "c"}, {"values": {"c": 1}}):
        state.clear()
        assert not apply_commit(spring, ClassroomView(), junk) and state == {}


def test_the_payload_carries_every_setting_and_splices_each_chart_spec(monkeypatch):
    import lcsm_explorer.app.kit.instrument as instrument
    from lcsm_explorer.app.kit.render import chart_specs, freeze
    monkeypatch.setattr(instrument.st, "session_state", FakeState())
    spec = lesson("spring")
    values = spec.settings.defaults
    charts = chart_specs("spring", freeze(values), False, spec)
    text = page_text(spec, values, spec.compute(values))
    payload = json.loads(instrument_payload(spec, values, ClassroomView(), charts, text))
    assert [c["name"] for c in payload["controls"]] == [p.name for p in spec.settings.params]
    assert payload["figures"]["response"] == json.loads(charts["response"].spec)
    assert payload["text"] == {**text, "charts": {name: chart.text for name, chart in charts.items()}}
    assert payload["text"]["charts"]["response"]["summary"].startswith("Time response: ")   # each chart's words
    assert payload["swept"]["name"] == "c"
    assert payload["moving"] == dict(data=list(MOVING_DATA), layout=list(MOVING_LAYOUT))   # what a frame replaces
    assert control(spec.settings["freq"], values, ClassroomView())["shown"] is False   # only with a sine
    assert instrument_key("spring") == "spring.instrument"


def test_a_commit_says_what_its_browser_shows_and_a_member_page_is_sent_without_charts(monkeypatch):
    """A swept commit names the family and member its browser's charts were moved to (`held`); any other commit
    says it shows nothing to keep. Where the page is that member of the cached family, the payload carries no chart
    and no text: every chart is kept (the browser moves it, tests/app/test_member_figure.py)."""
    import lcsm_explorer.app.kit.instrument as instrument
    from lcsm_explorer.app.kit.instrument import held_key, kept_member
    from tests.app.test_member_figure import family_at
    state = FakeState()
    monkeypatch.setattr(instrument.st, "session_state", state)
    spec = lesson("spring")
    _, family = family_at("spring")
    name = family.members[0]["name"]
    held = {"family": family.link["family_id"], "member": name, "charts": spec.chart_names()}
    apply_commit(spec, ClassroomView(), {"seq": 1, "values": {"c": name}, "held": held})
    values = {**spec.settings.defaults, "c": spec.settings["c"].parse(name)}
    assert kept_member(spec, values, ClassroomView(), family) == name
    assert kept_member(spec, values, ClassroomView(present=True), family) is None      # a projector's are larger
    assert kept_member(spec, {**values, "c": 9.0}, ClassroomView(), family) is None
    payload = json.loads(instrument_payload(spec, values, ClassroomView(), {}, None, family, 1, name))
    assert payload["figures"] == {} and payload["text"] is None and payload["kept"] == spec.chart_names()
    assert payload["configs"] == {}                   # a kept chart keeps the tool-bar config it was drawn with
    apply_commit(spec, ClassroomView(), {"seq": 2, "values": {"k": "2"}, "held": None})
    assert state[held_key("spring")] is None and kept_member(spec, values, ClassroomView(), family) is None
    for junk in ({"family": 1, "member": name, "charts": []}, {"family": "f", "member": name, "charts": [3]}, "x"):
        apply_commit(spec, ClassroomView(), {"values": {}, "held": junk})
        assert state[held_key("spring")] is None

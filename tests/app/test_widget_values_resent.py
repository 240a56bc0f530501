"""Every run's setting widgets carry the value they show (url_state.resend_values). Streamlit sends a widget's
value only in a run that set its key; a browser that mounts the widget afresh in a later run (a loaded browser
dropped and re-drew the sidebar) would draw it at its default — a slider at its minimum — and send that back
with the next move. Spring once opened with m 0.10, k 0.10, c −1.00 beside charts at the defaults.

Spring, like every dynamics lesson, now draws its settings in the lesson instrument (app/kit/instrument.py), no
widgets: the widget checks run on Eos view's sidebar (sliders and a selectbox), and the instrument's own twin is
that every run's instrument carries every setting's value, a committed move's at its new value."""
from lcsm_explorer.app.lessons import lesson
from tests.app.pages import assert_clean, commit, instrument, open_page


def sent(at, kind: str) -> dict:
    """label → (the value the widget proto carries, whether it tells the browser to take it)."""
    widgets = getattr(at, kind)
    return {w.label: (list(w.proto.value) if kind == "slider" else w.value, w.proto.set_value) for w in widgets}


def test_a_later_run_still_sends_every_sidebar_value():
    at = open_page("eos_view", {"scale": "2", "T": "32", "seed": "3"})
    assert_clean(at)
    first = sent(at, "slider")
    at.run()                                       # a run that sets no key: before the fix, bare widgets
    again = sent(at, "slider")
    for label in ("input scale", "sequence length T", "seed"):
        assert first[label][1] and again[label][1], (label, first[label], again[label])
        assert again[label][0] == first[label][0]
    assert again["input scale"][0] == [2.0] and again["seed"][0] == [3]
    assert sent(at, "selectbox")["input signal"][1]


def test_a_moved_slider_is_resent_at_its_new_value_not_the_old_one():
    at = open_page("eos_view")
    at.slider(key="eos_view.scale").set_value(1.5).run()
    assert_clean(at)
    at.run()
    assert sent(at, "slider")["input scale"] == ([1.5], True)
    assert at.query_params["scale"] in ("1.5", ["1.5"])


def shown(at, page: str) -> dict[str, str]:
    """name → the value the instrument's control carries (URL text)."""
    return {c["name"]: c["value"] for c in instrument(at, page)["controls"]}


def test_a_later_run_of_an_instrument_still_carries_every_value():
    settings = lesson("spring").settings
    at = open_page("spring", {"m": "2", "k": "3", "c": "0.5"})
    assert_clean(at)
    first = shown(at, "spring")
    at.run()                                       # a run that sets no key
    again = shown(at, "spring")
    assert again == first and set(again) == {p.name for p in settings.params}
    assert again["m"] == settings["m"].encode(2.0) and again["k"] == settings["k"].encode(3.0)
    assert again["c"] == settings["c"].encode(0.5)
    assert again["forcing"] == settings["forcing"].encode(settings["forcing"].default)


def test_a_committed_move_is_carried_at_its_new_value_not_the_old_one():
    at = open_page("spring")
    commit(at, "spring", c=1.5)
    assert_clean(at)
    at.run()
    assert shown(at, "spring")["c"] == lesson("spring").settings["c"].encode(1.5)
    assert at.query_params["c"] in ("1.5", ["1.5"])

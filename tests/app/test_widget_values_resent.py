"""Every run's setting widgets carry the value they show (url_state.resend_values). Streamlit sends a widget's
value only in a run that set its key; a browser that mounts the widget afresh in a later run (a loaded browser
dropped and re-drew the sidebar) would draw it at its default — a slider at its minimum — and send that back
with the next move. Spring once opened with m 0.10, k 0.10, c −1.00 beside charts at the defaults."""
from tests.app.pages import assert_clean, open_page


def sent(at, kind: str) -> dict:
    """label → (the value the widget proto carries, whether it tells the browser to take it)."""
    widgets = getattr(at, kind)
    return {w.label: (list(w.proto.value) if kind == "slider" else w.value, w.proto.set_value) for w in widgets}


def test_a_later_run_still_sends_every_sidebar_value():
    at = open_page("spring", {"m": "2", "k": "3", "c": "0.5"})
    assert_clean(at)
    first = sent(at, "slider")
    at.run()                                       # a run that sets no key: before the fix, bare widgets
    again = sent(at, "slider")
    for label in ("mass m", "spring constant k", "damping c"):
        assert first[label][1] and again[label][1], (label, first[label], again[label])
        assert again[label][0] == first[label][0]
    assert again["mass m"][0] == [2.0] and again["damping c"][0] == [0.5]
    assert sent(at, "selectbox")["forcing f(t)"][1]


def test_a_moved_slider_is_resent_at_its_new_value_not_the_old_one():
    at = open_page("spring")
    at.slider(key="spring.c").set_value(1.5).run()
    assert_clean(at)
    at.run()
    assert sent(at, "slider")["damping c"] == ([1.5], True)
    assert at.query_params["c"] in ("1.5", ["1.5"])

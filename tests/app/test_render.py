"""The renderer's own promises, on small made-up lessons and on the real router's navigation:
dependent bounds, hidden settings, a compute that refuses its settings, a broken lesson file,
and settings that survive navigating away and back."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.pages import NAVIGATING_SCRIPT, control, instrument, open_page, url_value
from tests.app.test_classroom import send_commit

TOY = '''
from lcsm_explorer.app.kit.lesson import Lesson, Metric
from lcsm_explorer.app.kit.render import render_lesson
from lcsm_explorer.app.kit.settings import Setting, Settings

def compute(v):
    if v["mode"] == "refuse":
        raise ValueError("mode 'refuse' cannot be computed")
    return v["T"] * 2

LESSON = Lesson(
    page="spring", number=1, title="toy", icon="🧸", section="test", summary="toy",
    settings=Settings("toy", (
        Setting.slider("T", "length T", 8, 2, 32),
        Setting.choice("mode", "mode", "plain", ("plain", "extra", "refuse")),
        Setting.slider("extra", "extra knob", 1.0, 0.0, 2.0, shown=lambda v: v["mode"] == "extra"),
        Setting.slider("t", "step t", 7, 0, 31, in_main=True, high_of=lambda v: v["T"] - 1))),
    compute=compute, charts=("t",), metrics=lambda v, r: [Metric("double", str(r))],
    quantities=lambda v, r: {"double": float(r)})
render_lesson(LESSON)
'''


def toy(**query) -> AppTest:
    at = AppTest.from_string(TOY, default_timeout=60)
    for name, value in query.items():
        at.query_params[name] = value
    return at.run()


def test_a_dependent_bound_holds_the_step_inside_the_sequence_and_the_url_says_so():
    at = toy(T="8", t="20")
    assert not at.exception
    assert at.slider(key="toy.t").value == 7 and at.slider(key="toy.t").max == 7
    assert url_value(at, "t") == "7"
    at.slider(key="toy.T").set_value(32).run()
    at.slider(key="toy.t").set_value(30).run()
    assert url_value(at, "t") == "30"
    at.slider(key="toy.T").set_value(4).run()
    assert at.slider(key="toy.t").value == 3 and url_value(at, "t") == "3"


def test_a_hidden_setting_keeps_its_value_in_the_link_and_comes_back():
    at = toy(mode="extra", extra="1.5")
    assert at.slider(key="toy.extra").value == 1.5
    at.selectbox(key="toy.mode").set_value("plain").run()
    assert not [s for s in at.slider if s.key == "toy.extra"]
    assert url_value(at, "extra") == "1.5"
    at.selectbox(key="toy.mode").set_value("extra").run()
    assert at.slider(key="toy.extra").value == 1.5


def test_a_compute_that_refuses_its_settings_is_a_message_not_a_traceback():
    at = toy(mode="refuse")
    assert not at.exception
    assert any("cannot be computed" in e.value and "refuse" in e.value for e in at.error)
    at.selectbox(key="toy.mode").set_value("plain").run()
    assert not [e for e in at.error if "cannot be computed" in e.value] and at.metric[0].value == "16"


def test_a_broken_lesson_file_is_reported_not_raised(tmp_path, monkeypatch):
    from lcsm_explorer.app.kit import lesson_text
    (tmp_path / "01-spring.md").write_text("---\npage: spring\ntitle: t\n---\n## Exercise: x\nno check\n")
    monkeypatch.setattr(lesson_text, "LESSONS_DIR", tmp_path)
    at = open_page("spring")
    assert not at.exception
    assert any("could not be read" in e.value for e in at.error)
    assert instrument(at, "spring")["figures"]                          # the charts are drawn all the same


def test_settings_survive_navigating_away_and_back():
    at = AppTest.from_string(NAVIGATING_SCRIPT, default_timeout=120)
    at.session_state["page"] = "spring"
    at.run()
    send_commit(at, "spring", {"m": "2.5"})                       # moved in the instrument
    at.session_state["page"] = "rings"
    at.query_params.clear()                      # the browser drops a page's settings on navigation
    at.run()
    assert not at.exception
    at.session_state["page"] = "spring"
    at.query_params.clear()
    at.run()
    assert not at.exception
    assert at.session_state["spring.m"] == 2.5 and control(at, "spring", "m")["value"] == "2.5"
    assert url_value(at, "m") == "2.5"


def test_feedback_stays_until_its_settings_change_and_solved_exercises_are_counted():
    at = open_page("spring")
    assert any("0 of 3 solved" in h.value for h in at.header)
    send_commit(at, "spring", preset=1)                                # ⚖️ critically damped, in the instrument
    at.button(key="spring.exercise.0.check").click().run()
    assert any("Correct" in s.value for s in at.success)
    at.button(key="spring.exercise.2.check").click().run()              # another exercise: the first stays
    assert any("Correct" in s.value for s in at.success) and any("Not yet" in e.value for e in at.error)
    assert any("1 of 3 solved" in h.value for h in at.header)
    send_commit(at, "spring", {"c": "2.5"}, seq=2)                      # what was graded changed: feedback goes
    assert not at.success and not at.error
    assert any("1 of 3 solved" in h.value for h in at.header)       # solved stays solved

"""Open one lesson page in AppTest the way the router draws it, and read what it shows."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

SCRIPT = """
from lcsm_explorer.app.kit.render import render_lesson
from lcsm_explorer.app.lessons import lesson
render_lesson(lesson({page!r}))
"""
# Navigation inside one session: the page named in session_state["page"] is drawn, as the router would.
NAVIGATING_SCRIPT = """
import streamlit as st
from lcsm_explorer.app.kit.render import render_lesson
from lcsm_explorer.app.lessons import lesson
render_lesson(lesson(st.session_state.get("page", "spring")))
"""


def open_page(page: str, query: dict | None = None, timeout: float = 120) -> AppTest:
    at = AppTest.from_string(SCRIPT.format(page=page), default_timeout=timeout)
    for name, value in (query or {}).items():
        at.query_params[name] = value
    return at.run()


def url_value(at: AppTest, name: str):
    value = at.query_params[name]
    return value[-1] if isinstance(value, list) else value


def link_notes(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "could not be used" in w.value]


def assert_clean(at: AppTest, where: str = "") -> None:
    """No exception, no exercise naming a quantity the page does not provide, no failed compute."""
    assert not at.exception, f"{where}: {at.exception}"
    assert not [e.value for e in at.error if "does not provide" in e.value or "cannot be computed" in e.value], where


def click(at: AppTest, key: str) -> AppTest:
    """Click a button and check the page stayed clean."""
    at.button(key=key).click().run()
    assert_clean(at, key)
    return at


def feedback_for(at: AppTest, page: str, exercise: int, answer: float) -> bool:
    """Type `answer` into an answer-kind exercise, press Check; True for "Correct", False for "Not yet"."""
    at.number_input(key=f"{page}.exercise.{exercise}.answer").set_value(answer).run()
    click(at, f"{page}.exercise.{exercise}.check")
    assert bool(at.success) != bool(at.error), ([s.value for s in at.success], [e.value for e in at.error])
    return bool(at.success)


# --- the lesson instrument (app/kit/instrument.py): a dynamics lesson's settings, presets and readouts ---------
def instrument(at: AppTest, page: str) -> dict:
    """The instrument's page payload as the browser receives it (controls, presets, readouts, equations)."""
    import json
    for element in at.get("bidi_component"):
        proto = element.proto
        if proto.id.endswith(f"-{page}.instrument"):
            return json.loads(proto.bytes if proto.WhichOneof("data") == "bytes" else proto.json)
    raise AssertionError(f"{page} draws no instrument")


def readouts(at: AppTest, page: str) -> dict[str, str]:
    """label → value of the page's metrics: the instrument's, else the st.metric elements'."""
    try:
        return {m["label"]: m["value"] for m in instrument(at, page)["text"]["metrics"]}
    except AssertionError:
        return {m.label: m.value for m in at.metric}


def notices(at: AppTest, page: str) -> list[str]:
    return [n["text"] for n in instrument(at, page)["text"]["notices"]]


def equations(at: AppTest, page: str) -> list[str]:
    """The live equations, each line's terms joined as the page had them."""
    return [r" \qquad ".join(line) for line in instrument(at, page)["text"]["equations"]]


def commit(at: AppTest, page: str, **values) -> AppTest:
    """What the instrument's commit does (`instrument.apply_commit`): each value into its setting, then a run."""
    for name, value in values.items():
        at.session_state[f"{page}.{name}"] = value
    return at.run()


def press_preset(at: AppTest, page: str, label: str) -> AppTest:
    """A preset pressed in the instrument: its values and its insight (as `instrument.apply_commit` sets them)."""
    from lcsm_explorer.app.lessons import lesson
    spec = lesson(page)
    preset = next(p for p in spec.presets if p.label == label or p.label.endswith(label))
    for name, value in preset.state(spec.settings).items():
        at.session_state[spec.settings.key(name)] = value
    at.session_state[f"{page}.preset.last"] = preset.insight
    return at.run()


def control(at: AppTest, page: str, name: str) -> dict:
    return next(c for c in instrument(at, page)["controls"] if c["name"] == name)

"""AppTest of lessons 1–5: load; every choice; every slider at its min and max; every preset;
URL round trip and bad links; every exercise's Check; never an exception."""
import importlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["spring", "discretize", "rings", "lru_stability", "propagation"]
# (preset index, exercise index) pairs where the preset solves the exercise
SOLVED_BY_PRESET = {"spring": (1, 0), "discretize": (2, 1), "rings": (3, 0), "lru_stability": (1, 0),
                    "propagation": (2, 2)}
# (exercise index, typed answer) right at the page defaults
RIGHT_ANSWER = {"spring": (1, 6.93), "rings": (1, 200.0), "propagation": (1, 0.0135)}


def settings(page):
    return importlib.import_module(f"app.ui.settings.{page}")


def open_page(page, query=None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app" / "app_pages" / f"{page}.py"), default_timeout=120)
    for name, value in (query or {}).items():
        at.query_params[name] = value
    return at.run()


def url_value(at, name):
    value = at.query_params[name]
    return value[-1] if isinstance(value, list) else value


def link_notes(at):
    return [w.value for w in at.warning if "could not be used" in w.value]


def assert_clean(at, where=""):
    assert not at.exception, f"{where}: {at.exception}"
    assert not [e for e in at.error if "does not provide" in e.value], where


def visit_extremes(at, page):
    """Each slider (and select_slider) at its min and its max, for every option of each selectbox."""
    selects = [s.key for s in at.selectbox]
    choices = [(key, option) for key in selects for option in at.selectbox(key=key).options] or [(None, None)]
    for key, option in choices:
        if key:
            at.selectbox(key=key).set_value(option).run()
            assert_clean(at, f"{page} {key}={option}")
        for slider in list(at.slider):
            for value in (slider.min, slider.max):
                at.slider(key=slider.key).set_value(value).run()
                assert_clean(at, f"{page} {slider.key}={value}")
        for sel in list(at.select_slider):
            for value in (sel.options[0], sel.options[-1]):
                at.select_slider(key=sel.key).set_value(type(sel.value)(value)).run()
                assert_clean(at, f"{page} {sel.key}={value}")


@pytest.mark.parametrize("page", PAGES)
def test_page_loads_every_slider_extreme_and_preset(page):
    at = open_page(page)
    assert_clean(at, "load")
    assert at.title and at.get("plotly_chart")
    assert not link_notes(at)
    visit_extremes(at, page)
    mod = settings(page)
    for n, preset in enumerate(mod.PRESETS):
        at.button(key=f"{page}.preset.{n}").click().run()
        assert_clean(at, preset.label)
        for name, value in preset.values.items():
            assert at.session_state[mod.SETTINGS.key(name)] == value, (preset.label, name)
            assert url_value(at, name) == mod.SETTINGS[name].encode(value), (preset.label, name)


@pytest.mark.parametrize("page", PAGES)
def test_url_round_trip_and_bad_links(page):
    mod = settings(page)
    values = {**mod.SETTINGS.defaults, **mod.PRESETS[-1].values}
    query = mod.SETTINGS.encode(values)
    at = open_page(page, query)
    assert_clean(at, "link")
    assert not link_notes(at)
    for name, value in values.items():
        assert at.session_state[mod.SETTINGS.key(name)] == value, name
    assert {k: url_value(at, k) for k in query} == query

    bad = open_page(page, {p.name: "1e999x" for p in mod.SETTINGS.params})
    assert_clean(bad, "bad link")
    note = " ".join(link_notes(bad))
    assert "could not be used" in note and all(f"`{p.name}=" in note for p in mod.SETTINGS.params)
    for p in mod.SETTINGS.params:
        assert bad.session_state[mod.SETTINGS.key(p.name)] == p.default


@pytest.mark.parametrize("page", PAGES)
def test_exercises_check_and_give_feedback(page):
    at = open_page(page)
    checks = [b.key for b in at.button if b.key.startswith(f"{page}.exercise.")]
    assert len(checks) >= 2
    for key in checks:
        at.button(key=key).click().run()
        assert_clean(at, key)
        assert at.success or at.error, key
    preset, exercise = SOLVED_BY_PRESET[page]
    at.button(key=f"{page}.preset.{preset}").click().run()
    at.button(key=f"{page}.exercise.{exercise}.check").click().run()
    assert at.success, [e.value for e in at.error]
    if page in RIGHT_ANSWER:
        fresh = open_page(page)
        n, answer = RIGHT_ANSWER[page]
        fresh.number_input(key=f"{page}.exercise.{n}.answer").set_value(answer).run()
        fresh.button(key=f"{page}.exercise.{n}.check").click().run()
        assert fresh.success, [e.value for e in fresh.error]


def test_settings_survive_navigating_away_and_back():
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120).run()
    at.switch_page("app_pages/spring.py").run()
    at.slider(key="spring.m").set_value(2.5).run()
    at.switch_page("app_pages/rings.py").run()
    assert_clean(at, "rings")
    at.query_params.clear()                      # the browser drops a page's settings on navigation
    at.switch_page("app_pages/spring.py").run()
    assert_clean(at, "spring again")
    assert at.slider(key="spring.m").value == 2.5
    assert url_value(at, "m") == "2.5"


def test_a_broken_lesson_file_is_reported_not_raised(tmp_path, monkeypatch):
    from app.ui import lesson_content
    (tmp_path / "01-spring.md").write_text("---\npage: spring\ntitle: t\n---\n## Exercise: x\nno check\n")
    monkeypatch.setattr(lesson_content, "LESSONS_DIR", tmp_path)
    at = open_page("spring")
    assert not at.exception
    assert any("could not be read" in e.value for e in at.error)
    assert at.get("plotly_chart")

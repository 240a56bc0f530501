"""Real browser: start the app as the README does, open every page of the navigation,
check for exceptions, move a slider on each dynamics page and see its plots change.
A dynamics page (lessons 1–5) draws its controls and charts in the lesson instrument (app/kit/instrument.py): its
slider is the instrument's native range, its plots the instrument's charts.
Screenshots land in tests/screenshots/ (gitignored)."""
import json
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from lcsm_explorer.app.lessons import PAGES, lesson
from tests.browser.app_server import FULL_SHOTS, ROOT, needs_chromium, wait_idle

SHOTS = ROOT / "tests" / "screenshots"
# dynamics page → the slider moved to check that the plots follow
SLIDERS = {"spring": "damping c", "discretize": "sample time Δ (s)", "rings": "r_max",
           "lru_stability": "gradient steps", "propagation": "damping ν"}
CHART_DATA = """() => JSON.stringify([...document.querySelectorAll(
                  '[data-testid="stPlotlyChart"] .js-plotly-plot, .lcsm-instrument figure.lcsm-chart .js-plotly-plot')]
                  .map(d => (d.data || []).map(t => [t.x, t.y, t.z])))"""
INSTRUMENT_DRAWN = ".lcsm-instrument[data-drawn]"

pytestmark = [pytest.mark.browser, needs_chromium]


def test_every_page_renders_and_dynamics_plots_follow_their_sliders(app_url, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1600, "height": 2800 if FULL_SHOTS else 1000})  # tall: a whole page
    try:
        page.goto(app_url)
        # the navigation sits in the top bar (app/streamlit_app.py): Home, then a menu per section
        page.wait_for_selector('[data-testid="stTopNav"] a', timeout=60_000)
        assert page.locator('[data-testid="stTopNavSection"]').count() >= 2
        home = page.locator('[data-testid="stTopNav"] a').first.get_attribute("href")
        links = [home] + [f"{app_url}/{name}" for name in PAGES]
        for href in links:
            page.goto(href)
            wait_idle(page)
            name = href.rstrip("/").rsplit("/", 1)[-1] or "home"
            if name == f"127.0.0.1:{app_url.rsplit(':', 1)[-1]}":
                name = "home"
            page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=FULL_SHOTS)
            errors = page.locator('[data-testid="stException"]')
            assert errors.count() == 0, f"{href}: {errors.first.inner_text()[:500]}"
            if name in SLIDERS:
                check_slider_moves_plots(page, name)
    finally:
        page.close()


def check_slider_moves_plots(page, name):
    page.wait_for_selector(INSTRUMENT_DRAWN + " figure.lcsm-chart .js-plotly-plot", timeout=60_000)
    wait_settled(page)
    before = page.evaluate(CHART_DATA)
    assert json.loads(before), f"{name}: the instrument drew no chart"
    swept = lesson(name).sweep.setting
    url_before = url_value(page.url, swept)
    slider = page.get_by_role("slider", name=SLIDERS[name])
    slider.focus()
    slider.press("ArrowRight")
    slider.press("ArrowRight")
    deadline = time.monotonic() + 60
    while page.evaluate(CHART_DATA) == before:
        assert time.monotonic() < deadline, f"{name}: plots did not change after moving '{SLIDERS[name]}'"
        page.wait_for_timeout(200)
    deadline = time.monotonic() + 60                    # the move is committed once the keys pause
    while url_value(page.url, swept) == url_before:
        assert time.monotonic() < deadline, f"the URL did not record the new setting: {page.url}"
        page.wait_for_timeout(200)      # (not time.sleep: page.url is what playwright heard while its loop ran)
    wait_idle(page)
    wait_settled(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert json.loads(page.evaluate(CHART_DATA))
    page.screenshot(path=str(SHOTS / f"{name}-moved.png"), full_page=FULL_SHOTS)


def url_value(url: str, name: str) -> str | None:
    return parse_qs(urlsplit(url).query).get(name, [None])[0]


def wait_settled(page, timeout=60.0):
    """Until the instrument has drawn the server's page: no commit pending (`lcsm-pending`)."""
    page.wait_for_selector(INSTRUMENT_DRAWN + ":not(.lcsm-pending)", timeout=timeout * 1000)


# page → two settings a teacher leaves to the students
PRESENTED = {"spring": "c,forcing", "discretize": "dt,c", "rings": "r_min,r_max", "lru_stability": "lr,steps",
             "propagation": "nu,theta", "eos_view": "source,variant", "online_learners": "beta,n_keys",
             "train_live": "lr,variant", "paper_lab": "ablation,steps", "check_math": "psi,seed"}
LABELS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stWidgetLabel"]')]
              .filter(e => e.offsetParent !== null).map(e => e.innerText.trim())"""
# A dynamics page's controls: the settings the instrument shows (each `.lcsm-control[data-name]`).
INSTRUMENT_CONTROLS = """() => [...document.querySelectorAll('.lcsm-instrument .lcsm-control[data-name]')]
              .filter(e => e.offsetParent !== null).map(e => e.dataset.name)"""


def test_a_teacher_link_opens_every_page_in_presenter_view_with_two_controls(app_url, browser):
    """At projector size, ?present=1&show=a,b: no sidebar, exactly the two controls above the charts (on a dynamics
    page, in the instrument's controls; no settings widget of Streamlit's beside them)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        for name, shown in PRESENTED.items():
            assert all(s in lesson(name).settings for s in shown.split(",")), name
            page.goto(f"{app_url}/{name}?present=1&show={shown}")
            wait_idle(page)
            if name in SLIDERS:
                page.wait_for_selector(INSTRUMENT_DRAWN, timeout=60_000)
            page.screenshot(path=str(SHOTS / f"{name}-presenter.png"))
            errors = page.locator('[data-testid="stException"]')
            assert errors.count() == 0, f"{name}: {errors.first.inner_text()[:500]}"
            assert not page.locator('[data-testid="stSidebar"]').is_visible(), name
            settings = lesson(name).settings
            wanted = set(shown.split(","))
            deadline = time.monotonic() + 30            # a loaded machine may draw the widgets a moment after idle
            while True:
                labels = set(page.evaluate(LABELS))
                drawn = {p.name for p in settings.params if not p.in_main and p.label in labels}
                if name in SLIDERS or drawn == wanted or time.monotonic() > deadline:
                    break
                page.wait_for_timeout(250)
            if name in SLIDERS:                         # the instrument draws them; Streamlit draws none
                assert drawn == set(), (name, drawn)
                drawn = set(page.evaluate(INSTRUMENT_CONTROLS))
                assert page.locator(".lcsm-instrument .lcsm-controls").bounding_box()["y"] < \
                    page.locator(".lcsm-instrument .lcsm-main").bounding_box()["y"] + 1, name
            assert drawn == wanted, (name, drawn, sorted(labels))
            assert page.get_by_text("could not").count() == 0, name
    finally:
        page.close()

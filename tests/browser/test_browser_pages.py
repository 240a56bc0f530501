"""Real browser: a teacher link opens every page in its presenter view with the two controls it names.

(Every page opening without an exception, its navigation, each lesson instrument drawing its charts: the
accessibility gate's pass, tests/browser/test_accessibility_browser.py, which opens every page at two sizes anyway.
Moving each dynamics page's slider, found by its accessible name here (SLIDERS), and every chart following to what
the server draws: tests/browser/test_instrument_browser.py.)
Screenshots land in tests/screenshots/ (gitignored)."""
import time

import pytest

from lcsm_explorer.app.lessons import lesson
from tests.browser.app_server import ROOT, needs_chromium, wait_idle

SHOTS = ROOT / "tests" / "screenshots"
# dynamics page → its swept slider's accessible name (the instrument's)
SLIDERS = {"spring": "damping c", "discretize": "sample time Δ (s)", "rings": "r_max",
           "lru_stability": "gradient steps", "propagation": "damping ν"}
INSTRUMENT_DRAWN = ".lcsm-instrument[data-drawn]"

pytestmark = [pytest.mark.browser, needs_chromium]


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

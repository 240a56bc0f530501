"""Lesson 1 page: what it shows equals the core, presets do what they say, exercises grade right."""
import math

from lcsm_core.dynamics.spring import spring_regime
from tests.app.pages import (
    assert_clean,
    commit,
    control,
    equations,
    feedback_for,
    instrument,
    open_page,
    press_preset,
    readouts,
)


def metric(at, label):
    return readouts(at, "spring")[label]


def test_metrics_and_equations_show_the_core_values():
    at = open_page("spring", {"m": "2", "k": "3", "c": "0.5"})
    assert_clean(at)
    r = spring_regime(2.0, 0.5, 3.0)
    assert metric(at, "regime") == r.name == "underdamped"
    assert metric(at, "damping ratio ζ") == f"{r.zeta:.3g}"
    assert metric(at, "half-life") == f"{r.half_life:.3g} s"
    line = equations(at, "spring")[1]
    assert f"{r.poles[0].real:.4g}" in line and f"{r.zeta:.4g}" in line
    assert len(instrument(at, "spring")["figures"]) == 4


def test_negative_damping_reports_growth_and_the_plots_stop_at_the_bound():
    at = open_page("spring", {"m": "0.1", "c": "-1"})
    assert_clean(at)
    assert metric(at, "regime") == "unstable" and "doubling time" in readouts(at, "spring")
    assert any("grew past ±1,000,000" in n["text"] and n["level"] == "warning"
               for n in instrument(at, "spring")["text"]["notices"])


def test_the_critically_damped_preset_solves_the_first_exercise_and_the_half_life_is_worked_out():
    at = open_page("spring")
    press_preset(at, "spring", "Critically damped")
    at.button(key="spring.exercise.0.check").click().run()
    assert at.success and not at.error, [e.value for e in at.error]
    fresh = open_page("spring")
    assert feedback_for(fresh, "spring", 1, 13.86)
    assert not feedback_for(fresh, "spring", 1, 6.93)                  # the default's half-life, shown beside it
    assert math.isclose(spring_regime(2.0, 0.2, 1.0).half_life, 13.86, rel_tol=2e-3)


def test_the_frequency_slider_appears_only_for_a_sine_and_the_period_only_for_a_pulse_train():
    """The instrument's freq and period controls are shown only for the forcing that uses them."""
    at = open_page("spring")
    keys = lambda: {name for name in ("freq", "period") if control(at, "spring", name)["shown"]}
    assert "freq" not in keys() and "period" not in keys()
    commit(at, "spring", forcing="sine")
    assert "freq" in keys() and "period" not in keys()
    commit(at, "spring", forcing="pulse train")
    assert "period" in keys() and "freq" not in keys()

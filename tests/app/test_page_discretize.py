"""Lesson 2 page claims: the presets show what their insight says (Euler unstable with its warning,
ZOH exact on a release), the numbers on the page are the core's, and a runaway Euler curve neither
squashes the responses plot nor goes unmarked. (Loading, extremes, presets, links: tests/app/test_lessons.py.)"""
from __future__ import annotations

import pytest

from lcsm_core.divergence import DIVERGENCE_BOUND
from lcsm_core.dynamics.discretize_comparison import compare_discretizations
from lcsm_explorer.app.lessons.discretize import LESSON, PRESETS, SETTINGS
from tests.app.pages import (
    assert_clean,
    click,
    commit,
    control,
    equations,
    feedback_for,
    instrument,
    open_page,
    press_preset,
)

EULER_UNSTABLE, ZOH_EXACT = 2, 1                # preset indices
WHERE_EULER_BREAKS, UNSTABLE_RECURRENCE, ZOH_IS_EXACT = 0, 1, 2     # exercise indices
# m = 0.1, k = 10, c = 0, Δ = 2: Euler's |z| = 20, its response passes the bound at t = 12 s
EULER_DIVERGES = dict(SETTINGS.defaults, m=0.1, k=10.0, c=0.0, dt=2.0)


def metric(at, label: str) -> dict:
    """One of the instrument's readouts: its label, value, delta and whether the delta is good."""
    return next(m for m in instrument(at, "discretize")["text"]["metrics"] if m["label"] == label)


def warnings(at) -> str:
    return " ".join(n["text"] for n in instrument(at, "discretize")["text"]["notices"] if n["level"] == "warning")


def test_euler_unstable_preset_shows_euler_unstable_and_says_why():
    at = press_preset(open_page("discretize"), "discretize", PRESETS[EULER_UNSTABLE].label)
    assert_clean(at)
    assert at.session_state["discretize.dt"] == PRESETS[EULER_UNSTABLE].values["dt"]
    assert metric(at, "Euler: largest |z|")["delta"] == "unstable"
    assert metric(at, "ZOH: largest |z|")["delta"] == "stable"
    assert metric(at, "bilinear: largest |z|")["delta"] == "stable"
    text = warnings(at)
    assert "past Euler's stability limit 0.2 s" in text and "1.0149" in text
    click(at, f"discretize.exercise.{UNSTABLE_RECURRENCE}.check")
    assert at.success, [e.value for e in at.error]


def test_zoh_is_exact_on_a_release_at_a_coarse_step():
    at = press_preset(open_page("discretize"), "discretize", PRESETS[ZOH_EXACT].label)
    assert_clean(at)
    values = dict(SETTINGS.defaults, **PRESETS[ZOH_EXACT].values)
    q = LESSON.quantities(values, LESSON.compute(values))
    assert q["zoh_error"] < 1e-12 and q["euler_error"] > 0.1 and q["bilinear_error"] > 0.1
    click(at, f"discretize.exercise.{ZOH_IS_EXACT}.check")
    assert at.success, [e.value for e in at.error]


def test_typed_euler_limit_is_accepted_and_a_wrong_one_is_not():
    at = open_page("discretize")
    assert feedback_for(at, "discretize", WHERE_EULER_BREAKS, 0.2)
    assert not feedback_for(at, "discretize", WHERE_EULER_BREAKS, 0.3)


def test_metrics_and_equations_are_the_cores_values():
    values = dict(SETTINGS.defaults, **PRESETS[EULER_UNSTABLE].values)
    cmp = compare_discretizations(values["m"], values["c"], values["k"], values["dt"])
    at = open_page("discretize", SETTINGS.encode(values))
    for method, label in (("zoh", "ZOH"), ("bilinear", "bilinear"), ("euler", "Euler")):
        assert metric(at, f"{label}: largest |z|")["value"] == f"{cmp.methods[method].radius:.4f}"
    latex = " ".join(equations(at, "discretize"))
    p = cmp.s_poles[-1]
    for method in ("zoh", "bilinear", "euler"):
        z = cmp.methods[method].mapped[-1]       # where p went: the core's value, not recomputed by the page
        assert f"{z.real:.4f} {z.imag:+.4f}i" in latex
    assert f"{(1 + p * values['dt']).real:.4f}" in latex          # Euler's z = 1 + pΔ, as the lesson says


def test_a_diverging_euler_is_cut_at_the_one_bound_and_marked():
    at = open_page("discretize", SETTINGS.encode(EULER_DIVERGES))
    assert_clean(at)
    assert f"passed ±{DIVERGENCE_BOUND:,.0f} at t = 12 s" in warnings(at)
    assert metric(at, "Euler: largest |z|")["delta"] == "unstable"

    cmp = LESSON.compute(EULER_DIVERGES)
    figures = LESSON.figures(EULER_DIVERGES, cmp)
    euler = cmp.methods["euler"]
    assert euler.diverged_at == 12.0 and max(abs(euler.y)) > DIVERGENCE_BOUND
    low, high = figures["responses"].layout.yaxis.range           # framed on the exact response, not on 1e6
    assert -10 < low < -1 and 1 < high < 10
    for name in ("responses", "error"):
        marks = [s.x0 for s in figures[name].layout.shapes]
        assert 12.0 in marks, name
        assert any("Euler diverged at 12" in a.text for a in figures[name].layout.annotations), name
    assert any("leaves the frame" in a.text for a in figures["responses"].layout.annotations)


@pytest.mark.parametrize("preset", [0, EULER_UNSTABLE, 3])
def test_responses_autoscale_while_every_curve_stays_near_the_exact_one(preset):
    values = dict(SETTINGS.defaults, **PRESETS[preset].values)
    figure = LESSON.figures(values, LESSON.compute(values))["responses"]
    assert figure.layout.yaxis.range is None and not figure.layout.annotations


def test_sine_frequency_is_offered_only_for_a_sine_input():
    """The instrument's frequency control is shown only for a sine input."""
    at = open_page("discretize")
    dt = control(at, "discretize", "dt")                                # the browser test drags it
    assert dt["label"] == "sample time Δ (s)" and dt["widget"] == "slider" and dt["shown"]
    assert not control(at, "discretize", "freq")["shown"]
    commit(at, "discretize", input="sine")
    assert control(at, "discretize", "freq")["shown"]

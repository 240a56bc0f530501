"""Lesson 3 page claims: the horizons and γ on the page are the core's, a reversed ring is used swapped
and said so, the PathX preset solves its exercises, a typed horizon is graded.
(Loading, extremes, presets, links: tests/app/test_lessons.py.)"""
from __future__ import annotations

import math

import numpy as np

from lcsm_core.dynamics.rings import ring_study
from lcsm_explorer.app.lessons.rings import PRESETS, SETTINGS
from tests.app.pages import (
    assert_clean,
    click,
    control,
    equations,
    feedback_for,
    instrument,
    notices,
    open_page,
    press_preset,
    readouts,
)

PATHX = 3                                                    # preset index
THOUSAND_STEPS, HORIZON_OF_A_RADIUS, PATHX_PHASES = 0, 1, 2  # exercise indices


def metric_values(at) -> dict[str, str]:
    return readouts(at, "rings")



def test_horizon_metrics_and_gamma_are_the_cores():
    at = open_page("rings")
    assert_clean(at)
    r_max = control(at, "rings", "r_max")                   # the browser test drags it
    assert r_max["label"] == "r_max" and r_max["widget"] == "slider" and r_max["shown"]
    v = SETTINGS.defaults
    study = ring_study(v["n"], v["r_min"], v["r_max"], v["phase"] * math.pi, v["seed"])
    h = study.horizons
    assert metric_values(at) == {"smallest |λ|": f"{study.radii.min():.5f}",
                                 "largest |λ|": f"{study.radii.max():.5f}",
                                 "median memory horizon": f"{np.median(h):,.4g} steps",
                                 "longest memory horizon": f"{h.max():,.4g} steps"}
    j = study.picked[-1]
    latex = " ".join(equations(at, "rings"))
    assert f"= {study.gammas[j]:.5f}" in latex and f"= {h[j]:,.5g}" in latex     # γ and horizon of the largest |λ|


def test_reversed_bounds_are_swapped_and_said_so():
    at = open_page("rings", SETTINGS.encode(dict(SETTINGS.defaults, r_min=0.9, r_max=0.5)))
    assert_clean(at)
    assert any("r_min > r_max: using the ring [0.5, 0.9]" in n["text"] and n["level"] == "info"
               for n in instrument(at, "rings")["text"]["notices"])
    study = ring_study(128, 0.5, 0.9, 2 * math.pi, 0)
    assert metric_values(at)["smallest |λ|"] == f"{study.radii.min():.5f}"
    fresh = open_page("rings")
    notes = [i.value for i in fresh.info if i.icon != "👉"]                  # 👉: the lesson's try-this steps
    assert not notes and not notices(fresh, "rings")          # no note while the ring is the right way round


def test_pathx_preset_solves_the_long_memory_exercises():
    at = press_preset(open_page("rings"), "rings", PRESETS[PATHX].label)
    assert_clean(at)
    assert at.session_state["rings.r_min"] == PRESETS[PATHX].values["r_min"]
    for exercise in (THOUSAND_STEPS, PATHX_PHASES):
        click(at, f"rings.exercise.{exercise}.check")
        assert at.success and not at.error, exercise
    assert float(metric_values(at)["median memory horizon"].split()[0].replace(",", "")) > 1000


def test_defaults_do_not_solve_the_thousand_steps_exercise():
    at = click(open_page("rings"), f"rings.exercise.{THOUSAND_STEPS}.check")
    assert at.error and not at.success


def test_typed_horizon_of_a_radius_is_graded():
    at = open_page("rings")
    assert feedback_for(at, "rings", HORIZON_OF_A_RADIUS, 200.0)
    assert not feedback_for(at, "rings", HORIZON_OF_A_RADIUS, 100.0)


def test_the_pathx_caption_says_what_its_impulse_responses_draw():
    """They ring: each picked λᵗ changes sign dozens of times over the steps drawn (the caption once promised
    "slow, smooth memory" over this)."""
    caption = PRESETS[PATHX].insight
    assert "smooth" not in caption and "rings dozens of times" in caption
    v = {**SETTINGS.defaults, **PRESETS[PATHX].values}
    study = ring_study(v["n"], v["r_min"], v["r_max"], v["phase"] * math.pi, v["seed"])
    assert study.impulse.shape[1] == 3000 and "3000 steps drawn" in caption
    sign_changes = (np.diff(np.sign(study.impulse.real), axis=1) != 0).sum(axis=1)
    assert (sign_changes >= 2 * 24).all(), sign_changes                   # ≥ 24 periods: dozens
    assert np.degrees(np.angle(study.eigenvalues).max()) <= 18 + 1e-9


def test_the_ring_sliders_move_in_steps_a_drag_can_see():
    for name in ("r_min", "r_max"):
        setting = SETTINGS[name]
        assert setting.step == 0.001 and setting.high == 0.9999 and "0.001" in setting.help
    assert PRESETS[PATHX].values["r_max"] == 0.9999 and SETTINGS["r_max"].valid(0.9999)   # still reachable

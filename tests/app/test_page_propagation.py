"""Lesson 5 (information propagation), page-specific claims: each preset shows what its caption says,
a preset solves "Into the red zone", a typed answer is accepted, θ is turned into radians once, and
moving any slider reuses the one scan of a single token (no new grid scan).
(Loading, widget extremes, links and presets' ranges: tests/app/test_lessons.py.)"""
from __future__ import annotations

import numpy as np

import lcsm_explorer.app.lessons.propagation as page
from lcsm_core.divergence import DIVERGENCE_BOUND
from lcsm_core.dynamics.propagation import FORGET_BELOW, token_responses
from tests.app.pages import assert_clean, instrument, open_page, press_preset

PRESET = {preset.label.split(" ", 1)[1]: preset for preset in page.PRESETS}


def shown(name: str) -> tuple[dict, object]:
    values = {**page.SETTINGS.defaults, **PRESET[name].values}
    return values, page.compute(values)


def verdicts(exp) -> dict[str, str]:
    return {tr.name.split(" (")[0]: tr.verdict for tr in exp.traces}


# --- presets show what their captions claim ---------------------------------------------------------
def test_article_setup_light_damping_remembers_heavy_damping_forgets():
    _, exp = shown("Article setup")
    assert verdicts(exp)["low damping"] == "remembers"
    assert verdicts(exp)["high damping"] == "forgot"


def test_forgets_it_is_the_second_token_that_fades():
    values, exp = shown("Forgets")
    lru = exp.traces[-1]
    # what tells "aa" from "ab" is the second token, `length` steps back: 2|λ|^200 = 2e^-20
    assert np.isclose(lru.final_distance, 2 * np.exp(-0.1 * values["length"]), rtol=1e-6)
    assert np.isclose(exp.predicted_distance, 2 * np.exp(-20), rtol=1e-12)
    assert lru.verdict == "forgot" and lru.final_distance < FORGET_BELOW
    insight = PRESET["Forgets"].insight
    assert "second token" in insight and "2e⁻²⁰" in insight and "first token" not in insight


def test_explodes_passes_the_one_divergence_bound_and_solves_the_red_zone():
    values, exp = shown("Explodes")
    lru = exp.traces[-1]
    assert values["nu"] < 0 and lru.exploded and lru.verdict == "exploded"
    assert 270 <= lru.t[-1] <= 290                               # "after about 280 steps": ln(10⁶)/0.05 ≈ 276
    assert max(abs(lru.y_aa[-2]), abs(lru.y_ab[-2])) <= DIVERGENCE_BOUND    # kept up to the step that passed it
    at = press_preset(open_page("propagation"), "propagation", page.PRESETS[2].label)     # 💥 Explodes
    assert_clean(at, "explodes")
    assert [n["text"] for n in instrument(at, "propagation")["text"]["notices"]
            if n["level"] == "warning" and "±1,000,000" in n["text"] and "LRU eigenvalue" in n["text"]]
    at.button(key="propagation.exercise.2.check").click().run()
    assert at.success, [e.value for e in at.error]


def test_long_memory_still_distinguishable_after_400_steps():
    values, exp = shown("Long memory")
    lru = exp.traces[-1]
    assert values["length"] == 400 and lru.verdict == "remembers" and lru.final_distance > 0.1


# --- exercises and equations ------------------------------------------------------------------------
def test_typed_forgetting_distance_is_accepted():
    at = open_page("propagation")
    at.number_input(key="propagation.exercise.1.answer").set_value(0.0135).run()
    at.button(key="propagation.exercise.1.check").click().run()
    assert at.success, [e.value for e in at.error]


def test_theta_in_degrees_becomes_radians_once():
    values = {**page.SETTINGS.defaults, "theta": 90, "nu": 0.02}
    exp = page.compute(values)
    q = page.quantities(values, exp)
    assert np.isclose(q["theta_rad"], np.pi / 2)
    assert np.isclose(q["lambda_re"], 0, atol=1e-12) and np.isclose(q["lambda_im"], np.exp(-0.02))
    assert "+1.571i" in page.equations(q)[0]
    lru = exp.traces[-1]                                        # h_ab is h_aa rotated by a quarter turn each step
    assert "θ = 90°" in lru.name and np.isclose(lru.final_distance, q["predicted_distance"], rtol=1e-9)


def test_moving_any_slider_reuses_the_one_scan_of_a_single_token(monkeypatch):
    calls = []

    def counted(steps):
        calls.append(steps)
        return token_responses(steps)

    monkeypatch.setattr(page, "token_responses", counted)
    page.single_token_responses.cache_clear()
    values = page.SETTINGS.defaults
    for gap, length, nu, theta in ((37, 91, 0.01, 15), (37, 91, 0.2, 15), (200, 400, -0.04, 120), (1, 1, 0.01, 0)):
        exp = page.compute({**values, "gap": gap, "length": length, "nu": nu, "theta": theta})
        assert (exp.gap, exp.length, exp.nu, exp.theta_deg) == (gap, length, nu, theta)
        assert exp.by_length.distance.shape[1] == length + 1
    assert calls == [page.SETTINGS["gap"].high + page.SETTINGS["length"].high + 1]
    page.single_token_responses.cache_clear()


def test_the_legend_shows_each_sequences_line_and_the_current_star_is_never_cut():
    """The "aa"/"ab" legend sits beside the panels (above them its first line sample fell under the clear border
    that keeps the panel titles off it), and the ★ on each map is drawn whole where the setting is at the map's
    edge (the length slider's default is the by-length map's last column; θ = 180°, ν = 0.3 are corners)."""
    for changes in ({}, dict(theta=180, nu=0.3, length=400)):
        values = {**page.SETTINGS.defaults, **changes}
        figs = page.figures(values, page.compute(values))
        legend = figs["traces"].layout.legend
        assert legend.orientation == "v" and legend.x > 1 and not legend.borderwidth
        assert [t.name for t in figs["traces"].data if t.showlegend] == ['"aa"', '"ab"']
        for name in ("by_length", "by_theta"):
            [star] = [t for t in figs[name].data if t.name == "current"]
            assert star.cliponaxis is False, name
        [star] = [t for t in figs["by_length"].data if t.name == "current"]
        assert star.x[0] == values["length"] == figs["by_length"].data[0].x[-1]        # on the last column

"""Lesson 4 (LRU stability), page-specific claims: a cut of the long training run is the short run,
the "gradient steps" slider never retrains, each preset shows what its caption says (at the seed it
sets, or at every seed when it sets none), and the exercises accept what they should.
(Loading, widget extremes, links and presets' ranges: tests/app/test_lessons.py.)"""
from __future__ import annotations

import numpy as np
import pytest

import lcsm_explorer.app.lessons.lru_stability as page
from lcsm_core.dynamics.lru_stability import (
    PARAMETERIZATIONS,
    RING_WIDTH,
    StabilityConfig,
    output_scale,
    stability_study,
)
from tests.app.pages import assert_clean, commit, instrument, open_page, press_preset

PRESET = {preset.label.split(" ", 1)[1]: preset for preset in page.PRESETS}


def preset_values(name: str, **changes) -> dict:
    return {**page.SETTINGS.defaults, **PRESET[name].values, **changes}


def shown_notices(at, level: str) -> list[str]:
    """The instrument's notices of one level ("warning", "error", ...), as the page draws them."""
    return [n["text"] for n in instrument(at, "lru_stability")["text"]["notices"] if n["level"] == level]


def study(values: dict, steps: int | None = None):
    steps = values["steps"] if steps is None else steps
    return stability_study(values["lr"], steps, values["gamma"], values["r_max"], values["seed"])


# --- the cut: moving "gradient steps" only slices one long run -------------------------------------
@pytest.mark.parametrize("values, event, cuts", [
    (preset_values("Reckless steps"), "diverged_step", (1, 2, 10)),          # the naive loss diverges at 2
    (preset_values("Large steps", seed=2), "left_disk_step", (2, 3, 25)),    # naive λ leaves the disk at 3
    (preset_values("Gentle steps", seed=1), "left_disk_step", (48, 49)),     # ... at 49
])
def test_a_cut_of_the_longest_run_equals_a_direct_run_of_that_many_steps(values, event, cuts):
    longest = study(values, page.SETTINGS["steps"].high)
    assert cuts[0] < getattr(longest.runs["naive"], event) <= cuts[-1]       # the cuts fall on both sides of it
    for steps in cuts:
        cut, direct = longest.up_to(steps), study(values, steps)
        assert cut.output_rms == direct.output_rms
        for name in PARAMETERIZATIONS:
            a, b = cut.runs[name], direct.runs[name]
            assert a.config == b.config, (steps, name)
            np.testing.assert_array_equal(a.eigenvalues, b.eigenvalues, err_msg=f"{steps} {name}")
            np.testing.assert_array_equal(a.loss, b.loss, err_msg=f"{steps} {name}")
            assert (a.left_disk_step, a.diverged_step) == (b.left_disk_step, b.diverged_step), (steps, name)


def test_moving_gradient_steps_trains_once(monkeypatch):
    calls = []

    def counted(*args):
        calls.append(args)
        return stability_study(*args)

    monkeypatch.setattr(page, "stability_study", counted)
    page.trained.clear()
    values = preset_values("Large steps", r_max=0.9)                # a setting no other test trains
    for steps in (10, 60, 150, 35):
        result = page.compute({**values, "steps": steps})
        assert result.runs["naive"].config.steps == steps
    assert len(calls) == 1 and calls[0][1] == page.SETTINGS["steps"].high
    page.trained.clear()


# --- presets show what their captions claim ---------------------------------------------------------
def test_gentle_steps_both_stay_inside_at_the_seed_it_sets():
    assert PRESET["Gentle steps"].values["seed"] == 0
    runs = page.compute(preset_values("Gentle steps")).runs
    assert all(run.left_disk_step is None and run.peak_radius < 1 for run in runs.values())


@pytest.mark.parametrize("seed", range(10))
def test_large_steps_push_naive_out_within_a_few_steps_at_every_seed(seed):
    assert "seed" not in PRESET["Large steps"].values                # so it must hold whatever the seed
    runs = study(preset_values("Large steps", seed=seed)).runs
    assert runs["naive"].left_disk_step is not None and runs["naive"].left_disk_step <= 5
    assert runs["exponential"].left_disk_step is None and runs["exponential"].peak_radius < 1


def test_reckless_steps_naive_explodes_training_stops_exponential_keeps_learning():
    assert PRESET["Reckless steps"].values["seed"] == 0
    runs = page.compute(preset_values("Reckless steps")).runs
    naive, expo = runs["naive"], runs["exponential"]
    assert naive.diverged_step is not None and naive.steps_run == naive.diverged_step < 60
    assert expo.diverged_step is None and expo.steps_run == 60
    assert expo.loss[-1] < 0.01 * expo.loss[0]


def test_no_gamma_blows_the_output_up():
    values = preset_values("No γ normalization")
    q = page.quantities(values, page.compute(values))
    assert q["ratio_without_over_with"] > 2
    assert q["init_gain"] > 5                                        # 1/√(1 − r²) of the mode nearest the circle


@pytest.mark.parametrize("seed", range(10))
def test_no_gamma_blows_the_output_up_at_every_seed(seed):
    assert "seed" not in PRESET["No γ normalization"].values
    r_max = PRESET["No γ normalization"].values["r_max"]
    scale = output_scale(StabilityConfig(r_min=r_max - RING_WIDTH, r_max=r_max, seed=seed))
    assert scale["without γ"] > 2 * scale["with γ"]


def test_presets_that_need_a_seed_set_it_on_the_page():
    at = commit(open_page("lru_stability"), "lru_stability", seed=1)
    assert at.session_state["lru_stability.seed"] == 1
    press_preset(at, "lru_stability", page.PRESETS[2].label)                  # 💥 Reckless steps
    assert_clean(at, "reckless")
    assert at.session_state["lru_stability.seed"] == 0
    errors = shown_notices(at, "error")
    assert [e for e in errors if "naive: the loss diverged" in e and "1,000,000" in e]
    assert not [e for e in errors if e.startswith("exponential")]
    press_preset(at, "lru_stability", page.PRESETS[0].label)                  # 🐢 Gentle steps
    assert_clean(at, "gentle")
    assert not [w for w in shown_notices(at, "warning") if "left the unit disk" in w]
    deltas = [m["delta"] for m in instrument(at, "lru_stability")["text"]["metrics"]
              if m["label"].endswith("largest |λ| in training")]
    assert deltas == ["stayed inside", "stayed inside"]


# --- exercises -----------------------------------------------------------------------------------
def test_big_steps_from_an_inner_ring_solve_push_it_out():
    at = open_page("lru_stability", {"r_max": "0.95", "lr": "0.3", "seed": "0"})
    at.button(key="lru_stability.exercise.0.check").click().run()
    assert at.success, [e.value for e in at.error]
    assert [w for w in shown_notices(at, "warning") if w.startswith("naive: an eigenvalue left the unit disk")]


def test_typed_output_ratio_is_accepted():
    values = page.SETTINGS.defaults
    ratio = page.quantities(values, page.compute(values))["ratio_without_over_with"]
    at = open_page("lru_stability")
    at.number_input(key="lru_stability.exercise.1.answer").set_value(round(ratio * 1.02, 3)).run()
    at.button(key="lru_stability.exercise.1.check").click().run()
    assert at.success, [e.value for e in at.error]


@pytest.mark.parametrize("steps", [60, 10, 150])
def test_the_step_axes_span_the_slider_and_say_which_steps_were_not_run(steps):
    """A 60-step run on a step axis to 150 (the preview keeps a family's axes still while "gradient steps" is
    dragged): the axes are the slider's range in every drawing, and the stretch past the run is shaded and named."""
    values = {**page.SETTINGS.defaults, "steps": steps}
    fig = page.loss_figure(page.compute(values).runs)
    high = page.SETTINGS["steps"].high
    assert list(fig.layout.xaxis.range) == list(fig.layout.xaxis2.range) == [0, high]
    shaded = [s for s in fig.layout.shapes if s.type == "rect"]
    words = [(a.text, a.hovertext, a.xref, a.x) for a in fig.layout.annotations if "not run" in (a.text or "")]
    if steps < high:
        assert {(s.xref, s.x0, s.x1) for s in shaded} == {("x", steps, high), ("x2", steps, high)}
        assert words == [("not run", f"steps {steps + 1}–{high}: not run", xref, (steps + high) / 2)
                         for xref in ("x", "x2")]                 # upright in each band, where no curve is
    else:
        assert not shaded and not words

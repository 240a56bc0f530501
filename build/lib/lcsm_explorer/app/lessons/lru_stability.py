"""Lesson 4 · Stability of the LRU parameterization: naive vs exponential λ under real gradient steps.

Prose and exercises: lessons/04-lru-stability.md. Both students are trained by `stability_study`
(Adam on the LRU's hand-written gradient, ~10 ms for both; the torch-autograd reference through the EOS scan
agrees to rounding, tests/dynamics/test_lru_hand_gradient.py). Training is deterministic, so it runs once per
(learning rate, γ, r_max, seed) to the longest the "gradient steps" slider allows; moving that
slider only cuts the stored runs (`StabilityStudy.up_to`).
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np
import plotly.graph_objects as go

from lcsm_core.divergence import DIVERGENCE_BOUND
from lcsm_core.dynamics.lru_stability import (
    StabilityRun,
    StabilityStudy,
    amplification,
    stability_study,
    white_noise_gain,
)
from lcsm_explorer.app.kit.cache import cached
from lcsm_explorer.app.kit.figure_style import (
    COLORS,
    GREY,
    INK,
    build,
    circle,
    divergence_marks,
    hline,
    log_safe,
    note,
    scatter,
    subplot_grid,
)
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Notice, Snippet, Sweep
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings
from lcsm_explorer.app.kit.sweep import Refiller

LEARNING_RATES = (0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3)

SETTINGS = Settings("lru_stability", (
    Setting.choice("lr", "learning rate (Adam)", 0.01, LEARNING_RATES, widget="select_slider"),
    Setting.slider("steps", "gradient steps", 60, 10, 150, step=5),
    Setting.toggle("gamma", "γ normalization (γ = √(1 − |λ|²))", True),
    Setting.slider("r_max", "init ring r_max", 0.999, 0.5, 0.9999, step=0.0001, format="%.4f"),
    Setting.slider("seed", "random seed", 0, 0, 9),
))

# "Gentle" and "Reckless" set the seed (and say so): at lr = 0.001 the naive λ leaves the disk within 60 steps
# for seeds 1 and 7, and at lr = 0.3 the naive loss passes the divergence bound for seeds 0, 2, 5, 7, 8, 9 only.
# "Large steps" holds at every seed 0..9; the output ratio without/with γ is 2.7–9.4 over seeds 0..9 at
# r_max = 0.9999, always below the largest mode's 1/√(1 − r²) (tests/app/test_page_lru_stability.py).
PRESETS = (
    Preset("🐢 Gentle steps", dict(lr=0.001, steps=60, gamma=True, r_max=0.95, seed=0),
           "Small steps from a ring well inside the circle (seed 0): both parameterizations stay inside the disk.",
           claim=("r_max <= 0.95", "naive_left_disk = 0", "exponential_left_disk = 0", "naive_max_radius < 0.95",
                  "exponential_max_radius < 0.95")),
    Preset("🚀 Large steps", dict(lr=0.03, steps=60, gamma=True, r_max=0.999),
           "lr = 0.03: naive λ is pushed out of the unit disk within a few steps; exponential λ cannot leave.",
           claim=("naive_left_disk = 1", "naive_left_disk_step <= 5", "naive_max_radius > 1",
                  "exponential_left_disk = 0", "exponential_max_radius < 1")),
    Preset("💥 Reckless steps", dict(lr=0.3, steps=60, gamma=True, r_max=0.999, seed=0),
           "lr = 0.3, seed 0: the naive model explodes and training stops; the exponential one keeps learning.",
           claim=("naive_final_loss > 1e6", "naive_steps_run < steps", "exponential_left_disk = 0",
                  "exponential_final_loss < 0.01")),
    Preset("📏 No γ normalization", dict(lr=0.01, steps=60, gamma=False, r_max=0.9999),
           "Without γ the modes near |λ| = 1 are not scaled down: the output at init is 2.7–9× larger than with γ "
           "(seeds 0–9) — less than the largest mode's 1/√(1 − |λ|²), as the training sequences are only 32 steps.",
           claim=("gamma = 0", "ratio_without_over_with between 2.7 and 9.5", "ratio_without_over_with < init_gain")),
)


@cached(max_entries=64)
def trained(learning_rate: float, gamma_normalization: bool, r_max: float, seed: int) -> StabilityStudy:
    """Both runs to the slider's last step: every "gradient steps" value is then a cut of this one study."""
    return stability_study(learning_rate, SETTINGS["steps"].high, gamma_normalization, r_max, seed)


def compute(v: dict) -> StabilityStudy:
    return trained(v["lr"], v["gamma"], v["r_max"], v["seed"]).up_to(v["steps"])


def compute_family(held: dict, steps: list) -> list:
    """`compute` at every "gradient steps" value: cuts of the one training."""
    return trained(held["lr"], held["gamma"], held["r_max"], held["seed"]).up_to_each(steps)


def metrics(v: dict, study: StabilityStudy) -> list:
    items = []
    for name, run in study.runs.items():
        outside = run.left_disk_step is not None
        items.append(Metric(f"{name}: largest |λ| in training", f"{run.peak_radius:.4f}",
                            f"left the disk at step {run.left_disk_step}" if outside else "stayed inside",
                            good=not outside))
    over_1000 = amplification(study.runs["naive"].peak_radius, 1000)
    items += [Metric("naive: that |λ| over 1000 steps", f"{over_1000:.3g}" if math.isfinite(over_1000) else "> 1e308",
                     help="|λ|¹⁰⁰⁰: how much one mode amplifies a 1000-step sequence"),
              Metric("output RMS at init, with γ", f"{study.output_rms['with γ']:.3g}"),
              Metric("output RMS at init, without γ", f"{study.output_rms['without γ']:.3g}")]
    for name, run in study.runs.items():
        if run.left_disk_step is not None:
            items.append(Notice(f"{name}: an eigenvalue left the unit disk at step {run.left_disk_step}.", icon="🚪"))
        if run.diverged_step is not None:
            items.append(Notice(f"{name}: the loss diverged (passed {DIVERGENCE_BOUND:,.0f}) at step "
                                f"{run.diverged_step}; training stopped there.", level="error", icon="💥"))
    return items


def quantities(v: dict, study: StabilityStudy) -> dict[str, float]:
    naive, expo = study.runs["naive"], study.runs["exponential"]
    with_gamma, without_gamma = study.output_rms["with γ"], study.output_rms["without γ"]
    return dict(lr=v["lr"], steps=v["steps"], gamma=float(v["gamma"]), r_max=v["r_max"],
                naive_left_disk=float(naive.left_disk_step is not None),
                naive_left_disk_step=math.inf if naive.left_disk_step is None else float(naive.left_disk_step),
                exponential_left_disk=float(expo.left_disk_step is not None),
                naive_max_radius=naive.peak_radius, exponential_max_radius=expo.peak_radius,
                naive_final_loss=float(naive.loss[-1]), exponential_final_loss=float(expo.loss[-1]),
                rms_with_gamma=with_gamma, rms_without_gamma=without_gamma,
                ratio_without_over_with=without_gamma / with_gamma,
                naive_steps_run=naive.steps_run, naive_final_radius=naive.final_radius,
                exponential_final_radius=expo.final_radius, init_radius=naive.init_radius,
                init_gain=white_noise_gain(naive.init_radius))


def equations(q: dict) -> list[str]:
    return [r"\text{naive: } \lambda = a + ib \quad (a, b\ \text{learned; nothing keeps } |\lambda| < 1)"
            r"\qquad \text{exponential: } \lambda = \exp(-e^{\nu^{\log}} + i e^{\theta^{\log}})",
            rf"\text{{after {q['naive_steps_run']} steps at lr}} = {q['lr']:g}:\quad "
            rf"\text{{largest }}|\lambda_{{\text{{naive}}}}|\text{{ now}} = {q['naive_final_radius']:.4f},\quad "
            rf"\text{{largest }}|\lambda_{{\exp}}|\text{{ now}} = {q['exponential_final_radius']:.4f}"
            rf"\quad (\text{{in training: }} {q['naive_max_radius']:.4f},\ {q['exponential_max_radius']:.4f})"
            rf"\qquad \frac{{1}}{{\sqrt{{1 - r^2}}}}\Big|_{{r = {q['init_radius']:.4f}}} = {q['init_gain']:.3g}"]


# --- figures ---------------------------------------------------------------------------------
DISPLAY_RADIUS = 1.6   # eigenvalues farther out are drawn on this circle (and the title says so)
DASHES = {"naive": "dash", "exponential": "solid"}          # the two runs differ by dash and marker, not colour alone
SYMBOLS = {"naive": "diamond", "exponential": "circle"}


def figures(v: dict, study: StabilityStudy) -> dict[str, go.Figure]:
    return dict(eigenvalues=eigen_trajectory_figure(study.runs), loss=loss_figure(study.runs))


def _clip(z: np.ndarray) -> np.ndarray:
    r = np.abs(z)
    return np.where(r > DISPLAY_RADIUS, z / np.maximum(r, 1e-300) * DISPLAY_RADIUS, z)


def trail_steps(last: int) -> list[int]:
    """The steps a path is drawn through: every step to 20 (a large learning rate moves λ most in the first few),
    then every 5th, and the last. The same steps for every run, so a shorter run's path is the start of a longer
    one's: the preview family sends the longest path once and each member as a cut of it (`app/kit/family.py`)."""
    return sorted({*range(0, min(last, 20) + 1), *range(20, last + 1, 5), last})


def _trail(eigs: np.ndarray) -> np.ndarray:
    """Every eigenvalue at each of `trail_steps`, step after step (all of step 0's, then all of step 1's, …): drawn
    as dots, so no line joins one eigenvalue to the next, and a shorter run's dots are the first of a longer one's."""
    return _clip(eigs[trail_steps(len(eigs) - 1)]).ravel()


def eigen_values(runs: dict[str, StabilityRun]) -> list[dict | None]:
    """The eigenvalue chart's traces' values (`eigen_trajectory_figure`'s order): the unit circles (None: they never
    move), each parameterization's path so far, λ at the last step run."""
    paths = [dict(zip("xy", _xy(_trail(run.eigenvalues)))) for run in runs.values()]
    now = [dict(zip("xy", _xy(_clip(run.eigenvalues[-1])))) for run in runs.values()]
    return [None] * len(runs) + paths + now


def _xy(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.ascontiguousarray(z.real), np.ascontiguousarray(z.imag)


def eigen_frame(runs: dict[str, StabilityRun]) -> dict:
    """The eigenvalue chart's title and layout: a square disk per parameterization, its name above it."""
    axes, titles, _ = subplot_grid(1, len(runs), [f"{n} parameterization" for n in runs])
    lim = [-DISPLAY_RADIUS - 0.05, DISPLAY_RADIUS + 0.05]
    for col in range(1, len(runs) + 1):
        suffix = "" if col == 1 else str(col)
        axes[f"xaxis{suffix}"].update(range=lim, title=dict(text="Re λ"), constrain="domain")
        axes[f"yaxis{suffix}"].update(range=lim, title=dict(text="Im λ" if col == 1 else ""),  # the second title
                                      scaleanchor=f"x{suffix}")                  # would sit on the first disk
    steps = max(len(run.eigenvalues) for run in runs.values()) - 1
    return dict(title=f"Eigenvalues after {steps} steps (beyond |λ| = {DISPLAY_RADIUS} drawn on that circle)",
                height=420, legend=False, margin_top=70, annotations=titles, **axes)


def eigen_trajectory_figure(runs: dict[str, StabilityRun]) -> go.Figure:
    """One panel per parameterization: the unit circle, each λ's path so far (grey dots: every step to 20, then
    every 5th) and λ at the last step run, in the parameterization's colour and marker. Dragging "gradient steps"
    plays the training: every member of the preview is the runs cut at its step."""
    names = list(runs)
    _, _, cell = subplot_grid(1, len(names), names)
    cx, cy = circle()
    values = eigen_values(runs)
    circles, trails, points = [], [], []
    for col, name in enumerate(names, 1):
        xa, ya = cell(1, col)
        circles.append(scatter(x=cx, y=cy, mode="lines", line=dict(color=INK, width=1.5), hoverinfo="skip",
                               showlegend=False, xaxis=xa, yaxis=ya))
        trails.append(scatter(**values[len(names) + col - 1], mode="markers", hoverinfo="skip",
                              showlegend=False, xaxis=xa, yaxis=ya, marker=dict(color=GREY, size=3)))
        points.append(scatter(**values[2 * len(names) + col - 1], mode="markers", name=f"λ ({name})",
                              xaxis=xa, yaxis=ya,
                              marker=dict(size=9, color=COLORS[name], symbol=SYMBOLS[name],
                                          line=dict(color=INK, width=1))))
    return build(circles + trails + points, **eigen_frame(runs))


def loss_values(runs: dict[str, StabilityRun]) -> list[dict]:
    """The training chart's traces' values (`loss_figure`'s order): per run its loss (a diverged step may hold 1e30,
    inf or NaN: drawn at the divergence bound) and its largest |λ|, per step."""
    values = []
    for run in runs.values():
        loss = np.minimum(log_safe(np.nan_to_num(run.loss, nan=DIVERGENCE_BOUND)), DIVERGENCE_BOUND)
        values += [dict(x=np.arange(len(loss)), y=loss),
                   dict(x=np.arange(len(run.eigenvalues)), y=np.abs(run.eigenvalues).max(axis=1))]
    return values


def loss_frame(runs: dict[str, StabilityRun]) -> dict:
    """The training chart's title and layout: the step each run diverged, and the steps not run shaded."""
    axes, titles, _ = subplot_grid(1, 2, ["loss (normalized MSE)", "largest |λ|"])
    notes = list(titles)
    diverged = [(run.diverged_step, name) for name, run in runs.items() if run.diverged_step is not None]
    shapes = [hline(1.0, INK, "dot", xref="x2 domain", yref="y2")]
    for n, (step, name) in enumerate(diverged):      # one line per run, one note for all of them
        marks, words = divergence_marks(step, name, text=", ".join(f"{who}: loss diverged at step {at}"
                                                                   for at, who in diverged),
                                        x_end=max(len(r.loss) for r in runs.values()) - 1)
        shapes += marks
        notes += words if n == 0 else []
    # The step axes span the slider's whole range: while "gradient steps" is dragged the curves grow along a
    # fixed axis (the preview keeps a family's axes still), and at rest the steps not run are shaded and named
    # rather than left as an unexplained empty stretch (a 60-step run on an axis to 150). The name stands upright
    # in the shaded band, where no curve is: written across the panel it hid the curve it lay on.
    last, high = max(run.config.steps for run in runs.values()), SETTINGS["steps"].high
    if last < high:
        for xref, yref in (("x", "y domain"), ("x2", "y2 domain")):
            shapes.append(dict(type="rect", xref=xref, yref=yref, x0=last, x1=high, y0=0, y1=1, layer="below",
                               fillcolor="rgba(128,128,128,0.12)", line=dict(width=0)))
            notes.append(note("not run", (last + high) / 2, 0.5, xref=xref, yref=yref, xanchor="center",
                              yanchor="middle", textangle=-90,   # on the page's colour: a line across the band
                              hovertext=f"steps {last + 1}–{high}: not run"))   # passes behind the words
    axes["yaxis"].update(type="log", exponentformat="power")
    axes["xaxis"].update(title=dict(text="step"), range=[0, high])
    axes["xaxis2"].update(title=dict(text="step"), range=[0, high])
    return dict(title="Training", height=330, annotations=notes, shapes=shapes, **axes)


def loss_figure(runs: dict[str, StabilityRun]) -> go.Figure:
    """Normalized loss per step (log axis) and the largest |λ|, with the step each run diverged."""
    traces = []
    for (name, _), loss, radius in zip(runs.items(), *[iter(loss_values(runs))] * 2):
        traces.append(scatter(**loss, name=name, line=dict(color=COLORS[name], dash=DASHES[name])))
        traces.append(scatter(**radius, name=name, showlegend=False, line=dict(color=COLORS[name], dash=DASHES[name]),
                              xaxis="x2", yaxis="y2"))
    return build(traces, **loss_frame(runs))


_REFILL = Refiller()                    # the first chart of each kind drawn, refilled for every later member


def preview_figures(v: dict, study: StabilityStudy) -> dict:
    """`figures` as the preview family keeps them (`Sweep.figures`), without plotly objects: each chart is the first
    of its kind drawn, refilled with this member's values under its own layout (`Refiller`). The same JSON
    (tests/app/test_preview_figures.py)."""
    return {chart: _REFILL(chart, partial(draw, study.runs), values, frame) for chart, draw, values, frame in (
        ("eigenvalues", eigen_trajectory_figure, eigen_values(study.runs), eigen_frame(study.runs)),
        ("loss", loss_figure, loss_values(study.runs), loss_frame(study.runs)))}


LESSON = Lesson(
    page="lru_stability", number=4, title="LRU stability", icon="📉", section="Dynamics",
    summary="Naive vs exponential parameterization under gradient steps.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="📉 Training",
    compute=compute, figures=figures, charts=(("eigenvalues",), ("loss",)),
    metrics=metrics, quantities=quantities, equations=equations,
    chart_readouts=tuple((chart, ("naive: largest |λ| in training", "exponential: largest |λ| in training"))
                         for chart in ("eigenvalues", "loss")),
    # "gradient steps", not the learning rate: a family over lr trains 7 runs (seconds each on a 2-core CPU) on
    # every move of γ, r_max or the seed, while every steps value is a cut of the one cached run (10, 20, … 150):
    # dragging it plays the training in both charts
    sweep=Sweep("steps", "loss", points=15, compute_many=compute_family, figures=preview_figures),
    caption="Task: match a fixed long-memory LRU (|λ| ∈ [0.97, 0.995]) on random input, normalized MSE, Adam. "
            "Both students start from the same ring; their gradients are written out by hand and checked against "
            "torch autograd through the EOS scan.",
    snippet=Snippet(
        imports="from lcsm_core.dynamics.lru_stability import stability_study",
        call="stability_study({lr}, 400, {gamma}, {r_max}, {seed}).up_to({steps})",
        prints=dict(naive_max_radius="result.runs['naive'].peak_radius",
                    exponential_max_radius="result.runs['exponential'].peak_radius",
                    naive_final_loss="result.runs['naive'].loss[-1]",
                    exponential_final_loss="result.runs['exponential'].loss[-1]")),
)

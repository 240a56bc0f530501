"""Lesson 3 · Eigenvalue rings: LRU ring initialization → eigenvalues, |λ| histogram, impulse responses,
memory horizons.

Prose and exercises: lessons/03-rings.md. Everything comes from one call, `ring_study`: the ring
init, each eigenvalue's horizon and γ, and λᵗ for three picked eigenvalues by the EOS scan.
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np
import plotly.graph_objects as go

from lcsm_core.dynamics.rings import RingStudy, ring_study
from lcsm_core.dynamics.rings_family import ring_study_family
from lcsm_explorer.app.kit.figure_style import (
    BLUE,
    GREEN,
    GREY,
    INK,
    PURPLE,
    VERMILLION,
    axis,
    build,
    circle,
    histogram,
    scatter,
    unit_circle_trace,
    vline,
)
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Notice, Snippet, Sweep
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings
from lcsm_explorer.app.kit.sweep import Refiller

RADIUS_HELP = "In steps of 0.001; the PathX preset (or a link) sets 0.9999, a horizon of 10 000 steps."
SETTINGS = Settings("rings", (
    # steps of 0.001: a drag or an arrow key moves the ring visibly (0.0001 took 10 000 positions); the PathX ring's
    # 0.9999 comes with its preset or a link
    Setting.slider("r_min", "r_min", 0.4, 0.0, 0.9999, step=0.001, format="%.4f", help=RADIUS_HELP),
    Setting.slider("r_max", "r_max", 0.9, 0.0, 0.9999, step=0.001, format="%.4f", help=RADIUS_HELP),
    Setting.slider("phase", "max_phase (× π)", 2.0, 0.01, 2.0, step=0.01),
    Setting.slider("n", "number of eigenvalues N", 128, 8, 1024, step=8),
    Setting.slider("seed", "random seed", 0, 0, 99),
))

PRESETS = (
    Preset("📰 Article figure", dict(r_min=0.4, r_max=0.9, phase=2.0),
           "The article's ring: r ∈ [0.4, 0.9], any phase.",
           claim=("min_radius >= 0.4", "max_radius <= 0.9", "phase_pi = 2")),
    Preset("🖼️ sCIFAR ring", dict(r_min=0.9, r_max=0.999, phase=2.0),
           "LRU on sequential CIFAR: eigenvalues close to the circle, horizons 10–1000 steps.",
           claim=("min_radius >= 0.9", "min_horizon >= 10", "max_horizon <= 1000")),
    Preset("🧮 ListOps ring", dict(r_min=0.0, r_max=0.9, phase=2.0),
           "Short tasks can live with short memory: r ∈ [0, 0.9], no horizon past 10 steps.",
           claim=("max_radius <= 0.9", "max_horizon <= 10")),
    Preset("🛣️ PathX ring", dict(r_min=0.999, r_max=0.9999, phase=0.1),
           "16k-step sequences: |λ| ≥ 0.999 (horizons of 1000–10 000 steps) with phases ≤ π/10 — long memory that "
           "still turns up to 18° a step: over the 3000 steps drawn each λᵗ rings dozens of times inside its "
           "slowly fading envelope |λ|ᵗ.",
           claim=("min_radius >= 0.999", "min_horizon >= 1000", "phase_pi <= 0.1")),
)


def compute(v: dict) -> RingStudy:
    return ring_study(v["n"], v["r_min"], v["r_max"], v["phase"] * math.pi, v["seed"])   # the slider is in units of π


def compute_family(held: dict, r_maxes: list) -> list:
    """`compute` at every r_max of the preview (the impulse responses λᵗ in closed form)."""
    return ring_study_family(held["n"], held["r_min"], r_maxes, held["phase"] * math.pi, held["seed"])


def metrics(v: dict, study: RingStudy) -> list:
    h = study.horizons
    items = [Metric("smallest |λ|", f"{study.radii.min():.5f}"), Metric("largest |λ|", f"{study.radii.max():.5f}"),
             Metric("median memory horizon", f"{np.median(h):,.4g} steps"),
             Metric("longest memory horizon", f"{h.max():,.4g} steps")]
    if v["r_min"] > v["r_max"]:
        items.append(Notice(f"r_min > r_max: using the ring [{study.r_min:g}, {study.r_max:g}].", level="info",
                            icon="↔️"))
    return items


def quantities(v: dict, study: RingStudy) -> dict[str, float]:
    h = study.horizons
    j = study.picked[-1]                     # the slowest eigenvalue (largest |λ|): the one the equations follow
    lam = study.eigenvalues[j]
    return dict(r_min=study.r_min, r_max=study.r_max, max_phase=study.max_phase, phase_pi=v["phase"], n=v["n"],
                min_horizon=float(h.min()), median_horizon=float(np.median(h)), max_horizon=float(h.max()),
                min_radius=float(study.radii.min()), max_radius=float(study.radii[j]),
                nu_log=float(study.init.nu_log[j]), theta_log=float(study.init.theta_log[j]),
                lam_re=float(lam.real), lam_im=float(lam.imag), gamma=float(study.gammas[j]))


def equations(q: dict) -> list[str]:
    return [rf"\lambda = \exp(-e^{{\nu^{{\log}}}} + i\,e^{{\theta^{{\log}}}}),\quad"
            rf"\nu^{{\log}} = {q['nu_log']:.4g},\ \theta^{{\log}} = {q['theta_log']:.4g}"
            rf"\ \Rightarrow\ \lambda = {q['lam_re']:.5f} {q['lam_im']:+.5f}i",
            rf"|\lambda| = {q['max_radius']:.6f},\quad \text{{horizon}} = \frac{{1}}{{1-|\lambda|}} = "
            rf"{q['max_horizon']:,.5g}\ \text{{steps}},"
            rf"\quad \gamma = \sqrt{{1 - |\lambda|^2}} = {q['gamma']:.5f}",
            rf"|\lambda|^2 \sim \mathcal U[r_{{\min}}^2, r_{{\max}}^2] = \mathcal U[{q['r_min'] ** 2:.6g},"
            rf" {q['r_max'] ** 2:.6g}],\qquad \theta \sim \mathcal U[0, {q['phase_pi']:g}\pi]"]


# --- figures ---------------------------------------------------------------------------------
RING_COLOR = GREEN
CLOUD_COLOR = GREY      # every eigenvalue, neutral: the picked three stand out in colour and shape
# the three picked eigenvalues, the same in every chart, told apart by colour, star and dash
PICK_COLORS = (BLUE, VERMILLION, PURPLE)
PICK_SYMBOLS = ("star", "star-square", "star-diamond")
PICK_DASHES = ("solid", "dashdot", "longdash")            # their Re λᵗ (their envelopes are dotted)
def figures(v: dict, study: RingStudy) -> dict[str, go.Figure]:
    return {"eigenvalues": eigenvalue_ring_figure(study), "radius-histogram": radius_histogram_figure(study),
            "impulse-responses": impulse_response_figure(study)}


def eigenvalue_ring_figure(study: RingStudy) -> go.Figure:
    """λ in the complex plane over the unit circle, the ring r_min ≤ |λ| ≤ r_max, the picked three."""
    values = ring_values(study)
    first_pick = len(values) - len(study.picked)
    _, *edges, cloud = values[:first_pick]
    traces = [unit_circle_trace(color=INK)]
    for n, edge in enumerate(edges):         # both edges of the ring: one legend entry (made whole: a trace's
        traces.append(scatter(**edge, mode="lines", hoverinfo="skip", legendgroup="ring",   # `update` is slow)
                              showlegend=n == 0, line=dict(color=RING_COLOR, dash="dash", width=1.5)))
    traces.append(scatter(**cloud, mode="markers", name="λ", marker=dict(size=5, color=CLOUD_COLOR),
                          hovertemplate="|λ| = %{customdata[0]:.5f}<br>horizon %{customdata[1]:.4g} steps"
                                        "<extra></extra>"))
    for n, star in enumerate(values[first_pick:]):
        traces.append(scatter(**star, mode="markers", marker=dict(size=14, symbol=PICK_SYMBOLS[n], color=PICK_COLORS[n],
                                                                    line=dict(color=INK, width=1))))
    return build(traces, **ring_frame(study))


def ring_values(study: RingStudy) -> list[dict | None]:
    """The ring chart's traces' values (`eigenvalue_ring_figure`'s order): the unit circle (None: it never moves),
    the ring's edges, the eigenvalues with their |λ| and horizon, the picked three."""
    lam, name = study.eigenvalues, f"ring {study.r_min:g} ≤ |λ| ≤ {study.r_max:g}"
    edges = [dict(zip("xy", circle(r)), name=name) for r in (study.r_min, study.r_max) if r > 0]
    cloud = dict(x=lam.real, y=lam.imag, customdata=np.stack([study.radii, study.horizons], -1))
    picked = [dict(x=[lam[idx].real], y=[lam[idx].imag], name=label)
              for idx, label in zip(study.picked, study.picked_labels)]
    return [None, *edges, cloud, *picked]


def ring_frame(study: RingStudy) -> dict:
    return dict(title=f"{len(study.eigenvalues)} eigenvalues", height=430, legend_side="right",
                xaxis=axis("Re λ", range=[-1.1, 1.1], constrain="domain"),
                yaxis=axis("Im λ", range=[-1.1, 1.1], scaleanchor="x"))


def radius_histogram_figure(study: RingStudy) -> go.Figure:
    """Histogram of |λ|; the dashed line is what uniform-in-area predicts (density ∝ r)."""
    radii, *density = histogram_values(study)
    traces = [histogram(**radii, nbinsx=30, name="|λ|", marker=dict(color=CLOUD_COLOR),
                        histnorm="probability density")]
    traces += [scatter(**values, mode="lines", name="∝ r (uniform in area)", line=dict(color=INK, dash="dash"))
               for values in density]
    return build(traces, **HISTOGRAM_FRAME)


def histogram_values(study: RingStudy) -> list[dict]:
    """The histogram's traces' values: the radii, and the uniform-in-area density where there is one."""
    density = [dict(x=study.density_radii, y=study.density)] if len(study.density_radii) else []
    return [dict(x=study.radii), *density]


HISTOGRAM_FRAME = dict(title="Distribution of |λ|", xaxis=axis("|λ|", exponentformat="none"), yaxis=axis("density"))


def impulse_response_figure(study: RingStudy) -> go.Figure:
    """Re λ^t for the picked eigenvalues, with the envelope ±|λ|^t and the horizon 1/(1 − |λ|)."""
    values = impulse_values(study)
    traces = []
    for n, (wave, envelope) in enumerate(zip(values[::2], values[1::2])):
        color = PICK_COLORS[n]
        traces.append(scatter(**wave, line=dict(color=color, width=1.5, dash=PICK_DASHES[n])))
        traces.append(scatter(**envelope, showlegend=False, hoverinfo="skip", line=dict(color=color, dash="dot",
                                                                                        width=1)))
    return build(traces, **impulse_frame(study))


def impulse_values(study: RingStudy) -> list[dict]:
    """Per picked eigenvalue, its Re λᵗ and its envelope |λ|ᵗ (`impulse_response_figure`'s order)."""
    steps = np.arange(study.impulse.shape[1])
    values = []
    for h, label in zip(study.impulse, study.picked_labels):
        values += [dict(x=steps, y=h.real, name=f"{label}: Re λᵗ"), dict(x=steps, y=np.abs(h))]
    return values


def impulse_frame(study: RingStudy) -> dict:
    """The impulse chart's title and layout: a dashed line at each picked horizon within the steps drawn."""
    last = study.impulse.shape[1] - 1
    shapes = [vline(float(study.horizons[idx]), PICK_COLORS[n], "dash") for n, idx in enumerate(study.picked)
              if study.horizons[idx] < last]
    return dict(title="Impulse responses (dotted: |λ|ᵗ, dashed: horizon)", shapes=shapes, xaxis=axis("step t"),
                yaxis=axis("λᵗ", range=[-1.05, 1.05]))


_REFILL = Refiller()                    # the first chart of each kind drawn, refilled for every later member


def preview_figures(v: dict, study: RingStudy) -> dict:
    """`figures` as the preview family keeps them (`Sweep.figures`), without plotly objects: each chart is the first
    one of its kind drawn, refilled with this member's values under its own layout (`Refiller`). The same charts,
    the same JSON (tests/app/test_preview_figures.py, at every member of held settings in every corner)."""
    return {chart: _REFILL(chart, partial(draw, study), values, frame) for chart, draw, values, frame in (
        ("eigenvalues", eigenvalue_ring_figure, ring_values(study), ring_frame(study)),
        ("radius-histogram", radius_histogram_figure, histogram_values(study), HISTOGRAM_FRAME),
        ("impulse-responses", impulse_response_figure, impulse_values(study), impulse_frame(study)))}


LESSON = Lesson(
    page="rings", number=3, title="Eigenvalue rings", icon="⭕", section="Dynamics",
    summary="LRU ring initialization, memory horizon, impulse responses.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="⭕ Ring",
    compute=compute, figures=figures, charts=(("eigenvalues", "radius-histogram"), ("impulse-responses",)),
    metrics=metrics, quantities=quantities, equations=equations,
    chart_readouts=(("eigenvalues", ("smallest |λ|", "largest |λ|")),
                    ("radius-histogram", ("smallest |λ|", "largest |λ|")),
                    ("impulse-responses", ("median memory horizon", "longest memory horizon"))),
    # r_max sets the memory horizon 1/(1 − |λ|): the values crowd toward 1, where horizons grow tenfold per step;
    # below 0.8 (horizons of a few steps) every other tenth (15 frames, not 18: a held move's family costs less)
    sweep=Sweep("r_max", "eigenvalues", values=(0.1, 0.3, 0.5, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99,
                                                0.995, 0.999, 0.9999),
                compute_many=compute_family, figures=preview_figures),
    caption="The impulse responses λᵗ are computed by the EOS scan (o = λ, e = 1, i = δ, s = 1 and −i).",
    snippet=Snippet(
        imports="import math\nfrom lcsm_core.dynamics.rings import ring_study",
        call="ring_study({n}, {r_min}, {r_max}, {phase} * math.pi, {seed})   # the page's phase is in units of π",
        prints=dict(min_horizon="result.horizons.min()", max_horizon="result.horizons.max()",
                    min_radius="result.radii.min()")),
)

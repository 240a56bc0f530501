"""Lesson 1 · Spring–mass–damper: m, k, c and a forcing → response, phase portrait, energy, poles.

Prose and exercises: lessons/01-spring.md. Every curve comes from `simulate_spring`, the EOS
scan on the ZOH-discretized spring.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from lcsm_core.dynamics.forcing import FORCINGS
from lcsm_core.dynamics.spring_family import simulate_spring_family
from lcsm_core.dynamics.spring_simulation import SpringSimulation, simulate_spring
from lcsm_explorer.app.kit.figure_style import (
    BLUE,
    GREY,
    INK,
    PURPLE,
    STABLE,
    VERMILLION,
    WARNING,
    axis,
    build,
    divergence_marks,
    note,
    scatter,
    subplot_grid,
    vline,
)
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Notice, Snippet, Sweep
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings

SETTINGS = Settings("spring", (
    Setting.slider("m", "mass m", 1.0, 0.1, 5.0, step=0.05),
    Setting.slider("k", "spring constant k", 1.0, 0.1, 10.0, step=0.05),
    Setting.slider("c", "damping c", 0.2, -1.0, 5.0, step=0.01, help="Negative c pumps energy in."),
    Setting.choice("forcing", "forcing f(t)", "impulse", FORCINGS),
    Setting.slider("freq", "sine frequency ω (rad/s)", 1.0, 0.1, 5.0, step=0.05,
                   shown=lambda v: v["forcing"] == "sine"),
    Setting.slider("period", "pulse period (s)", 5.0, 1.0, 15.0, step=0.5,
                   shown=lambda v: v["forcing"] == "pulse train"),
))

PRESETS = (
    Preset("🌊 Underdamped", dict(m=1.0, k=1.0, c=0.2, forcing="impulse"), "ζ < 1: it rings while it decays.",
           claim=("zeta > 0", "zeta < 1", "p2_im > 0", "decay_rate > 0")),
    Preset("⚖️ Critically damped", dict(m=1.0, k=1.0, c=2.0, forcing="impulse"),
           "ζ = 1: the fastest return to rest without overshoot — a double pole.",
           claim=("zeta = 1 ± 1e-9", "p1_im = 0 ± 1e-6", "p2_im = 0 ± 1e-6", "p1_re = p2_re ± 1e-6")),
    Preset("🐌 Overdamped", dict(m=1.0, k=1.0, c=4.0, forcing="impulse"), "ζ > 1: two real poles, slow creep back.",
           claim=("zeta > 1", "p1_im = 0 ± 1e-12", "p2_im = 0 ± 1e-12", "p1_re < p2_re", "decay_rate < 0.5")),
    Preset("🎵 Undamped", dict(m=1.0, k=1.0, c=0.0, forcing="impulse"), "c = 0: energy is conserved forever.",
           claim=("energy_growth = 1 ± 1e-6", "decay_rate = 0 ± 1e-12")),
    Preset("💥 Negative damping", dict(m=1.0, k=1.0, c=-0.3, forcing="impulse"),
           "c < 0: the damper pumps energy in — exploding, like exploding gradients.",
           claim=("pole_real > 0", "energy_growth > 1000")),
    Preset("📻 Resonance", dict(m=1.0, k=1.0, c=0.1, forcing="sine", freq=1.0),
           "Forcing at ωn: the amplitude builds up toward 1/(c ωn) = 10 (past 7 within the 30 s shown).",
           claim=("x_peak between 7 and resonance_amplitude",)),
)


def compute(v: dict) -> SpringSimulation:
    """The page's numbers: `reference_compute`'s, by its batched twin for this one c (`compute_family`: one EOS
    scan, no python-control objects; ~2 ms where the reference takes ~5, one thread). Equal to the reference to
    fp64 rounding (tests/dynamics/test_families.py; tests/app/test_page_compute.py off the preview's grid); where
    the batch refuses, the reference runs, so the page shows the core's message."""
    batched = compute_family(v, [v["c"]])[0]
    return batched if batched is not None else reference_compute(v)


def reference_compute(v: dict) -> SpringSimulation:
    """The readable reference (what the snippet prints)."""
    return simulate_spring(v["m"], v["c"], v["k"], v["forcing"], frequency=v["freq"], period=v["period"])


def compute_family(held: dict, cs: list) -> list:
    """`compute` at every damping c of the preview, in one batched scan (None for all where the core refuses)."""
    try:
        return simulate_spring_family(held["m"], cs, held["k"], held["forcing"], frequency=held["freq"],
                                      period=held["period"])
    except ValueError:
        return [None] * len(cs)


def metrics(v: dict, sim: SpringSimulation) -> list:
    r = sim.regime
    if r.stable:
        clock = Metric("half-life", f"{r.half_life:.3g} s")
    elif math.isfinite(r.doubling_time):
        clock = Metric("doubling time", f"{r.doubling_time:.3g} s")
    else:
        clock = Metric("half-life", "∞ (no decay)")
    items = [Metric("regime", r.name), Metric("damping ratio ζ", f"{r.zeta:.3g}"),
             Metric("natural frequency ωn", f"{r.omega_n:.3g} rad/s"), clock]
    if sim.diverged_at is not None:
        items.append(Notice(f"The response grew past ±{sim.bound:,.0f} at t = {sim.diverged_at:.3g} s; "
                            "the plots stop there.", icon="💥"))
    return items


def quantities(v: dict, sim: SpringSimulation) -> dict[str, float]:
    r = sim.regime
    p1, p2 = r.poles
    return dict(m=v["m"], c=v["c"], k=v["k"], zeta=r.zeta, omega_n=r.omega_n, half_life=r.half_life,
                decay_rate=r.decay_rate, c_critical=r.critical_damping, pole_real=float(r.poles.real.max()),
                p1_re=p1.real, p1_im=p1.imag, p2_re=p2.real, p2_im=p2.imag, x_peak=float(np.abs(sim.x).max()),
                energy_growth=sim.energy_growth,
                resonance_amplitude=r.resonance_amplitude)


def equations(q: dict) -> list[str]:
    return [rf"{q['m']:.3g}\,\ddot x {q['c']:+.3g}\,\dot x {q['k']:+.3g}\,x = f(t)"
            rf"\qquad A = \begin{{bmatrix}} 0 & 1 \\ {-q['k'] / q['m']:.3g} & {-q['c'] / q['m']:.3g} \end{{bmatrix}}",
            rf"p_{{1,2}} = \frac{{-c \pm \sqrt{{c^2 - 4mk}}}}{{2m}} = {q['p1_re']:.4g} {q['p1_im']:+.4g}i,\;"
            rf"{q['p2_re']:.4g} {q['p2_im']:+.4g}i \qquad \zeta = \frac{{c}}{{2\sqrt{{mk}}}} = {q['zeta']:.4g}"
            rf"\qquad \omega_n = \sqrt{{k/m}} = {q['omega_n']:.4g}"]


# --- figures ---------------------------------------------------------------------------------
def figures(v: dict, sim: SpringSimulation) -> dict[str, go.Figure]:
    return dict(response=time_response_figure(sim), phase=phase_portrait_figure(sim), energy=energy_figure(sim),
                poles=s_plane_figure(sim.regime.poles))


def time_response_figure(sim: SpringSimulation) -> go.Figure:
    """x(t) above, the forcing f(t) below (shared time axis)."""
    axes, _, _ = subplot_grid(2, 1, vspace=0.06)
    axes["yaxis"].update(domain=[0.36, 1.0], title=dict(text="x"))
    axes["yaxis2"].update(domain=[0.0, 0.28], title=dict(text="f"))
    axes["xaxis"].update(matches="x2", showticklabels=False)
    axes["xaxis2"].update(title=dict(text="t (s)"))
    traces = [scatter(x=sim.t, y=sim.x, name="position x(t)", line=dict(color=BLUE, width=2.5)),
              scatter(x=sim.t, y=sim.force, name="force f(t)", line=dict(color=VERMILLION, width=1.5, dash="dot"),
                      xaxis="x2", yaxis="y2")]
    shapes, notes = divergence_marks(sim.diverged_at, "", xref="x2", text=divergence_text(sim))
    return build(traces, "Time response", height=380, shapes=shapes, annotations=notes, **axes)


def divergence_text(sim: SpringSimulation) -> str | None:
    """Which state passed the bound, and when (the core says whether it was x or v)."""
    if sim.diverged_at is None:
        return None
    state = "position |x|" if sim.diverged_in == "x" else "velocity |v|"
    return f"{state} passed {sim.bound:,.0f} at t = {sim.diverged_at:.3g} s"


def phase_portrait_figure(sim: SpringSimulation) -> go.Figure:
    traces = [scatter(x=sim.x, y=sim.v, mode="lines", name="trajectory", line=dict(color=BLUE)),
              scatter(x=sim.x[:1], y=sim.v[:1], mode="markers", name="start",
                      marker=dict(size=10, color=INK, symbol="circle-open")),
              scatter(x=sim.x[-1:], y=sim.v[-1:], mode="markers", name="end",
                      marker=dict(size=10, color=VERMILLION, symbol="square"))]
    return build(traces, "Phase portrait (x, v)", xaxis=axis("position x"), yaxis=axis("velocity v"))


def energy_figure(sim: SpringSimulation) -> go.Figure:
    shapes, notes = divergence_marks(sim.diverged_at, "", text=divergence_text(sim))
    trace = scatter(x=sim.t, y=sim.energy, fill="tozeroy", name="E", line=dict(color=PURPLE))
    return build([trace], "Energy", legend=False, shapes=shapes, annotations=notes, xaxis=axis("t (s)"),
                 yaxis=axis("½mv² + ½kx²"))


def s_plane_figure(poles: np.ndarray) -> go.Figure:
    """Poles as ×, the stable left half-plane shaded; each half is named in words, not by its tint alone."""
    poles = np.asarray(poles, dtype=complex)
    reach = max(1.0, 1.3 * float(np.max(np.abs(poles))))
    shapes = [dict(type="rect", x0=-100 * reach, x1=0, y0=-100 * reach, y1=100 * reach, layer="below",
                   fillcolor="rgba(0,158,115,0.12)", line=dict(width=0)),
              vline(0, INK), dict(type="line", x0=0, x1=1, xref="x domain", y0=0, y1=0,
                                  line=dict(color=GREY, width=1))]
    notes = [note("◀ stable", 0, 1, xref="x domain", yref="y domain", xanchor="left", bordercolor=STABLE),
             note("unstable ▶", 1, 1, xref="x domain", yref="y domain", bordercolor=WARNING)]
    trace = scatter(x=poles.real, y=poles.imag, mode="markers", name="poles",
                    marker=dict(symbol="x", size=14, color=VERMILLION, line=dict(width=2)),
                    hovertemplate="p = %{x:.4g} %{y:+.4g}i<extra></extra>")
    return build([trace], "Poles in the s-plane", legend=False, shapes=shapes, annotations=notes,
                 xaxis=axis("Re s", range=[-reach, reach], zeroline=False, constrain="domain"),
                 yaxis=axis("Im s", range=[-reach, reach], zeroline=False, scaleanchor="x"))


LESSON = Lesson(
    page="spring", number=1, title="Spring–mass–damper", icon="🪀", section="Dynamics",
    summary="Sliders m, k, c: time response, phase portrait, energy, poles.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="🪀 Spring",
    compute=compute, figures=figures, charts=(("response", "phase"), ("energy", "poles")),
    metrics=metrics, quantities=quantities, equations=equations,
    chart_readouts=(("response", ("regime", "half-life", "doubling time")), ("phase", ("regime",)),
                    ("poles", ("damping ratio ζ", "natural frequency ωn"))),
    # c is what learners drag (ringing → critical → creeping → exploding); -1 to 5 in steps of 0.5: 13 frames
    # where 25 looked no different while dragging, and the release draws the page at the exact value (a held move's
    # family costs the server about half)
    sweep=Sweep("c", "response", points=13, compute_many=compute_family),
    caption="Every curve is computed by the EOS scan on the ZOH-discretized spring (Δ = 0.05 s, finer when a "
            "pole is fast: at least five samples per time constant), "
            "mₜ = λ ⊙ mₜ₋₁ + eₜ iₜᵀ with complex λ = exp(pΔ).",
    snippet=Snippet(
        imports="import numpy as np\nfrom lcsm_core.dynamics.spring_simulation import simulate_spring",
        call="simulate_spring({m}, {c}, {k}, {forcing}, frequency={freq}, period={period})",
        prints=dict(zeta="result.regime.zeta", omega_n="result.regime.omega_n", half_life="result.regime.half_life",
                    x_peak="np.abs(result.x).max()", energy_growth="result.energy_growth")),
)

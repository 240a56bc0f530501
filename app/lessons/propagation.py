"""Lesson 5 · Information propagation: "aa" vs "ab" through damped, undamped and unstable systems.

Prose and exercises: lessons/05-propagation.md. Every trajectory and heatmap cell comes from the
EOS scan (`propagation_experiment`). The springs' and the (ν, θ) grid's responses to one token depend on no
setting: they are scanned once, over the longest sequence the sliders allow (`token_responses`), and every
(gap, length) adds them to themselves shifted by the gap — moving any slider costs no new grid scan.
"""
from __future__ import annotations

import functools

import numpy as np
import plotly.graph_objects as go

from lcsm_core.dynamics.propagation import (
    EXPLODE_ABOVE,
    FORGET_BELOW,
    DistanceMap,
    PropagationExperiment,
    PropagationTrace,
    TokenResponses,
    propagation_experiment,
    token_responses,
)
from lcsm_core.dynamics.propagation_family import propagation_family
from lcsm_explorer.app.kit.figure_style import (
    COLORS,
    DASHES,
    LOG_FLOOR,
    PALETTE,
    WARNING,
    axis,
    build,
    contour,
    divergence_marks,
    heatmap,
    scatter,
    subplot_grid,
)
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Notice, Snippet, Sweep
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings
from lcsm_explorer.app.kit.sweep import PlainFigure, plain_figure

EIGENVALUE = "LRU eigenvalue λ = exp(−ν + iθ)"
SETTINGS = Settings("propagation", (
    Setting.slider("gap", "steps between the two tokens", 100, 1, 200),
    Setting.slider("length", "steps after the second token", 200, 1, 400),
    Setting.slider("nu", "damping ν", 0.01, -0.05, 0.3, step=0.001, format="%.3f", group=EIGENVALUE),
    Setting.slider("theta", "phase θ (degrees)", 15, 0, 180, step=5, group=EIGENVALUE),
))

PRESETS = (
    Preset("📰 Article setup", dict(gap=100, length=200, nu=0.01, theta=15),
           "Pulses 10 s apart: the lightly damped spring keeps aa and ab apart, the heavily damped one cannot.",
           claim=("gap = 100", "low_distance > 0.1", "high_distance < 0.001")),
    Preset("🫥 Forgets", dict(gap=100, length=200, nu=0.1, theta=15),
           "ν = 0.1: the second token — the one that tells \"aa\" from \"ab\" — has shrunk to "
           "2|λ|²⁰⁰ = 2e⁻²⁰ ≈ 4·10⁻⁹: the two states can no longer be told apart.",
           claim=("predicted_distance = 4.12e-9 ± 1%", "lru_distance = predicted_distance ± 1%", "lru_exploded = 0")),
    Preset("💥 Explodes", dict(gap=100, length=400, nu=-0.05, theta=15),
           "ν = −0.05: |λ| = exp(0.05) ≈ 1.05 > 1 — both states grow like exp(0.05 t), pass ±10⁶ after about 280 steps "
           "and are stopped there.",
           claim=("lambda_abs = 1.0513 ± 0.0001", "lru_exploded = 1", "lru_last_step between 270 and 290")),
    Preset("🧠 Long memory", dict(gap=50, length=400, nu=0.002, theta=5),
           "ν = 0.002: horizon 500 steps, small phase — still distinguishable after 400 steps.",
           claim=("length = 400", "lru_exploded = 0", "lru_distance > 0.5", "lru_distance = predicted_distance ± 1%")),
)


LONGEST = SETTINGS["gap"].high + SETTINGS["length"].high + 1     # steps of the longest "aa" / "ab" pair


@functools.cache
def single_token_responses() -> TokenResponses:
    """What no setting moves: every system's response to one token over the longest sequence (~12 MB, ~1 s of CPU),
    made once per process and kept for its life. In the byte-bounded cache the preview families' member results
    evicted it, and the next move of this page paid the whole second again (py-spy: 8 ms per swept move on
    average over 20 moves)."""
    return token_responses(LONGEST)


def compute(v: dict) -> PropagationExperiment:
    return propagation_experiment(v["gap"], v["length"], v["nu"], v["theta"], responses=single_token_responses())


def compute_family(held: dict, nus: list) -> list:
    """`compute` at every ν of the preview: the springs and maps once, the LRU traces in closed form."""
    return propagation_family(held["gap"], held["length"], nus, held["theta"], responses=single_token_responses())


def metrics(v: dict, exp: PropagationExperiment) -> list:
    items = [Metric(tr.name.split(" (")[0], f"{tr.final_distance:.3g}", tr.verdict, good=tr.verdict == "remembers",
                    help="final ‖state(aa) − state(ab)‖") for tr in exp.traces]
    exploded = [tr.name for tr in exp.traces if tr.exploded]
    if exploded:
        items.append(Notice(f"Stopped where the state passed ±{EXPLODE_ABOVE:,.0f}: {', '.join(exploded)}.",
                            icon="💥"))
    return items


def quantities(v: dict, exp: PropagationExperiment) -> dict[str, float]:
    low, high, negative, lru = exp.traces
    lam = exp.eigenvalue
    return dict(gap=v["gap"], length=v["length"], nu=v["nu"], theta_deg=v["theta"],
                lru_distance=lru.final_distance, lru_exploded=float(lru.exploded), lru_last_step=float(lru.t[-1]),
                low_distance=low.final_distance, high_distance=high.final_distance,
                negative_distance=negative.final_distance,
                theta_rad=exp.exponent.imag, lambda_re=lam.real, lambda_im=lam.imag, lambda_abs=abs(lam),
                predicted_distance=exp.predicted_distance)


def equations(q: dict) -> list[str]:
    return [rf"\lambda = e^{{-\nu + i\theta}} = e^{{{-q['nu']:g} {q['theta_rad']:+.3f}i}} = "
            rf"{q['lambda_re']:.4f} {q['lambda_im']:+.4f}i,\quad |\lambda| = {q['lambda_abs']:.4f}",
            rf"h_{{aa}} - h_{{ab}} = 2\lambda^{{L}}\ \Rightarrow\ \|h_{{aa}} - h_{{ab}}\| = "
            rf"2|\lambda|^{{{q['length']}}} = {q['predicted_distance']:.4g}"]


# --- figures ---------------------------------------------------------------------------------
LOG_RANGE = (-8.0, float(np.log10(EXPLODE_ABOVE)))   # log10 distance drawn within this range


def figures(v: dict, exp: PropagationExperiment) -> dict[str, go.Figure]:
    return dict(
        traces=traces_figure(exp.traces), distance=distance_figure(exp.traces),
        by_length=heatmap_figure(exp.by_length, marker=(v["length"], v["nu"]), x_title="steps after the 2nd token",
                                 title=f"Distance vs damping and length (θ = {v['theta']}°)"),
        by_theta=heatmap_figure(exp.by_theta, marker=(v["theta"], v["nu"]), x_title="phase θ (°)",
                                title=f"Distance vs damping and phase ({v['length']} steps)"))


def preview_figures(v: dict, exp: PropagationExperiment) -> dict:
    """`figures` as the preview family keeps them (`Sweep.figures`: every chart follows a drag). The heat maps do
    not change with ν, only their ★ does: each is drawn once per family (`_MAPS`, by its map, which a family's
    members share) and each member moves the star in it. The same charts, the same JSON
    (tests/app/test_preview_figures.py)."""
    return dict(
        traces=traces_figure(exp.traces), distance=distance_figure(exp.traces),
        by_length=_starred(exp.by_length, (v["length"], v["nu"]), x_title="steps after the 2nd token",
                           title=f"Distance vs damping and length (θ = {v['theta']}°)"),
        by_theta=_starred(exp.by_theta, (v["theta"], v["nu"]), x_title="phase θ (°)",
                          title=f"Distance vs damping and phase ({v['length']} steps)"))


_MAPS: dict[tuple, tuple[DistanceMap, dict]] = {}     # (id of the map, x title, title) → (the map, its figure)
MAPS_KEPT = 8                                          # a family's two maps and a few held settings before it


def _starred(cut: DistanceMap, marker: tuple, *, x_title: str, title: str) -> PlainFigure:
    """`plain_figure(heatmap_figure(cut, marker=marker, ...))`, the map drawn once for every marker on it."""
    key = (id(cut), x_title, title)
    found = _MAPS.get(key)
    if found is None or found[0] is not cut:             # (an id is reused once its map is gone: the map is kept)
        if len(_MAPS) >= MAPS_KEPT:
            _MAPS.clear()
        found = _MAPS[key] = (cut, plain_figure(heatmap_figure(cut, marker=marker, x_title=x_title, title=title)))
    drawn = found[1]
    star = {**drawn["data"][-1], "x": [marker[0]], "y": [marker[1]]}     # the star: the last trace
    return PlainFigure(drawn, data=[*drawn["data"][:-1], star])


def traces_figure(traces: list[PropagationTrace]) -> go.Figure:
    """One panel per system: the readout for "aa" and for "ab"."""
    axes, titles, cell = subplot_grid(2, 2, [t.name for t in traces], vspace=0.16)
    data, notes, shapes = [], list(titles), []
    for n, tr in enumerate(traces):
        xa, ya = cell(n // 2 + 1, n % 2 + 1)
        for seq, y in (("aa", tr.y_aa), ("ab", tr.y_ab)):
            data.append(scatter(x=tr.t, y=y, name=f'"{seq}"', showlegend=n == 0, legendgroup=seq, xaxis=xa,
                                yaxis=ya, line=dict(color=COLORS[seq], width=2 if seq == "aa" else 1.5,
                                                    dash="solid" if seq == "aa" else "dot")))
        marks, words = divergence_marks(float(tr.t[-1]) if tr.exploded else None, "", xref=xa, yref=f"{ya} domain",
                                        text=f"exploded at {tr.t[-1]:.4g}")
        shapes += marks
        notes += words
    axes["xaxis3"].update(title=dict(text="time (s)"))
    axes["xaxis4"].update(title=dict(text="step"))
    # the legend on the right: above the panels its first sample (the "aa" line) fell under the clear border that
    # keeps the two-line panel titles off the legend rows
    return build(data, 'Readout for "aa" and "ab"', height=520, legend_side="right", annotations=notes,
                 shapes=shapes, **axes)


def distance_figure(traces: list[PropagationTrace]) -> go.Figure:
    """‖state_aa − state_ab‖ from the second token on, per system (log axis)."""
    data = []
    for n, tr in enumerate(traces):
        differs = np.flatnonzero(tr.distance > 0)
        start = int(differs[0]) if differs.size else 0           # identical until the second token
        # the distance itself, however small: 2|λ|^L stays far above float precision (it is the same size as the
        # states it is the difference of) down to 1e-300, so no floor is drawn; an exact zero is left as a gap
        shown = np.where(tr.distance[start:] > 0, tr.distance[start:], np.nan)
        data.append(scatter(x=np.arange(start, len(tr.distance)), y=shown, name=tr.name,
                            line=dict(color=PALETTE[n], dash=DASHES[n])))
    return build(data, "How far apart the two states are", xaxis=axis("step"),
                 yaxis=axis("‖Δ state‖", type="log", exponentformat="power"))


def heatmap_figure(cut: DistanceMap, *, marker: tuple, x_title: str, title: str) -> go.Figure:
    """log10 distance over (x, ν) with the "forgets" and "explodes" zones outlined; ★ = current setting."""
    z = np.clip(np.log10(np.maximum(cut.distance, LOG_FLOOR)), *LOG_RANGE)
    exploded = cut.size > EXPLODE_ABOVE
    data = [
        heatmap(x=cut.x, y=cut.nu, z=np.where(exploded, LOG_RANGE[1], z), zmin=LOG_RANGE[0], zmax=LOG_RANGE[1],
                colorscale="Viridis", colorbar=dict(title=dict(text="distance"), len=0.9, tickvals=LOG_TICKS,
                                                    ticktext=log_tick_text(LOG_TICKS)),
                hovertemplate=f"{x_title} %{{x:.3g}}<br>damping ν %{{y:.3g}}<br>log₁₀ dist %{{z:.2f}}"
                              "<extra></extra>"),
        contour(x=cut.x, y=cut.nu, z=z, showscale=False, hoverinfo="skip", name="forgets",
                contours=dict(start=np.log10(FORGET_BELOW), end=np.log10(FORGET_BELOW), size=1, coloring="none"),
                line=dict(color="white", width=3, dash="dash")),
        contour(x=cut.x, y=cut.nu, z=exploded.astype(float), showscale=False, hoverinfo="skip", name="explodes",
                contours=dict(start=0.5, end=0.5, size=1, coloring="none"), line=dict(color=WARNING, width=3)),
        # the current setting sits on the map's edge whenever a slider is at its end (the length slider's default
        # is the by-length map's last column): drawn whole over the axis line, not cut in half by it
        scatter(x=[marker[0]], y=[marker[1]], mode="markers", name="current", cliponaxis=False,
                marker=dict(symbol="star", size=18, color="white", line=dict(color="black", width=1.5)))]
    notes = _zone_label(cut, z <= np.log10(FORGET_BELOW), "forgets") + \
        _zone_label(cut, exploded, "explodes", above=True)
    return build(data, title, height=380, legend=False, annotations=notes, xaxis=axis(x_title, range=cell_range(cut.x)),
                 yaxis=axis("damping ν", range=cell_range(cut.nu)))


def cell_range(centres: np.ndarray) -> list[float]:
    """The axis range a heatmap's cells fill: half a cell beyond the first and the last centre."""
    half = float(centres[1] - centres[0]) / 2 if len(centres) > 1 else 0.5
    return [float(centres[0]) - half, float(centres[-1]) + half]


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
LOG_TICKS = list(range(int(LOG_RANGE[0]), int(LOG_RANGE[1]) + 1, 2))


def log_tick_text(ticks: list[int]) -> list[str]:
    """10ⁿ for the colour bar's log₁₀ ticks; its ends hold everything beyond them (≤ 10⁻⁸, ≥ 10⁶ exploded)."""
    text = [f"10{str(n).translate(SUPERSCRIPT)}" for n in ticks]
    return [f"≤{text[0]}", *text[1:-1], f"≥{text[-1]}"]


ZONE_LABEL_BACKGROUND = "rgba(0,0,0,0.7)"      # white on it: ≥ 8:1 over any colour beneath, white included


def _zone_label(cut: DistanceMap, mask: np.ndarray, text: str, above: bool = False) -> list:
    """The zone's name at its middle, or (`above`) just over its top edge: the "explodes" zone is a thin strip
    at the bottom, and a label at its middle covered the strip and the x-axis ticks. White on a dark box, legible
    over any colour of the map (the zones' outlines differ by dash too, not by colour alone)."""
    rows, cols = np.nonzero(mask)
    if not rows.size:
        return []
    y = float(np.max(cut.nu[rows])) if above else float(np.mean(cut.nu[rows]))
    return [dict(x=float(np.mean(cut.x[cols])), y=y, text=text, showarrow=False,
                 yanchor="bottom" if above else "middle", font=dict(color="white", size=16),
                 bgcolor=ZONE_LABEL_BACKGROUND)]


LESSON = Lesson(
    page="propagation", number=5, title="Information propagation", icon="📡", section="Dynamics",
    summary="'aa' vs 'ab': which systems remember, forget or explode.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="📡 Sequences",
    compute=compute, figures=figures, charts=(("traces",), ("by_length", "by_theta"), ("distance",)),
    metrics=metrics, quantities=quantities, equations=equations,
    # the final distance of each system and its verdict: what the distances show
    chart_readouts=(("distance", ("low damping", "high damping", "negative damping", "LRU eigenvalue")),),
    # ν from explodes (< 0) through remembers to forgets, dense near 0 where the horizon 1/ν outlasts the sequence;
    # up to 0.1 (2e⁻²⁰ after 200 steps): the fixed log axis of ν = 0.3 would reach 10⁻²⁶ and flatten the rest.
    # The distance, not the readout panels: their linear axes would have to span ±10⁶ (ν < 0) and 10⁻⁹.
    # 12 frames (was 16: a held move's family costs the server a quarter less; the release draws the exact ν).
    sweep=Sweep("nu", "distance", values=(-0.05, -0.02, -0.01, -0.005, 0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.07,
                                          0.1),
                compute_many=compute_family, figures=preview_figures),
    caption="Every trajectory and every heatmap cell is computed by the EOS scan (one batched call for the grid), "
            "as the sum of the responses to the two tokens.",
    snippet=Snippet(
        imports="from lcsm_core.dynamics.propagation import propagation_experiment",
        call="propagation_experiment({gap}, {length}, {nu}, {theta})",
        prints=dict(lru_distance="result.traces[3].final_distance", predicted_distance="result.predicted_distance",
                    low_distance="result.traces[0].final_distance", lambda_abs="abs(result.eigenvalue)")),
)

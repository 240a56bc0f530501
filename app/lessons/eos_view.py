"""Lesson 6 · The EOS view: any Table 1 method or model code, opened up into its four states.

Prose and exercises: lessons/06-eos-view.md. Everything shown comes from one `inspect_layer` call:
the states over time, the memory m_t, the parallel-form weights W and the oscillation's spectrum.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lcsm_core import VARIANTS, all_codes, variant_table
from lcsm_core.divergence import DIVERGENCE_BOUND
from lcsm_core.eos_view import (
    SIGNALS,
    LayerInspection,
    inspect_layer,
    largest_radius,
    memory_norm_spread,
    spectrum_summary,
    steps_ran,
    steps_within_bound,
    weights_vs_linear,
)
from lcsm_explorer.app.kit.blocks import Text
from lcsm_explorer.app.kit.figure_style import (
    BLUE,
    COLORBAR,
    GREY,
    INK,
    axis,
    build,
    divergence_marks,
    kept,
    subplot_grid,
    unit_circle_trace,
    vline,
)
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Notice, Snippet
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings

METHODS = {row["name"]: row["method"] for row in variant_table()}
CODES = tuple(all_codes()) + ("0",)      # "0" is the plain SSM code

SETTINGS = Settings("eos_view", (
    Setting.choice("source", "build from", "variant", ("variant", "model code"), widget="radio"),
    Setting.choice("variant", "method", "gla", VARIANTS, option_labels=METHODS,
                   shown=lambda v: v["source"] == "variant"),
    Setting.choice("code", "model code e-o-s-a", "1-9-1-0", CODES, shown=lambda v: v["source"] == "model code",
                   help="e, s: 0 data-independent / 1 data-dependent · o: Table 3 (0..11) · a: activation (0..7). "
                        "Type to search."),
    Setting.choice("signal", "input signal", "random", SIGNALS),
    Setting.slider("scale", "input scale", 1.0, 0.1, 50.0, step=0.1),
    Setting.slider("T", "sequence length T", 48, 4, 128),
    Setting.slider("k", "expand size k", 8, 1, 16),
    Setting.slider("d", "model width d", 8, 1, 16),
    Setting.slider("channel", "output channel", 0, 0, 15),
    Setting.slider("seed", "seed", 0, 0, 99),
    Setting.slider("t", "memory at step t", 47, 0, 127, in_main=True, high_of=lambda v: v["T"] - 1),
))


def _variant(name: str, signal: str, scale: float = 1.0, T: int = 48) -> dict:
    """A preset's full layer and input: every setting the picture depends on, the seed included."""
    return dict(source="variant", variant=name, signal=signal, scale=scale, T=T, k=8, d=8, seed=0, t=T - 1)


PRESETS = (
    Preset("♾️ Linear attention never forgets", _variant("linear_attention", "impulse"),
           "o = 1: an impulse stays in memory unchanged forever — move t: mₜ never fades and ‖mₜ‖ is flat.",
           claim=("min_radius = 1 ± 1e-12", "spectral_radius = 1 ± 1e-12", "max_phase = 0 ± 1e-12",
                  "memory_norm_spread = 0 ± 1e-12")),
    Preset("🚪 GLA forgets selectively", _variant("gla", "random"),
           "A data-dependent decay gₜ: each row of the memory fades at its own, input-chosen rate.",
           claim=("o_data_dependent = 1", "spectral_radius < 1", "eigen_spread > 0.02")),
    Preset("🌀 LRPE rotates", _variant("lrpe", "repeated pattern"),
           "o = exp(iθⱼ) per memory row, θⱼ = 10000 to the power −j/k (row 0 turns 1 rad a step): the memory spins "
           "in the complex plane and W[t, s] = Σⱼ cos((t − s)θⱼ) qₜⱼ kₛⱼ depends on the distance t − s — it differs "
           "from linear attention's masked QKᵀ by about half of QKᵀ's size.",
           claim=("complex_memory = 1", "min_radius = 1 ± 1e-9", "spectral_radius = 1 ± 1e-9", "max_phase = 1 ± 1e-9",
                  "weights_vs_linear between 0.35 and 0.7")),
    Preset("🐢 Cosformer turns slowly", _variant("cosformer", "repeated pattern", T=128),
           "o = exp(iθ) with θ = π/1024: in 128 steps the memory turns only 22.5°, so W[t, s] = cos((t − s)θ) qₜ·kₛ "
           "stays within 8 % of linear attention's masked QKᵀ — a quarter turn takes 512 steps.",
           claim=("T = 128", "max_phase = 0.00306796 ± 1e-8", "min_radius = 1 ± 1e-9", "weights_vs_linear < 0.08")),
    Preset("💥 DeltaNet explodes", _variant("deltanet", "random", scale=20.0),
           "Unnormalized keys: eigenvalue 1 − β‖k‖² < −1 and the memory diverges.",
           claim=("psi_is_matrix = 1", "min_eigen_re < -1", "diverged = 1")),
    Preset("🐂 Longhorn holds", _variant("longhorn", "random", scale=20.0),
           "Same push, but 1 − (k⊙k)εᵀ stays in (0, 1]: bounded memory.",
           claim=("scale = 20", "min_eigen_re > 0", "max_phase = 0 ± 1e-12", "spectral_radius <= 1", "diverged = 0")),
    Preset("🧪 LCSM code 1-9-1-0", dict(_variant("gla", "random"), source="model code", code="1-9-1-0"),
           "Data-dependent expand and shrink; the oscillation is the outer product of a data-dependent k-vector and a "
           "learned d-vector.",
           claim=("e_data_dependent = 1", "s_data_dependent = 1", "o_data_dependent = 1")),
)


def compute(v: dict) -> LayerInspection:
    """The layer opened up; a ValueError (a layer that cannot be built) is shown by the renderer."""
    return inspect_layer(v["source"], v["variant"], v["code"], v["d"], v["k"], v["T"], v["signal"], v["scale"],
                         v["seed"], v["channel"])


def metrics(v: dict, view: LayerInspection) -> list:
    worst = largest_radius(view)
    items = [Metric("ψ", "⊙" if view.psi == "elementwise" else "×",
                    help="⊙: o multiplies the memory elementwise · ×: o is a k×k matrix"),
             Metric("memory per channel", f"{view.memory.shape[1]} × {view.memory.shape[2]}"
                    + (" (complex)" if view.complex_memory else "")),
             Metric("data-dependent", view.data_dependent),
             Metric("largest |eigenvalue|", f"{worst:.4g}",
                    delta="outside the unit disk" if worst > 1 + 1e-9 else None, good=False)]
    if view.layout == "channels":
        items.append(Notice(f"This method runs one small system per channel: the states and memory shown are "
                            f"channel {view.channel}'s.", level="info", icon="ℹ️"))
    if view.diverged_at is not None:
        items.append(Notice(f"The memory diverged at t = {view.diverged_at} (‖m_t‖ > {DIVERGENCE_BOUND:,.0f}): "
                            f"{view.divergence_cause}. The plots stop there.", icon="💥"))
    return items


def recurrence_panel(v: dict, view: LayerInspection) -> list:
    """Which layer this is and how it computes its four states."""
    r = view.recurrence
    psi_symbol = r"\odot" if view.psi == "elementwise" else r"\times"
    return [Text(f"## {view.title}"),
            Text(rf"\mathbf m_t = \mathbf o_t {psi_symbol} \mathbf m_{{t-1}} + \mathbf e_t \mathbf i_t^\top,\;"
                 rf"\mathbf y_t = \mathbf m_t^\top \mathbf s_t", "latex"),   # one line: it fits a column
            Text(f"**i** = `{r['i']}` · **e** = `{r['e']}` · **o** = `{r['o']}` · **s** = `{r['s']}`"
                 + (f"  \n_{r['note']}_" if r["note"] else ""))]


def quantities(v: dict, view: LayerInspection) -> dict[str, float]:
    changed = view.data_dependent.split(", ")
    return dict(diverged=float(view.diverged_at is not None), scale=v["scale"],
                data_dependent=float(view.data_dependent != "none"), e_data_dependent=float("e" in changed),
                o_data_dependent=float("o" in changed), s_data_dependent=float("s" in changed),
                spectral_radius=largest_radius(view), **spectrum_summary(view),
                psi_is_matrix=float(view.psi == "matrix"),
                complex_memory=float(view.complex_memory), memory_norm_spread=memory_norm_spread(view.memory_norm),
                weights_vs_linear=weights_vs_linear(view), T=v["T"], k=v["k"], d=v["d"], t=v["t"])


# --- figures ---------------------------------------------------------------------------------
DIVERGING = "RdBu_r"


def figures(v: dict, view: LayerInspection) -> dict[str, go.Figure]:
    t = min(v["t"], len(view.memory) - 1)
    return dict(states=states_figure(view), memory=memory_figure(view, t), memory_norm=memory_norm_figure(view, t),
                weights=weights_figure(view), spectrum=spectrum_figure(view), output=output_figure(view))


def _symmetric_range(a: np.ndarray) -> float:
    top = float(np.max(np.abs(a))) if a.size else 1.0
    return top if top > 0 else 1.0


def states_figure(view: LayerInspection) -> go.Figure:
    """Heatmaps over time of the input, expand, oscillation (|o|, mean over d) and shrink states, two by two (on a
    phone four side by side leave each a few pixels), each with its own colour bar at its right (the four have
    different scales)."""
    panels = [("input i_t", view.i, DIVERGING, True), ("expand e_t", view.e, DIVERGING, True),
              ("oscillation |o_t|" + (" (diagonal)" if view.psi == "matrix" else ""), view.o_abs, "Viridis", False),
              ("shrink s_t", view.s, DIVERGING, True)]
    axes, titles, names = subplot_grid(2, 2, [p[0] for p in panels], hspace=0.3, vspace=0.16)
    traces = []
    for n, (_, data, scale, symmetric) in enumerate(panels):
        row, col = divmod(n, 2)
        xname, yname = names(row + 1, col + 1)
        data = data[:steps_within_bound(view)]
        rng = _symmetric_range(data)
        x1 = axes[xname.replace("x", "xaxis", 1)]["domain"][1]
        y0, y1 = axes[yname.replace("y", "yaxis", 1)]["domain"]
        traces.append(go.Heatmap(z=data.T, colorscale=scale, zmin=-rng if symmetric else 0.0,
                                 zmax=rng if symmetric else max(1.0, float(data.max(initial=0))),
                                 colorbar=dict(x=x1 + 0.015, xanchor="left", y=(y0 + y1) / 2, yanchor="middle",
                                               len=y1 - y0, thickness=8, nticks=4, tickfont=dict(size=10)),
                                 xaxis=xname, yaxis=yname,
                                 hovertemplate="t=%{x}<br>row %{y}<br>%{z:.4g}<extra></extra>"))
        if row == 1:
            axes[xname.replace("x", "xaxis", 1)].update(title=dict(text="t"))
        else:                                   # the same steps as the panel below: its ticks would hit its title
            axes[xname.replace("x", "xaxis", 1)].update(showticklabels=False)
    return build(traces, "The four EOS states over time", height=370, legend=False, annotations=titles, **axes)


def memory_figure(view: LayerInspection, t: int) -> go.Figure:
    """m_t on one colour scale for every t kept (fading and growth stay visible); past a divergence, the last
    step kept."""
    memory = view.memory[:steps_within_bound(view)]
    shown = min(t, len(memory) - 1)
    m = memory[shown]
    rng = _symmetric_range(memory)
    trace = go.Heatmap(z=m, colorscale=DIVERGING, zmin=-rng, zmax=rng,
                       hovertemplate="row %{y} (k)<br>column %{x} (d)<br>%{z:.4g}<extra></extra>")
    part = "Re " if view.complex_memory else ""
    where = f"t = {shown}" + (f" (diverged at t = {view.diverged_at})" if shown < t else "")
    return build([trace], f"{part}memory m_t at {where}  ({m.shape[0]}×{m.shape[1]})", legend=False,
                 xaxis=axis("d (input columns)"), yaxis=axis("k (expand rows)", autorange="reversed"))


def memory_norm_figure(view: LayerInspection, t: int) -> go.Figure:
    raw = kept(view.memory_norm, view.diverged_at)
    positive = raw[raw > 0]
    wide = positive.size > 0 and positive.max() / positive.min() > 1e3   # several decades: a log axis shows them all
    norm = np.where(raw > 0, raw, np.nan) if wide else raw                 # (an empty memory has no logarithm: a gap)
    shapes, notes = divergence_marks(view.diverged_at, "memory", text=f"‖m_t‖ passed {DIVERGENCE_BOUND:,.0f} "
                                                                    f"at t = {view.diverged_at}",
                                     x_end=len(view.memory_norm) - 1)
    trace = go.Scatter(y=norm, mode="lines+markers", name="‖m_t‖", marker=dict(size=4, color=BLUE),
                       line=dict(color=BLUE))
    return build([trace], "Memory size over time", legend=False, shapes=[vline(t, GREY, "dot")] + shapes,
                 annotations=notes, xaxis=axis("t", range=[-0.5, len(view.memory_norm) - 0.5]),
                 yaxis=axis("‖m_t‖ (Frobenius)", **({"type": "log"} if wide else {})))


def weights_figure(view: LayerInspection) -> go.Figure:
    """W[t, s] over s ≤ t; rows past a divergence are left blank (their weights passed the bound)."""
    T = len(view.weights)
    shown = np.tril(np.ones_like(view.weights, dtype=bool)) & (np.arange(T)[:, None] < steps_within_bound(view))
    W = np.where(shown, view.weights, np.nan)
    rng = _symmetric_range(np.nan_to_num(W))
    trace = go.Heatmap(z=W, colorscale=DIVERGING, zmin=-rng, zmax=rng,
                       hovertemplate="output t=%{y}<br>input s=%{x}<br>W=%{z:.4g}<extra></extra>")
    return build([trace], f"Parallel form W[t, s] (channel {view.channel})", height=420, legend=False,
                 xaxis=axis("input step s"), yaxis=axis("output step t", autorange="reversed", scaleanchor="x"))


def spectrum_figure(view: LayerInspection) -> go.Figure:
    """Eigenvalues of o_t at every step (up to the divergence), coloured by t, over the unit circle; the axes reach
    the largest |λ|."""
    T, n = view.eigenvalues[:steps_ran(view)].shape
    ev = view.eigenvalues[:T].reshape(-1)
    t = np.repeat(np.arange(T), n)
    keep = np.isfinite(ev)
    ev, t = ev[keep], t[keep]
    reach = max(1.1, float(np.abs(ev).max(initial=1.0)) * 1.05)
    traces = [unit_circle_trace(color=INK),       # (each point outlined: Plasma's light end is 1.1:1 on white)
              go.Scatter(x=ev.real, y=ev.imag, mode="markers", name="eigenvalues of o_t",
                         marker=dict(size=6, color=t, colorscale="Plasma", line=dict(color=INK, width=0.5),
                                     colorbar=dict(COLORBAR, title=dict(text="t"))),
                         hovertemplate="λ = %{x:.4f} %{y:+.4f}i<br>t = %{marker.color}<extra></extra>")]
    worst = largest_radius(view) if view.spectral_radius.size else 0.0
    until = "" if view.diverged_at is None else f", to t = {view.diverged_at}"
    return build(traces, f"Spectrum of the oscillation (largest |λ| = {worst:.4g}{until})", height=420, legend=False,
                 xaxis=axis("Re λ", range=[-reach, reach], constrain="domain"),
                 yaxis=axis("Im λ", range=[-reach, reach], scaleanchor="x"))


def output_figure(view: LayerInspection) -> go.Figure:
    c = view.channel
    shapes, notes = divergence_marks(view.diverged_at, "output", text=f"the memory diverged at t = {view.diverged_at}",
                                     x_end=len(view.x) - 1)
    y = kept(view.y[:, c], view.diverged_at)
    traces = [go.Scatter(y=view.x[:, min(c, view.x.shape[1] - 1)], name=f"input x_t[{c}]",
                         line=dict(color=GREY, dash="dot")),
              go.Scatter(y=y, name=f"EOS output y_t[{c}]", line=dict(color=BLUE))]
    y_axis = axis()
    if view.diverged_at is not None:          # framed on what came before the blow-up, which leaves the frame
        before = np.concatenate([view.x[:, min(c, view.x.shape[1] - 1)], y[:-1]])
        top = 1.1 * max(float(np.abs(before).max(initial=0)), 1e-12)
        y_axis = axis(range=[-top, top])
    return build(traces, f"Input and output, channel {c}", height=300, shapes=shapes, annotations=notes,
                 xaxis=axis("t", range=[-0.5, len(view.x) - 0.5]), yaxis=y_axis)


LESSON = Lesson(
    page="eos_view", number=6, title="The EOS view", icon="🧩", section="Sequence models",
    summary="Any Table 1 method or model code: memory state, spectrum.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="🧩 Layer",
    compute=compute, figures=figures, metrics=metrics, quantities=quantities, panel=recurrence_panel,
    charts=(("states",), "t", ("memory", "memory_norm"), ("weights", "spectrum"), ("output",)),
    chart_readouts=(("spectrum", ("largest |eigenvalue|",)),),
    chart_controls=("source", "variant", "code", "signal", "scale"),
    snippet=Snippet(
        imports="from lcsm_core.eos_view import inspect_layer",
        call="inspect_layer({source}, {variant}, {code}, {d}, {k}, {T}, {signal}, {scale}, {seed}, {channel})",
        prints=dict(spectral_radius="result.spectral_radius.max()")),
)

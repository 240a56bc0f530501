"""Figures of the EOS view from a LayerInspection (pure: data in, figure out)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import note_divergence, style, unit_circle_trace

DIVERGING = "RdBu_r"


def _symmetric_range(a: np.ndarray) -> float:
    top = float(np.max(np.abs(a))) if a.size else 1.0
    return top if top > 0 else 1.0


def states_figure(view) -> go.Figure:
    """Heatmaps over time of the input, expand, oscillation (|o|, mean over d) and shrink states."""
    panels = [("input i_t", view.i, DIVERGING, True), ("expand e_t", view.e, DIVERGING, True),
              ("oscillation |o_t|" + (" (diagonal)" if view.psi == "matrix" else ""), view.o_abs, "Viridis", False),
              ("shrink s_t", view.s, DIVERGING, True)]
    fig = make_subplots(rows=1, cols=4, subplot_titles=[p[0] for p in panels], horizontal_spacing=0.06)
    for col, (_, data, scale, symmetric) in enumerate(panels, start=1):
        rng = _symmetric_range(data)
        fig.add_trace(go.Heatmap(z=data.T, colorscale=scale, zmin=-rng if symmetric else 0.0,
                                 zmax=rng if symmetric else max(1.0, float(data.max(initial=0))),
                                 showscale=False, hovertemplate="t=%{x}<br>row %{y}<br>%{z:.4g}<extra></extra>"),
                      row=1, col=col)
        fig.update_xaxes(title_text="t", row=1, col=col)
    return style(fig, "The four EOS states over time", height=300, legend=False)


def memory_figure(view, t: int) -> go.Figure:
    m = view.memory[t]
    rng = _symmetric_range(view.memory)
    fig = go.Figure(go.Heatmap(z=m, colorscale=DIVERGING, zmin=-rng, zmax=rng,
                               hovertemplate="row %{y} (k)<br>column %{x} (d)<br>%{z:.4g}<extra></extra>"))
    fig.update_xaxes(title_text="d (input columns)")
    fig.update_yaxes(title_text="k (expand rows)", autorange="reversed")
    part = "Re " if view.complex_memory else ""
    return style(fig, f"{part}memory m_t at t = {t}  ({m.shape[0]}×{m.shape[1]})", height=340, legend=False)


def memory_norm_figure(view, t: int) -> go.Figure:
    norm = np.maximum(view.memory_norm, 1e-300)
    fig = go.Figure(go.Scatter(y=norm, mode="lines+markers", name="‖m_t‖", marker=dict(size=4)))
    fig.add_vline(x=t, line=dict(color="#888", dash="dot"))
    if norm.max() / max(norm.min(), 1e-300) > 1e3:
        fig.update_yaxes(type="log")
    note_divergence(fig, view.diverged_at, "memory")
    fig.update_xaxes(title_text="t")
    fig.update_yaxes(title_text="‖m_t‖ (Frobenius)")
    return style(fig, "Memory size over time", height=340, legend=False)


def weights_figure(view) -> go.Figure:
    W = np.where(np.tril(np.ones_like(view.weights, dtype=bool)), view.weights, np.nan)
    rng = _symmetric_range(np.nan_to_num(W))
    fig = go.Figure(go.Heatmap(z=W, colorscale=DIVERGING, zmin=-rng, zmax=rng,
                               hovertemplate="output t=%{y}<br>input s=%{x}<br>W=%{z:.4g}<extra></extra>"))
    fig.update_xaxes(title_text="input step s")
    fig.update_yaxes(title_text="output step t", autorange="reversed", scaleanchor="x")
    return style(fig, f"Parallel form W[t, s] (channel {view.channel})", height=420, legend=False)


def spectrum_figure(view) -> go.Figure:
    """Eigenvalues of o_t at every step, coloured by t, over the unit circle."""
    T, n = view.eigenvalues.shape
    ev = view.eigenvalues.reshape(-1)
    t = np.repeat(np.arange(T), n)
    keep = np.isfinite(ev)
    ev, t = ev[keep], t[keep]
    radius = max(1.1, min(float(np.abs(ev).max(initial=1.0)) * 1.05, 1e3))
    fig = go.Figure([unit_circle_trace(color="black"),
                     go.Scatter(x=ev.real, y=ev.imag, mode="markers", name="eigenvalues of o_t",
                                marker=dict(size=6, color=t, colorscale="Plasma", opacity=0.75,
                                            colorbar=dict(title="t", thickness=12)),
                                hovertemplate="λ = %{x:.4f} %{y:+.4f}i<br>t = %{marker.color}<extra></extra>")])
    fig.update_xaxes(range=[-radius, radius], title_text="Re λ", constrain="domain")
    fig.update_yaxes(range=[-radius, radius], title_text="Im λ", scaleanchor="x")
    worst = float(np.max(view.spectral_radius)) if view.spectral_radius.size else 0.0
    return style(fig, f"Spectrum of the oscillation (largest |λ| = {worst:.4g})", height=420, legend=False)


def output_figure(view) -> go.Figure:
    c = view.channel
    fig = go.Figure([go.Scatter(y=view.x[:, min(c, view.x.shape[1] - 1)], name=f"input x_t[{c}]",
                                line=dict(color="#999")),
                     go.Scatter(y=view.y[:, c], name=f"EOS output y_t[{c}]", line=dict(color="#1f77b4"))])
    note_divergence(fig, view.diverged_at, "output")
    fig.update_xaxes(title_text="t")
    return style(fig, f"Input and output, channel {c}", height=300)

"""Lesson 1 figures from a SpringSimulation."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import PALETTE, note_divergence, style


def time_response_figure(sim) -> go.Figure:
    """x(t) above, the forcing f(t) below."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.7, 0.3], vertical_spacing=0.06)
    fig.add_trace(go.Scatter(x=sim.t, y=sim.x, name="position x(t)", line=dict(color=PALETTE[0], width=2.5)), 1, 1)
    fig.add_trace(go.Scatter(x=sim.t, y=sim.force, name="force f(t)", line=dict(color=PALETTE[1], width=1.5)), 2, 1)
    fig.update_yaxes(title_text="x", row=1, col=1)
    fig.update_yaxes(title_text="f", row=2, col=1)
    fig.update_xaxes(title_text="t (s)", row=2, col=1)
    if sim.diverged_at is not None:
        fig.add_vline(x=sim.diverged_at, line=dict(color="#d62728", dash="dash"))
        fig.add_annotation(x=sim.diverged_at, y=1, yref="paper", xanchor="right", showarrow=False,
                           text=f"⚠ |x| passed {sim.bound:g} at t = {sim.diverged_at:.3g} s — stopped",
                           font=dict(color="#d62728"), bgcolor="rgba(255,255,255,0.8)")
    return style(fig, "Time response", height=380)


def phase_portrait_figure(sim) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=sim.x, y=sim.v, mode="lines", name="trajectory", line=dict(color=PALETTE[2])))
    fig.add_trace(go.Scatter(x=sim.x[:1], y=sim.v[:1], mode="markers", name="start",
                             marker=dict(size=10, color="black", symbol="circle-open")))
    fig.add_trace(go.Scatter(x=sim.x[-1:], y=sim.v[-1:], mode="markers", name="end",
                             marker=dict(size=10, color=PALETTE[3])))
    fig.update_xaxes(title_text="position x")
    fig.update_yaxes(title_text="velocity v")
    return style(fig, "Phase portrait (x, v)")


def energy_figure(sim) -> go.Figure:
    fig = go.Figure(go.Scatter(x=sim.t, y=sim.energy, fill="tozeroy", name="E", line=dict(color=PALETTE[4])))
    fig.update_xaxes(title_text="t (s)")
    fig.update_yaxes(title_text="½mv² + ½kx²")
    note_divergence(fig, sim.diverged_at, "energy")
    return style(fig, "Energy", legend=False)


def s_plane_figure(poles: np.ndarray, title: str = "Poles in the s-plane") -> go.Figure:
    """Poles as ×, the stable left half-plane shaded."""
    poles = np.asarray(poles, dtype=complex)
    reach = max(1.0, 1.3 * float(np.max(np.abs(poles))))
    fig = go.Figure()
    fig.add_shape(type="rect", x0=-reach, x1=0, y0=-reach, y1=reach, fillcolor="rgba(44,160,44,0.08)",
                  line=dict(width=0), layer="below")
    fig.add_vline(x=0, line=dict(color="#888", width=1))
    fig.add_hline(y=0, line=dict(color="#ccc", width=1))
    fig.add_trace(go.Scatter(x=poles.real, y=poles.imag, mode="markers", name="poles",
                             marker=dict(symbol="x", size=14, color="#d62728", line=dict(width=2)),
                             hovertemplate="p = %{x:.4g} %{y:+.4g}i<extra></extra>"))
    fig.add_annotation(x=-reach, y=reach, xanchor="left", yanchor="top", showarrow=False, text="stable",
                       font=dict(color="#2ca02c"))
    fig.add_annotation(x=reach, y=reach, xanchor="right", yanchor="top", showarrow=False, text="unstable",
                       font=dict(color="#d62728"))
    fig.update_xaxes(range=[-reach, reach], title_text="Re s", zeroline=False, constrain="domain")
    fig.update_yaxes(range=[-reach, reach], title_text="Im s", scaleanchor="x", zeroline=False)
    return style(fig, title, legend=False)

"""Lesson 1 figures from a SpringSimulation."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import PALETTE, RED, axis, build, divergence_marks, note, subplot_grid, vline


def time_response_figure(sim) -> go.Figure:
    """x(t) above, the forcing f(t) below (shared time axis)."""
    axes, _, _ = subplot_grid(2, 1, vspace=0.06)
    axes["yaxis"].update(domain=[0.36, 1.0], title=dict(text="x"))
    axes["yaxis2"].update(domain=[0.0, 0.28], title=dict(text="f"))
    axes["xaxis"].update(matches="x2", showticklabels=False)
    axes["xaxis2"].update(title=dict(text="t (s)"))
    traces = [go.Scatter(x=sim.t, y=sim.x, name="position x(t)", line=dict(color=PALETTE[0], width=2.5)),
              go.Scatter(x=sim.t, y=sim.force, name="force f(t)", line=dict(color=PALETTE[1], width=1.5),
                         xaxis="x2", yaxis="y2")]
    shapes, notes = [], []
    if sim.diverged_at is not None:
        shapes.append(vline(sim.diverged_at, RED, "dash", 1.5, xref="x2"))
        notes.append(note(f"⚠ |x| passed {sim.bound:g} at t = {sim.diverged_at:.3g} s — stopped",
                          sim.diverged_at, 1, xref="x2"))
    return build(traces, "Time response", height=380, shapes=shapes, annotations=notes, **axes)


def phase_portrait_figure(sim) -> go.Figure:
    traces = [go.Scatter(x=sim.x, y=sim.v, mode="lines", name="trajectory", line=dict(color=PALETTE[2])),
              go.Scatter(x=sim.x[:1], y=sim.v[:1], mode="markers", name="start",
                         marker=dict(size=10, color="black", symbol="circle-open")),
              go.Scatter(x=sim.x[-1:], y=sim.v[-1:], mode="markers", name="end", marker=dict(size=10,
                                                                                            color=PALETTE[3]))]
    return build(traces, "Phase portrait (x, v)", xaxis=axis("position x"), yaxis=axis("velocity v"))


def energy_figure(sim) -> go.Figure:
    shapes, notes = divergence_marks(sim.diverged_at, "energy")
    trace = go.Scatter(x=sim.t, y=sim.energy, fill="tozeroy", name="E", line=dict(color=PALETTE[4]))
    return build([trace], "Energy", legend=False, shapes=shapes, annotations=notes, xaxis=axis("t (s)"),
                 yaxis=axis("½mv² + ½kx²"))


def s_plane_figure(poles: np.ndarray, title: str = "Poles in the s-plane") -> go.Figure:
    """Poles as ×, the stable left half-plane shaded."""
    poles = np.asarray(poles, dtype=complex)
    reach = max(1.0, 1.3 * float(np.max(np.abs(poles))))
    shapes = [dict(type="rect", x0=-100 * reach, x1=0, y0=-100 * reach, y1=100 * reach, layer="below",
                   fillcolor="rgba(44,160,44,0.08)", line=dict(width=0)),
              vline(0, "#888"), dict(type="line", x0=0, x1=1, xref="x domain", y0=0, y1=0,
                                     line=dict(color="#ccc", width=1))]
    notes = [note("stable", 0, 1, xref="x domain", yref="y domain", color="#2ca02c", xanchor="left"),
             note("unstable", 1, 1, xref="x domain", yref="y domain", color=RED)]
    trace = go.Scatter(x=poles.real, y=poles.imag, mode="markers", name="poles",
                       marker=dict(symbol="x", size=14, color=RED, line=dict(width=2)),
                       hovertemplate="p = %{x:.4g} %{y:+.4g}i<extra></extra>")
    return build([trace], title, legend=False, shapes=shapes, annotations=notes,
                 xaxis=axis("Re s", range=[-reach, reach], zeroline=False, constrain="domain"),
                 yaxis=axis("Im s", range=[-reach, reach], zeroline=False, scaleanchor="x"))

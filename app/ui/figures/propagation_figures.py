"""Lesson 5 figures from propagation traces and the distinguishability grid."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import COLORS, LOG_FLOOR, PALETTE, log_safe, style

CLIP = (-8.0, 4.0)   # log10 distance drawn within this range


def traces_figure(traces) -> go.Figure:
    """One panel per system: the readout for "aa" and for "ab"."""
    fig = make_subplots(rows=2, cols=2, subplot_titles=[t.name for t in traces], vertical_spacing=0.16,
                        horizontal_spacing=0.08)
    for n, tr in enumerate(traces):
        row, col = divmod(n, 2)
        for seq, y in (("aa", tr.y_aa), ("ab", tr.y_ab)):
            fig.add_trace(go.Scatter(x=tr.t, y=y, name=f'"{seq}"', showlegend=n == 0, legendgroup=seq,
                                     line=dict(color=COLORS[seq], width=2 if seq == "aa" else 1.5,
                                               dash="solid" if seq == "aa" else "dot")), row + 1, col + 1)
        if tr.exploded:
            fig.add_annotation(text=f"⚠ exploded at {tr.t[-1]:.4g} — stopped", x=tr.t[-1], y=1, xanchor="right",
                               yanchor="top", showarrow=False, font=dict(color="#d62728"),
                               xref=f"x{n + 1 if n else ''}", yref=f"y{n + 1 if n else ''} domain")
    fig.update_xaxes(title_text="time (s)", row=2, col=1)
    fig.update_xaxes(title_text="step", row=2, col=2)
    return style(fig, 'Readout for "aa" and "ab"', height=520)


def distance_figure(traces) -> go.Figure:
    """‖state_aa − state_ab‖ from the second pulse on, per system (log axis)."""
    fig = go.Figure()
    for n, tr in enumerate(traces):
        differs = np.flatnonzero(tr.distance > 0)
        start = int(differs[0]) if differs.size else 0           # identical until the second token
        x = np.arange(start, len(tr.distance))
        fig.add_trace(go.Scatter(x=x, y=log_safe(tr.distance[start:]), name=tr.name, line=dict(color=PALETTE[n])))
    fig.update_xaxes(title_text="step")
    fig.update_yaxes(title_text="‖Δ state‖", type="log", exponentformat="power")
    return style(fig, "How far apart the two states are")


def heatmap_figure(x, y, distance, size, *, forget_below, explode_above, marker, x_title, y_title,
                   title) -> go.Figure:
    """log10 distance over (x, y) with the "forgets" and "explodes" zones outlined; ★ = current setting.

    distance, size: (len(y), len(x)).
    """
    z = np.clip(np.log10(np.maximum(distance, LOG_FLOOR)), *CLIP)
    exploded = np.asarray(size) > explode_above
    fig = go.Figure(go.Heatmap(x=x, y=y, z=np.where(exploded, CLIP[1], z), zmin=CLIP[0], zmax=CLIP[1],
                               colorscale="Viridis", colorbar=dict(title="log₁₀ dist", len=0.9),
                               hovertemplate=f"{x_title} %{{x:.3g}}<br>{y_title} %{{y:.3g}}<br>log₁₀ dist %{{z:.2f}}"
                                             "<extra></extra>"))
    fig.add_trace(go.Contour(x=x, y=y, z=z, showscale=False, contours=dict(
        start=np.log10(forget_below), end=np.log10(forget_below), size=1, coloring="none", showlabels=False),
        line=dict(color="white", width=3, dash="dash"), name="forgets", hoverinfo="skip"))
    fig.add_trace(go.Contour(x=x, y=y, z=exploded.astype(float), showscale=False, contours=dict(
        start=0.5, end=0.5, size=1, coloring="none"), line=dict(color="#d62728", width=3), name="explodes",
        hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[marker[0]], y=[marker[1]], mode="markers", name="current",
                             marker=dict(symbol="star", size=18, color="white", line=dict(color="black", width=1.5))))
    _zone_label(fig, x, y, z <= np.log10(forget_below), "forgets", "white")
    _zone_label(fig, x, y, exploded, "explodes", "#d62728")
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title)
    return style(fig, title, height=380, legend=False)


def _zone_label(fig, x, y, mask, text, color):
    rows, cols = np.nonzero(mask)
    if rows.size:
        fig.add_annotation(x=float(np.mean(np.asarray(x)[cols])), y=float(np.mean(np.asarray(y)[rows])), text=text,
                           showarrow=False, font=dict(color=color, size=16), bgcolor="rgba(0,0,0,0.35)")

"""Lesson 5 figures from propagation traces and the distinguishability grid."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import COLORS, LOG_FLOOR, PALETTE, axis, build, log_safe, note, subplot_grid

CLIP = (-8.0, 4.0)   # log10 distance drawn within this range


def traces_figure(traces) -> go.Figure:
    """One panel per system: the readout for "aa" and for "ab"."""
    axes, titles, cell = subplot_grid(2, 2, [t.name for t in traces], vspace=0.16)
    data, notes = [], list(titles)
    for n, tr in enumerate(traces):
        xa, ya = cell(n // 2 + 1, n % 2 + 1)
        for seq, y in (("aa", tr.y_aa), ("ab", tr.y_ab)):
            data.append(go.Scatter(x=tr.t, y=y, name=f'"{seq}"', showlegend=n == 0, legendgroup=seq, xaxis=xa,
                                   yaxis=ya, line=dict(color=COLORS[seq], width=2 if seq == "aa" else 1.5,
                                                       dash="solid" if seq == "aa" else "dot")))
        if tr.exploded:
            notes.append(note(f"⚠ exploded at {tr.t[-1]:.4g} — stopped", tr.t[-1], 1, xref=xa,
                              yref=f"{ya} domain"))
    axes["xaxis3"].update(title=dict(text="time (s)"))
    axes["xaxis4"].update(title=dict(text="step"))
    return build(data, 'Readout for "aa" and "ab"', height=520, annotations=notes, **axes)


def distance_figure(traces) -> go.Figure:
    """‖state_aa − state_ab‖ from the second token on, per system (log axis)."""
    data = []
    for n, tr in enumerate(traces):
        differs = np.flatnonzero(tr.distance > 0)
        start = int(differs[0]) if differs.size else 0           # identical until the second token
        data.append(go.Scatter(x=np.arange(start, len(tr.distance)), y=log_safe(tr.distance[start:]), name=tr.name,
                               line=dict(color=PALETTE[n])))
    return build(data, "How far apart the two states are", xaxis=axis("step"),
                 yaxis=axis("‖Δ state‖", type="log", exponentformat="power"))


def heatmap_figure(x, y, distance, size, *, forget_below, explode_above, marker, x_title, y_title,
                   title) -> go.Figure:
    """log10 distance over (x, y) with the "forgets" and "explodes" zones outlined; ★ = current setting.

    distance, size: (len(y), len(x)).
    """
    z = np.clip(np.log10(np.maximum(distance, LOG_FLOOR)), *CLIP)
    exploded = np.asarray(size) > explode_above
    data = [
        go.Heatmap(x=x, y=y, z=np.where(exploded, CLIP[1], z), zmin=CLIP[0], zmax=CLIP[1], colorscale="Viridis",
                   colorbar=dict(title=dict(text="log₁₀ dist"), len=0.9),
                   hovertemplate=f"{x_title} %{{x:.3g}}<br>{y_title} %{{y:.3g}}<br>log₁₀ dist %{{z:.2f}}"
                                 "<extra></extra>"),
        go.Contour(x=x, y=y, z=z, showscale=False, hoverinfo="skip", name="forgets",
                   contours=dict(start=np.log10(forget_below), end=np.log10(forget_below), size=1, coloring="none"),
                   line=dict(color="white", width=3, dash="dash")),
        go.Contour(x=x, y=y, z=exploded.astype(float), showscale=False, hoverinfo="skip", name="explodes",
                   contours=dict(start=0.5, end=0.5, size=1, coloring="none"), line=dict(color="#d62728", width=3)),
        go.Scatter(x=[marker[0]], y=[marker[1]], mode="markers", name="current",
                   marker=dict(symbol="star", size=18, color="white", line=dict(color="black", width=1.5)))]
    notes = _zone_label(x, y, z <= np.log10(forget_below), "forgets", "white") + \
        _zone_label(x, y, exploded, "explodes", "#d62728")
    return build(data, title, height=380, legend=False, annotations=notes, xaxis=axis(x_title), yaxis=axis(y_title))


def _zone_label(x, y, mask, text, color) -> list:
    rows, cols = np.nonzero(mask)
    if not rows.size:
        return []
    return [dict(x=float(np.mean(np.asarray(x)[cols])), y=float(np.mean(np.asarray(y)[rows])), text=text,
                 showarrow=False, font=dict(color=color, size=16), bgcolor="rgba(0,0,0,0.35)")]

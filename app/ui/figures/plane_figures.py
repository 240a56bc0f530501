"""Lesson 2 figures from a DiscretizationComparison."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import COLORS, axis, build, divergence_marks, log_safe, unit_circle_trace, vline

METHOD_LABELS = {"zoh": "ZOH", "bilinear": "bilinear", "euler": "Euler"}
MARKERS = {"zoh": "circle-open", "bilinear": "diamond", "euler": "x"}


def _lines(grid_lines, which: int, name: str) -> go.Scatter:
    """All grid lines (s side: which=0, z side: which=1) as one trace, separated by gaps."""
    pieces = [np.append(line[which], np.nan) for line in grid_lines]
    z = np.concatenate(pieces) if pieces else np.array([])
    return go.Scatter(x=z.real, y=z.imag, mode="lines", hoverinfo="skip", name=name, connectgaps=False,
                      line=dict(color="#bbb", width=1))


def s_plane_map_figure(cmp, grid_lines, euler_circle) -> go.Figure:
    """Continuous poles, the grid that gets mapped, and Euler's stable disk |1 + sΔ| < 1."""
    traces = [_lines(grid_lines, 0, "grid (mapped →)"),
              go.Scatter(x=euler_circle.real, y=euler_circle.imag, mode="lines", name="Euler stable disk",
                         fill="toself", fillcolor="rgba(214,39,40,0.06)", line=dict(color=COLORS["euler"],
                                                                                    dash="dot")),
              go.Scatter(x=cmp.s_poles.real, y=cmp.s_poles.imag, mode="markers", name="poles p",
                         marker=dict(symbol="x", size=14, color="black", line=dict(width=2)))]
    reach = max(1.5, 1.3 * float(np.max(np.abs(cmp.s_poles))))
    return build(traces, "s-plane (continuous)", height=400, legend_side="right", shapes=[vline(0, "#888")],
                 xaxis=axis("Re s", range=[-reach, 0.5 * reach], constrain="domain"),
                 yaxis=axis("Im s", range=[-reach, reach], scaleanchor="x"))


def z_plane_figure(cmp, grid_lines, *, zoom: bool = False) -> go.Figure:
    """Unit circle, the image of the s-grid under z = e^{sΔ}, and each method's poles.

    zoom=True frames the poles (poles of a fine Δ crowd near z = 1, where the differences are).
    """
    traces = [_lines(grid_lines, 1, "e^{sΔ} of the grid"), unit_circle_trace(color="black"),
              go.Scatter(x=cmp.z_exact.real, y=cmp.z_exact.imag, mode="markers", name="e^{pΔ}",
                         marker=dict(size=16, color="rgba(0,0,0,0.15)", line=dict(color="black", width=1)))]
    reach = 1.2
    for method, res in cmp.methods.items():
        z = res.poles
        reach = max(reach, 1.1 * float(np.max(np.abs(z))))
        traces.append(go.Scatter(x=z.real, y=z.imag, mode="markers", name=METHOD_LABELS[method],
                                 marker=dict(symbol=MARKERS[method], size=12, color=COLORS[method],
                                             line=dict(width=2, color=COLORS[method])),
                                 hovertemplate="|z| = %{customdata:.4f}<extra></extra>", customdata=np.abs(z)))
    reach = min(reach, 4.0)
    x_range = y_range = [-reach, reach]
    if zoom:
        z = np.concatenate([cmp.z_exact] + [res.poles for res in cmp.methods.values()])
        half = max(0.02, 0.6 * max(np.ptp(z.real), np.ptp(z.imag)))
        cx, cy = float(np.mean([z.real.min(), z.real.max()])), float(np.mean([z.imag.min(), z.imag.max()]))
        x_range, y_range = [cx - half, cx + half], [cy - half, cy + half]
    title = "zoom on the poles" if zoom else f"z-plane (Δ = {cmp.dt:g} s)"
    return build(traces, title, height=400, legend=not zoom, legend_side="right",
                 xaxis=axis("Re z", range=x_range, constrain="domain"),
                 yaxis=axis("Im z", range=y_range, scaleanchor="x"))


def responses_figure(cmp) -> go.Figure:
    traces = [go.Scatter(x=cmp.t, y=cmp.y_exact, name="exact (continuous)",
                         line=dict(color=COLORS["exact"], width=4), opacity=0.35)]
    for method, res in cmp.methods.items():
        traces.append(go.Scatter(x=cmp.t[:len(res.y)], y=res.y, name=METHOD_LABELS[method], mode="lines+markers",
                                 marker=dict(size=4), line=dict(color=COLORS[method], width=1.5)))
    shapes, notes = divergence_marks(cmp.methods["euler"].diverged_at, "Euler")
    return build(traces, "Responses sampled every Δ", shapes=shapes, annotations=notes, xaxis=axis("t (s)"),
                 yaxis=axis("x"))


def error_figure(cmp) -> go.Figure:
    """|y_method − y_exact| on a log axis (exact zeros drawn at 1e-16)."""
    traces = [go.Scatter(x=cmp.t[:len(res.error)], y=log_safe(res.error), name=METHOD_LABELS[method],
                         line=dict(color=COLORS[method])) for method, res in cmp.methods.items()]
    return build(traces, "Error vs the exact response", xaxis=axis("t (s)"),
                 yaxis=axis("|error|", type="log", exponentformat="power"))

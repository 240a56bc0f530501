"""Shared look: layout, colours, the unit circle, divergence notes, log-safe values."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

COLORS = {"exact": "#222222", "zoh": "#1f77b4", "bilinear": "#2ca02c", "euler": "#d62728",
          "aa": "#1f77b4", "ab": "#ff7f0e", "naive": "#d62728", "exponential": "#2ca02c"}
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
LOG_FLOOR = 1e-16


LEGENDS = {"top": dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
           "right": dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.02)}


def style(fig: go.Figure, title: str, *, height: int = 340, legend: bool = True, legend_side: str = "top") -> go.Figure:
    """Shared layout; legend_side "top" (short legends above the plot) or "right" (beside it)."""
    fig.update_layout(title=dict(text=title, x=0.01, font=dict(size=16)), height=height,
                      margin=dict(l=55, r=15, t=60 if legend_side == "top" else 45, b=45), showlegend=legend,
                      legend=LEGENDS[legend_side], font=dict(size=13))
    return fig


def circle(radius: float = 1.0, points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    phi = np.linspace(0, 2 * np.pi, points)
    return radius * np.cos(phi), radius * np.sin(phi)


def unit_circle_trace(name: str = "unit circle", radius: float = 1.0, **line) -> go.Scatter:
    x, y = circle(radius)
    return go.Scatter(x=x, y=y, mode="lines", name=name, hoverinfo="skip",
                      line=dict(color=line.get("color", "#888"), dash=line.get("dash", "solid"), width=1.5))


def note_divergence(fig: go.Figure, x: float | None, label: str) -> None:
    """Vertical dashed line and a note where a curve was stopped at the display bound."""
    if x is None:
        return
    fig.add_vline(x=x, line=dict(color="#d62728", dash="dash", width=1.5))
    fig.add_annotation(x=x, y=1, yref="paper", text=f"⚠ {label} diverged at {x:.3g} — stopped",
                       showarrow=False, xanchor="right", yanchor="top", font=dict(color="#d62728"),
                       bgcolor="rgba(255,255,255,0.85)")


def log_safe(values: np.ndarray, floor: float = LOG_FLOOR) -> np.ndarray:
    """|values| floored for a log axis (exact zeros stay visible at the floor)."""
    v = np.abs(np.asarray(values, dtype=float))
    return np.maximum(np.nan_to_num(v, nan=floor, posinf=1e300), floor)

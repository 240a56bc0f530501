"""Shared look and the one way figures are built here.

Plotly validates a figure's layout on every update or add call (several ms each), so
each builder collects its traces, shapes and annotations and makes the figure once with
`build(...)`: the whole layout is validated a single time.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

COLORS = {"exact": "#222222", "zoh": "#1f77b4", "bilinear": "#2ca02c", "euler": "#d62728",
          "aa": "#1f77b4", "ab": "#ff7f0e", "naive": "#d62728", "exponential": "#2ca02c"}
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
LOG_FLOOR = 1e-16
RED = "#d62728"
LEGENDS = {"top": dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
           "right": dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.02)}


def build(traces, title: str, *, height: int = 340, legend: bool = True, legend_side: str = "top", shapes=(),
          annotations=(), frames=None, margin_top: int | None = None, **axes) -> go.Figure:
    """The figure from its traces and layout pieces; `axes` are layout keys (xaxis=..., yaxis2=..., sliders=...)."""
    top = margin_top if margin_top is not None else (60 if legend_side == "top" else 45)
    layout = dict(title=dict(text=title, x=0.01, font=dict(size=16)), height=height,
                  margin=dict(l=55, r=15, t=top, b=45), showlegend=legend, legend=LEGENDS[legend_side],
                  font=dict(size=13), shapes=list(shapes), annotations=list(annotations), **axes)
    return go.Figure(data=list(traces), layout=layout, frames=frames)


def axis(title: str | None = None, **kw) -> dict:
    return dict(title=dict(text=title), **kw) if title else dict(kw)


def vline(x: float, color: str = "#888", dash: str = "solid", width: float = 1, xref: str = "x",
          yref: str = "paper", y0: float = 0, y1: float = 1) -> dict:
    return dict(type="line", x0=x, x1=x, y0=y0, y1=y1, xref=xref, yref=yref,
                line=dict(color=color, dash=dash, width=width))


def hline(y: float, color: str = "#888", dash: str = "solid", width: float = 1, xref: str = "paper",
          yref: str = "y") -> dict:
    return dict(type="line", x0=0, x1=1, y0=y, y1=y, xref=xref, yref=yref, line=dict(color=color, dash=dash,
                                                                                       width=width))


def note(text: str, x, y, *, xref="x", yref="paper", color=RED, xanchor="right", yanchor="top", **kw) -> dict:
    return dict(text=text, x=x, y=y, xref=xref, yref=yref, showarrow=False, xanchor=xanchor, yanchor=yanchor,
                font=dict(color=color), bgcolor="rgba(255,255,255,0.85)", **kw)


def divergence_marks(x: float | None, label: str, xref: str = "x", yref: str = "paper"):
    """([shape], [annotation]) marking where a curve was stopped at the display bound; empty if it was not."""
    if x is None:
        return [], []
    return ([vline(x, RED, "dash", 1.5, xref=xref, yref=yref)],
            [note(f"⚠ {label} diverged at {x:.3g} — stopped", x, 1, xref=xref, yref=yref)])


def subplot_grid(rows: int, cols: int, titles=(), hspace: float = 0.08, vspace: float = 0.12):
    """Axis layout for a rows × cols grid of subplots, as plain layout entries.

    Returns (axes, title_annotations, names) where axes is a dict of xaxisN/yaxisN layout entries
    and names(row, col) gives the ("xN", "yN") a trace in that cell uses (rows and cols from 1).
    """
    width, height = (1 - hspace * (cols - 1)) / cols, (1 - vspace * (rows - 1)) / rows
    axes, annotations = {}, []

    def names(row: int, col: int) -> tuple[str, str]:
        n = (row - 1) * cols + col
        return ("x", "y") if n == 1 else (f"x{n}", f"y{n}")

    for row in range(1, rows + 1):
        for col in range(1, cols + 1):
            xname, yname = names(row, col)
            x0 = (col - 1) * (width + hspace)
            y1 = 1 - (row - 1) * (height + vspace)
            axes[xname.replace("x", "xaxis", 1)] = dict(domain=[x0, x0 + width], anchor=yname)
            axes[yname.replace("y", "yaxis", 1)] = dict(domain=[y1 - height, y1], anchor=xname)
            n = (row - 1) * cols + col - 1
            if n < len(titles):
                annotations.append(dict(text=titles[n], x=x0 + width / 2, y=y1, xref="paper", yref="paper",
                                        xanchor="center", yanchor="bottom", showarrow=False,
                                        font=dict(size=14, color="#555")))
    return axes, annotations, names


def circle(radius: float = 1.0, points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    phi = np.linspace(0, 2 * np.pi, points)
    return radius * np.cos(phi), radius * np.sin(phi)


def unit_circle_trace(name: str = "unit circle", radius: float = 1.0, **line) -> go.Scatter:
    x, y = circle(radius)
    return go.Scatter(x=x, y=y, mode="lines", name=name, hoverinfo="skip",
                      line=dict(color=line.get("color", "#888"), dash=line.get("dash", "solid"), width=1.5))


def log_safe(values: np.ndarray, floor: float = LOG_FLOOR) -> np.ndarray:
    """|values| floored for a log axis (exact zeros stay visible at the floor)."""
    v = np.abs(np.asarray(values, dtype=float))
    return np.maximum(np.nan_to_num(v, nan=floor, posinf=1e300), floor)

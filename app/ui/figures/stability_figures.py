"""Lesson 4 figures from StabilityRun objects (naive and exponential side by side)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import COLORS, circle, log_safe, style

LOSS_CEILING = 1e8     # losses above this are drawn at it (the run is marked as diverged)
DISPLAY_RADIUS = 1.6   # eigenvalues farther out are drawn on this circle (and said so)


def _clip(z: np.ndarray) -> np.ndarray:
    r = np.abs(z)
    return np.where(r > DISPLAY_RADIUS, z / np.maximum(r, 1e-300) * DISPLAY_RADIUS, z)


def _trails(eigs: np.ndarray, upto: int):
    """x, y of every eigenvalue's path over steps 0..upto, paths separated by None."""
    z = _clip(eigs[: upto + 1])                                   # (s, n)
    xs, ys = [], []
    for j in range(z.shape[1]):
        xs += list(z[:, j].real) + [None]
        ys += list(z[:, j].imag) + [None]
    return xs, ys


def _frame(runs: dict, names: list, last: dict, step: int) -> go.Frame:
    """The current eigenvalues of every panel at `step` (the marker traces, after circles and trails)."""
    points = []
    for n in names:
        z = _clip(runs[n].eigenvalues[min(step, last[n])])
        points.append(go.Scatter(x=z.real, y=z.imag))
    return go.Frame(name=str(step), traces=list(range(2 * len(names), 3 * len(names))), data=points)


def eigen_trajectory_figure(runs: dict, frames: int = 30) -> go.Figure:
    """One panel per parameterization: the unit circle, each λ's whole path (faint) and λ at the chosen
    step; ▶ animates λ moving along its path."""
    names = list(runs)
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=[f"{n} parameterization" for n in names],
                        horizontal_spacing=0.08)
    cx, cy = circle()
    last = {n: len(runs[n].eigenvalues) - 1 for n in names}
    for col in range(1, len(names) + 1):
        fig.add_trace(go.Scatter(x=cx, y=cy, mode="lines", line=dict(color="black", width=1.5), hoverinfo="skip",
                                 showlegend=False), 1, col)
    for col, name in enumerate(names, 1):
        xs, ys = _trails(runs[name].eigenvalues, last[name])
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=COLORS[name], width=1.5), opacity=0.6,
                                 hoverinfo="skip", showlegend=False), 1, col)
    for col, name in enumerate(names, 1):
        z = _clip(runs[name].eigenvalues[last[name]])
        fig.add_trace(go.Scatter(x=z.real, y=z.imag, mode="markers", name=f"λ ({name})",
                                 marker=dict(size=9, color=COLORS[name], line=dict(color="black", width=1))),
                      1, col)
    longest = max(last.values())
    marks = np.unique(np.linspace(0, longest, min(frames, longest + 1)).astype(int))
    fig.frames = [_frame(runs, names, last, s) for s in marks]
    play = dict(frame=dict(duration=120, redraw=True), fromcurrent=False, transition=dict(duration=0))
    jump = dict(mode="immediate", frame=dict(duration=0, redraw=True))
    fig.update_layout(
        updatemenus=[dict(type="buttons", x=0.0, y=-0.12, xanchor="left", direction="left",
                          buttons=[dict(label="▶ play", method="animate", args=[None, play])])],
        sliders=[dict(x=0.12, y=-0.05, len=0.88, currentvalue=dict(prefix="step "), active=len(marks) - 1,
                      steps=[dict(label=str(s), method="animate", args=[[str(s)], jump]) for s in marks])])
    for col in range(1, len(names) + 1):
        fig.update_xaxes(range=[-DISPLAY_RADIUS - 0.05, DISPLAY_RADIUS + 0.05], title_text="Re λ", constrain="domain",
                         row=1, col=col)
        fig.update_yaxes(range=[-DISPLAY_RADIUS - 0.05, DISPLAY_RADIUS + 0.05], title_text="Im λ", row=1, col=col,
                         scaleanchor=f"x{'' if col == 1 else col}")
    fig.update_layout(title_y=0.98, margin_t=90)
    return style(fig, f"Eigenvalues during training (beyond |λ| = {DISPLAY_RADIUS} drawn on that circle)",
                 height=540, legend=False)


def loss_figure(runs: dict) -> go.Figure:
    """Normalized loss per step (log axis) and the largest |λ|, with the step each left the disk."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=["loss (normalized MSE)", "largest |λ|"])
    for name, run in runs.items():
        steps = np.arange(len(run.loss))
        loss = np.minimum(log_safe(run.loss), LOSS_CEILING)      # a diverged step may be 1e30 or inf
        fig.add_trace(go.Scatter(x=steps, y=loss, name=name, line=dict(color=COLORS[name])), 1, 1)
        fig.add_trace(go.Scatter(x=np.arange(len(run.eigenvalues)), y=np.abs(run.eigenvalues).max(axis=1),
                                 name=name, showlegend=False, line=dict(color=COLORS[name])), 1, 2)
        if run.diverged_step is not None:
            fig.add_annotation(x=run.diverged_step, y=1, yref="paper", xref="x", showarrow=False,
                               text=f"⚠ {name}: loss diverged at step {run.diverged_step} — stopped",
                               font=dict(color="#d62728"), xanchor="left", yanchor="top")
    fig.add_hline(y=1.0, line=dict(color="black", dash="dash"), row=1, col=2)
    fig.update_yaxes(type="log", exponentformat="power", row=1, col=1)
    fig.update_xaxes(title_text="step")
    return style(fig, "Training", height=330)

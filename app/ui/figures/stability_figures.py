"""Lesson 4 figures from StabilityRun objects (naive and exponential side by side)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import COLORS, build, circle, hline, log_safe, note, subplot_grid

LOSS_CEILING = 1e8     # losses above this are drawn at it (the run is marked as diverged)
DISPLAY_RADIUS = 1.6   # eigenvalues farther out are drawn on this circle (and said so)


def _clip(z: np.ndarray) -> np.ndarray:
    r = np.abs(z)
    return np.where(r > DISPLAY_RADIUS, z / np.maximum(r, 1e-300) * DISPLAY_RADIUS, z)


def _trails(eigs: np.ndarray) -> np.ndarray:
    """Every eigenvalue's whole path as one complex line, paths separated by NaN gaps."""
    z = _clip(eigs)                                              # (steps, n)
    return np.concatenate([np.append(z[:, j], np.nan) for j in range(z.shape[1])])


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
    axes, titles, cell = subplot_grid(1, len(names), [f"{n} parameterization" for n in names])
    last = {n: len(runs[n].eigenvalues) - 1 for n in names}
    cx, cy = circle()
    traces = []
    for col, _ in enumerate(names, 1):
        xa, ya = cell(1, col)
        traces.append(go.Scatter(x=cx, y=cy, mode="lines", line=dict(color="black", width=1.5), hoverinfo="skip",
                                 showlegend=False, xaxis=xa, yaxis=ya))
    for col, name in enumerate(names, 1):
        xa, ya = cell(1, col)
        z = _trails(runs[name].eigenvalues)
        traces.append(go.Scatter(x=z.real, y=z.imag, mode="lines", line=dict(color=COLORS[name], width=1.5),
                                 opacity=0.6, hoverinfo="skip", showlegend=False, xaxis=xa, yaxis=ya))
    for col, name in enumerate(names, 1):
        xa, ya = cell(1, col)
        z = _clip(runs[name].eigenvalues[last[name]])
        traces.append(go.Scatter(x=z.real, y=z.imag, mode="markers", name=f"λ ({name})", xaxis=xa, yaxis=ya,
                                 marker=dict(size=9, color=COLORS[name], line=dict(color="black", width=1))))
    longest = max(last.values())
    marks = np.unique(np.linspace(0, longest, min(frames, longest + 1)).astype(int))
    play = dict(frame=dict(duration=120, redraw=True), fromcurrent=False, transition=dict(duration=0))
    jump = dict(mode="immediate", frame=dict(duration=0, redraw=True))
    lim = [-DISPLAY_RADIUS - 0.05, DISPLAY_RADIUS + 0.05]
    for col in range(1, len(names) + 1):
        xa, ya = cell(1, col)
        axes[xa.replace("x", "xaxis", 1)].update(range=lim, title=dict(text="Re λ"), constrain="domain")
        axes[ya.replace("y", "yaxis", 1)].update(range=lim, title=dict(text="Im λ"), scaleanchor=xa)
    return build(traces, f"Eigenvalues during training (beyond |λ| = {DISPLAY_RADIUS} drawn on that circle)",
                 height=540, legend=False, margin_top=90, annotations=titles,
                 frames=[_frame(runs, names, last, s) for s in marks],
                 updatemenus=[dict(type="buttons", x=0.0, y=-0.12, xanchor="left", direction="left",
                                   buttons=[dict(label="▶ play", method="animate", args=[None, play])])],
                 sliders=[dict(x=0.12, y=-0.05, len=0.88, currentvalue=dict(prefix="step "), active=len(marks) - 1,
                               steps=[dict(label=str(s), method="animate", args=[[str(s)], jump]) for s in marks])],
                 **axes)


def loss_figure(runs: dict) -> go.Figure:
    """Normalized loss per step (log axis) and the largest |λ|, with the step each left the disk."""
    axes, titles, cell = subplot_grid(1, 2, ["loss (normalized MSE)", "largest |λ|"])
    traces, notes = [], list(titles)
    for name, run in runs.items():
        loss = np.minimum(log_safe(run.loss), LOSS_CEILING)      # a diverged step may be 1e30 or inf
        traces.append(go.Scatter(x=np.arange(len(loss)), y=loss, name=name, line=dict(color=COLORS[name])))
        traces.append(go.Scatter(x=np.arange(len(run.eigenvalues)), y=np.abs(run.eigenvalues).max(axis=1),
                                 name=name, showlegend=False, line=dict(color=COLORS[name]), xaxis="x2", yaxis="y2"))
        if run.diverged_step is not None:
            notes.append(note(f"⚠ {name}: loss diverged at step {run.diverged_step} — stopped", run.diverged_step,
                              1, xanchor="left"))
    axes["yaxis"].update(type="log", exponentformat="power")
    axes["xaxis"].update(title=dict(text="step"))
    axes["xaxis2"].update(title=dict(text="step"))
    return build(traces, "Training", height=330, annotations=notes,
                 shapes=[hline(1.0, "black", "dash", xref="x2 domain", yref="y2")], **axes)

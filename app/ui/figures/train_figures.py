"""Figures of the Train live page: pure functions of the stored metrics and eigenvalue snapshots."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

REPLAY = {"frame": {"duration": 150, "redraw": True}, "fromcurrent": False}
LAYER_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def curves_figure(metrics: dict[str, np.ndarray], title: str) -> go.Figure:
    fig = make_subplots(rows=1, cols=2, subplot_titles=("loss", "accuracy"))
    step, loss, test = metrics["step"], metrics["loss"], metrics["test_acc"]
    has_loss, has_test = np.isfinite(loss), np.isfinite(test)
    fig.add_trace(go.Scatter(x=step[has_loss], y=loss[has_loss], name="train loss", mode="lines"), 1, 1)
    fig.add_trace(go.Scatter(x=step[has_loss], y=metrics["train_acc"][has_loss], name="batch accuracy",
                             mode="lines", line={"width": 1}, opacity=0.5), 1, 2)
    fig.add_trace(go.Scatter(x=step[has_test], y=test[has_test], name="test accuracy", mode="lines+markers"), 1, 2)
    fig.update_yaxes(type="log", row=1, col=1)
    fig.update_yaxes(range=[0, 1.02], row=1, col=2)
    fig.update_xaxes(title_text="step")
    fig.update_layout(title=title, height=330, margin={"t": 60, "b": 40, "l": 40, "r": 10})
    return fig


def eigen_figure(snapshots: list[tuple[int, list[np.ndarray]]], zoom: bool = False) -> go.Figure:
    """Eigenvalues of every layer's oscillation on the unit disk, one animation frame per snapshot;
    `zoom` frames the eigenvalues (all snapshots) instead of the whole disk."""
    theta = np.linspace(0, 2 * np.pi, 721)
    circle = go.Scatter(x=np.cos(theta), y=np.sin(theta), mode="lines", line={"color": "grey", "width": 1},
                        name="|λ| = 1", hoverinfo="skip")

    def layer_traces(layers: list[np.ndarray]) -> list[go.Scatter]:
        return [go.Scatter(x=np.real(v), y=np.imag(v), mode="markers", name=f"layer {j + 1}",
                           marker={"size": 6, "color": LAYER_COLOURS[j % len(LAYER_COLOURS)], "opacity": 0.7})
                for j, v in enumerate(layers)]

    last_step, last_layers = snapshots[-1]
    every = np.concatenate([v for _, layers in snapshots for v in layers] + [np.zeros(0, complex)])
    if zoom and len(every):
        pad = max(0.02, 0.1 * max(np.ptp(every.real), np.ptp(every.imag)))
        x_range = [every.real.min() - pad, every.real.max() + pad]
        y_range = [every.imag.min() - pad, every.imag.max() + pad]
    else:
        radius = max(1.05, 1.05 * float(np.abs(every).max(initial=0)))
        x_range = y_range = [-radius, radius]
    fig = go.Figure(data=[circle, *layer_traces(last_layers)],
                    frames=[go.Frame(data=[circle, *layer_traces(layers)], name=str(step))
                            for step, layers in snapshots])
    fig.update_layout(
        title=f"oscillation eigenvalues (step {last_step})", height=470, margin={"t": 80, "b": 20},
        xaxis={"range": x_range, "title": "Re λ"}, yaxis={"range": y_range, "title": "Im λ", "scaleanchor": "x"},
        sliders=[{"active": len(snapshots) - 1, "currentvalue": {"prefix": "step "}, "y": -0.12, "pad": {"t": 30},
                  "steps": [{"label": str(step), "method": "animate",
                             "args": [[str(step)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}]}
                            for step, _ in snapshots]}],
        updatemenus=[{"type": "buttons", "showactive": False, "x": 0, "y": 1.13, "xanchor": "left",
                      "buttons": [{"label": "▶ replay", "method": "animate", "args": [None, REPLAY]}]}])
    return fig


def overlay_figure(series: list[tuple[str, dict[str, np.ndarray]]]) -> go.Figure:
    fig = make_subplots(rows=1, cols=2, subplot_titles=("test accuracy", "train loss"))
    for j, (label, m) in enumerate(series):
        colour = LAYER_COLOURS[j % len(LAYER_COLOURS)]
        has_test, has_loss = np.isfinite(m["test_acc"]), np.isfinite(m["loss"])
        fig.add_trace(go.Scatter(x=m["step"][has_test], y=m["test_acc"][has_test], name=label, mode="lines",
                                 line={"color": colour}, legendgroup=label), 1, 1)
        fig.add_trace(go.Scatter(x=m["step"][has_loss], y=m["loss"][has_loss], name=label, mode="lines",
                                 line={"color": colour}, legendgroup=label, showlegend=False), 1, 2)
    fig.update_yaxes(range=[0, 1.02], row=1, col=1)
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_xaxes(title_text="step")
    fig.update_layout(height=360, legend={"orientation": "h", "y": -0.25}, margin={"t": 40})
    return fig

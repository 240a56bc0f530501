"""Figures of the paper lab from summarize_grid rows."""
from __future__ import annotations

import plotly.graph_objects as go

from .common import PALETTE, style


def grid_accuracy_figure(summary: list[dict], title: str) -> go.Figure:
    done = [r for r in summary if r["best_acc_mean"] is not None]
    labels = [r["label"] for r in done]
    mean = [r["best_acc_mean"] for r in done]
    fig = go.Figure(go.Bar(
        x=labels, y=mean, marker_color=PALETTE[0],
        error_y=dict(type="data", symmetric=False, array=[r["best_acc_max"] - r["best_acc_mean"] for r in done],
                     arrayminus=[r["best_acc_mean"] - r["best_acc_min"] for r in done]),
        hovertemplate="%{x}<br>best test accuracy %{y:.3f}<extra></extra>"))
    fig.update_yaxes(range=[0, 1.02], title_text="best MQAR test accuracy")
    fig.update_xaxes(title_text="model code", type="category")
    return style(fig, title, height=380, legend=False)

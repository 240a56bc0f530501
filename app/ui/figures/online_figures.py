"""Figures of the online-learners lesson from a RecallStudy."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import PALETTE, log_safe, style

ERROR_FLOOR = 1e-8   # below this a recall is exact for the eye; a lower floor only stretches the axis

RULE_COLORS = dict(zip(("linear attention", "GLA", "DeltaNet", "Longhorn"), PALETTE))


def recall_error_figure(study) -> go.Figure:
    fig = go.Figure()
    for rule, err in zip(study.rules, study.errors):
        fig.add_trace(go.Scatter(y=log_safe(err, ERROR_FLOOR), name=rule, mode="lines",
                                 line=dict(color=RULE_COLORS[rule])))
        if study.diverged_at[rule] is not None:
            fig.add_annotation(x=study.diverged_at[rule], y=1, yref="paper", text=f"⚠ {rule} diverged",
                               showarrow=False, font=dict(color=RULE_COLORS[rule]))
    n = study.n_keys
    for rep in range(1, len(study.key_order) // n):
        fig.add_vline(x=rep * n - 0.5, line=dict(color="#ccc", dash="dot"))
    fig.update_yaxes(type="log", title_text="mean squared recall error")
    fig.update_xaxes(title_text="step t (dotted: the stream starts over)")
    return style(fig, "Recall error of every key seen so far", height=380)


def final_error_figure(study) -> go.Figure:
    keys = np.arange(study.n_keys)
    fig = go.Figure([go.Bar(x=keys, y=log_safe(err, ERROR_FLOOR), name=rule, marker_color=RULE_COLORS[rule])
                     for rule, err in zip(study.rules, study.final_error)])
    fig.update_yaxes(type="log", title_text="squared error")
    fig.update_xaxes(title_text="key")
    return style(fig, "Recall error per key at the end", height=340, legend_side="right")


def radius_figure(study) -> go.Figure:
    fig = go.Figure([go.Scatter(y=np.minimum(r, 1e6), name=rule, mode="lines", line=dict(color=RULE_COLORS[rule]))
                     for rule, r in zip(study.rules, study.radius)])
    fig.add_hline(y=1.0, line=dict(color="black", dash="dash"), annotation_text="unit circle",
                  annotation_position="top left")
    fig.update_yaxes(title_text="largest |eigenvalue| of the transition")
    fig.update_xaxes(title_text="step t")
    return style(fig, "Stability of each step's transition", height=340, legend_side="right")

"""Lesson 3 figures from a RingStudy."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import PALETTE, axis, build, unit_circle_trace, vline


def eigenvalue_ring_figure(study) -> go.Figure:
    """λ in the complex plane over the unit circle, the ring r_min ≤ |λ| ≤ r_max, the picked three."""
    lam = study.eigenvalues
    traces = [unit_circle_trace(color="black")]
    for r, name in ((study.r_min, "r_min"), (study.r_max, "r_max")):
        if r > 0:
            traces.append(unit_circle_trace(f"{name} = {r:g}", r, color="#2ca02c", dash="dash"))
    traces.append(go.Scatter(x=lam.real, y=lam.imag, mode="markers", name="λ",
                             marker=dict(size=6, color=PALETTE[0], opacity=0.7),
                             customdata=np.stack([np.abs(lam), study.horizons], -1),
                             hovertemplate="|λ| = %{customdata[0]:.5f}<br>horizon %{customdata[1]:.4g} steps"
                                           "<extra></extra>"))
    for n, (idx, label) in enumerate(zip(study.picked, study.picked_labels)):
        traces.append(go.Scatter(x=[lam[idx].real], y=[lam[idx].imag], mode="markers", name=label,
                                 marker=dict(size=14, symbol="star", color=PALETTE[n + 1],
                                             line=dict(color="black", width=1))))
    return build(traces, f"{len(lam)} eigenvalues", height=430, legend_side="right",
                 xaxis=axis("Re λ", range=[-1.1, 1.1], constrain="domain"),
                 yaxis=axis("Im λ", range=[-1.1, 1.1], scaleanchor="x"))


def radius_histogram_figure(study) -> go.Figure:
    """Histogram of |λ|; the dashed line is what uniform-in-area predicts (density ∝ r)."""
    r = study.radii
    lo, hi = study.r_min, study.r_max
    traces = [go.Histogram(x=r, nbinsx=30, name="|λ|", marker_color=PALETTE[0], histnorm="probability density")]
    if hi > lo:
        grid = np.linspace(lo, hi, 100)
        traces.append(go.Scatter(x=grid, y=2 * grid / (hi**2 - lo**2), mode="lines", name="∝ r (uniform in area)",
                                 line=dict(color="black", dash="dash")))
    return build(traces, "Distribution of |λ|", xaxis=axis("|λ|", exponentformat="none"), yaxis=axis("density"))


def impulse_response_figure(study) -> go.Figure:
    """Re λ^t for the picked eigenvalues, with the envelope ±|λ|^t and the horizon 1/(1 − |λ|)."""
    traces, shapes = [], []
    steps = np.arange(study.impulse.shape[1])
    for n, (idx, label) in enumerate(zip(study.picked, study.picked_labels)):
        h = study.impulse[n]
        color = PALETTE[n + 1]
        traces.append(go.Scatter(x=steps, y=h.real, name=f"{label}: Re λᵗ", line=dict(color=color, width=1.5)))
        traces.append(go.Scatter(x=steps, y=np.abs(h), showlegend=False, hoverinfo="skip",
                                 line=dict(color=color, dash="dot", width=1)))
        if study.horizons[idx] < steps[-1]:
            shapes.append(vline(float(study.horizons[idx]), color, "dash"))
    return build(traces, "Impulse responses (dotted: |λ|ᵗ, dashed: horizon)", shapes=shapes,
                 xaxis=axis("step t"), yaxis=axis("λᵗ", range=[-1.05, 1.05]))

"""Lesson 3 figures from a RingStudy."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import PALETTE, style, unit_circle_trace


def eigenvalue_ring_figure(study) -> go.Figure:
    """λ in the complex plane over the unit circle, the ring r_min ≤ |λ| ≤ r_max, the picked three."""
    lam = study.eigenvalues
    fig = go.Figure()
    fig.add_trace(unit_circle_trace(color="black"))
    for r, name in ((study.r_min, "r_min"), (study.r_max, "r_max")):
        if r > 0:
            fig.add_trace(unit_circle_trace(f"{name} = {r:g}", r, color="#2ca02c", dash="dash"))
    fig.add_trace(go.Scatter(x=lam.real, y=lam.imag, mode="markers", name="λ",
                             marker=dict(size=6, color=PALETTE[0], opacity=0.7),
                             customdata=np.stack([np.abs(lam), study.horizons], -1),
                             hovertemplate="|λ| = %{customdata[0]:.5f}<br>horizon %{customdata[1]:.4g} steps"
                                           "<extra></extra>"))
    for n, (idx, label) in enumerate(zip(study.picked, study.picked_labels)):
        fig.add_trace(go.Scatter(x=[lam[idx].real], y=[lam[idx].imag], mode="markers", name=label,
                                 marker=dict(size=14, symbol="star", color=PALETTE[n + 1],
                                             line=dict(color="black", width=1))))
    fig.update_xaxes(range=[-1.1, 1.1], title_text="Re λ", constrain="domain")
    fig.update_yaxes(range=[-1.1, 1.1], title_text="Im λ", scaleanchor="x")
    return style(fig, f"{len(lam)} eigenvalues", height=430, legend_side="right")


def radius_histogram_figure(study) -> go.Figure:
    """Histogram of |λ|; the dashed line is what uniform-in-area predicts (density ∝ r)."""
    r = study.radii
    lo, hi = study.r_min, study.r_max
    fig = go.Figure(go.Histogram(x=r, nbinsx=30, name="|λ|", marker_color=PALETTE[0], histnorm="probability density"))
    if hi > lo:
        grid = np.linspace(lo, hi, 100)
        fig.add_trace(go.Scatter(x=grid, y=2 * grid / (hi**2 - lo**2), mode="lines", name="∝ r (uniform in area)",
                                 line=dict(color="black", dash="dash")))
    fig.update_xaxes(title_text="|λ|", exponentformat="none")
    fig.update_yaxes(title_text="density")
    return style(fig, "Distribution of |λ|")


def impulse_response_figure(study) -> go.Figure:
    """Re λ^t for the picked eigenvalues, with the envelope ±|λ|^t and the horizon 1/(1 − |λ|)."""
    fig = go.Figure()
    steps = np.arange(study.impulse.shape[1])
    for n, (idx, label) in enumerate(zip(study.picked, study.picked_labels)):
        h = study.impulse[n]
        color = PALETTE[n + 1]
        fig.add_trace(go.Scatter(x=steps, y=h.real, name=f"{label}: Re λᵗ", line=dict(color=color, width=1.5)))
        fig.add_trace(go.Scatter(x=steps, y=np.abs(h), showlegend=False, hoverinfo="skip",
                                 line=dict(color=color, dash="dot", width=1)))
        horizon = study.horizons[idx]
        if horizon < steps[-1]:
            fig.add_vline(x=horizon, line=dict(color=color, dash="dash", width=1))
    fig.update_xaxes(title_text="step t")
    fig.update_yaxes(title_text="λᵗ", range=[-1.05, 1.05])
    return style(fig, "Impulse responses (dotted: |λ|ᵗ, dashed: horizon)")

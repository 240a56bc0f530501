"""Each dynamics page's figures, built once per setting and cached (st.cache_data).

Building a plotly figure validates every property (tens of ms per figure); caching the
finished figures as plain dicts (`Figure.to_dict()`) makes a rerun with known settings
cost a few ms per chart. Arguments are the page's settings, exactly as the core calls take them.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from . import cached_core
from .figures import plane_figures, propagation_figures, ring_figures, spring_figures, stability_figures

CACHE = dict(show_spinner=False, max_entries=64)


def _dicts(**figures) -> dict:
    return {name: fig.to_dict() for name, fig in figures.items()}


@st.cache_data(**CACHE)
def spring(m, c, k, forcing, frequency, period) -> dict:
    sim = cached_core.spring_simulation(m, c, k, forcing, frequency, period)
    return _dicts(response=spring_figures.time_response_figure(sim), phase=spring_figures.phase_portrait_figure(sim),
                  energy=spring_figures.energy_figure(sim), poles=spring_figures.s_plane_figure(sim.regime.poles))


@st.cache_data(**CACHE)
def discretize(m, c, k, dt, input_kind, frequency) -> dict:
    cmp = cached_core.discretization_comparison(m, c, k, dt, input_kind, frequency)
    grid, euler_circle = cached_core.pole_map(dt, float(min(cmp.s_poles.real.min(), -0.5) * 1.5))
    return _dicts(s_plane=plane_figures.s_plane_map_figure(cmp, grid, euler_circle),
                  z_plane=plane_figures.z_plane_figure(cmp, grid),
                  z_zoom=plane_figures.z_plane_figure(cmp, grid, zoom=True),
                  responses=plane_figures.responses_figure(cmp), error=plane_figures.error_figure(cmp))


@st.cache_data(**CACHE)
def rings(n, r_min, r_max, max_phase, seed) -> dict:
    study = cached_core.rings(n, r_min, r_max, max_phase, seed)
    return _dicts(eigenvalues=ring_figures.eigenvalue_ring_figure(study),
                  histogram=ring_figures.radius_histogram_figure(study),
                  impulse=ring_figures.impulse_response_figure(study))


@st.cache_data(**CACHE)
def lru_stability(learning_rate, steps, gamma_normalization, r_max, seed) -> dict:
    runs, _ = cached_core.stability_runs(learning_rate, steps, gamma_normalization, r_max, seed)
    return _dicts(eigenvalues=stability_figures.eigen_trajectory_figure(runs), loss=stability_figures.loss_figure(runs))


@st.cache_data(**CACHE)
def propagation(gap, length, nu, theta_deg, forget_below, explode_above) -> dict:
    theta = float(np.radians(theta_deg))
    traces = cached_core.propagation_springs(gap, length) + [cached_core.propagation_lru(gap, length, nu, theta)]
    grid = cached_core.propagation_grid(gap, length)
    zones = dict(forget_below=forget_below, explode_above=explode_above)
    dist_len, size_len = grid.by_length(theta)
    dist_th, size_th = grid.by_theta(length)
    return _dicts(
        traces=propagation_figures.traces_figure(traces), distance=propagation_figures.distance_figure(traces),
        by_length=propagation_figures.heatmap_figure(
            grid.lengths, grid.nu, dist_len, size_len, marker=(length, nu), x_title="steps after the 2nd token",
            y_title="damping ν", title=f"Distance vs damping and length (θ = {theta_deg}°)", **zones),
        by_theta=propagation_figures.heatmap_figure(
            np.degrees(grid.theta), grid.nu, dist_th, size_th, marker=(theta_deg, nu), x_title="phase θ (°)",
            y_title="damping ν", title=f"Distance vs damping and phase ({length} steps)", **zones))

"""The core calls the dynamics pages make, wrapped in st.cache_data (results are plain numpy data)."""
from __future__ import annotations

import streamlit as st

from lcsm_core.dynamics.discretize import euler_stability_circle, pole_map_grid
from lcsm_core.dynamics.discretize_comparison import compare_discretizations
from lcsm_core.dynamics.lru_stability import PARAMETERIZATIONS, StabilityConfig, output_scale, run_gradient_steps
from lcsm_core.dynamics.propagation import distinguishability_grid, lru_trace, spring_traces
from lcsm_core.dynamics.rings import ring_study
from lcsm_core.dynamics.spring_simulation import simulate_spring

CACHE = dict(show_spinner=False, max_entries=128)


@st.cache_data(**CACHE)
def spring_simulation(m, c, k, forcing, frequency, period):
    return simulate_spring(m, c, k, forcing, frequency=frequency, period=period)


@st.cache_data(**CACHE)
def discretization_comparison(m, c, k, dt, input_kind, frequency):
    return compare_discretizations(m, c, k, dt, input_kind=input_kind, frequency=frequency)


@st.cache_data(**CACHE)
def pole_map(dt, sigma_min):
    """Grid lines (s, z = e^{sΔ}) and Euler's stable circle for the s-plane / z-plane pictures."""
    import numpy as np
    sigmas = np.linspace(sigma_min, 0.0, 5)
    omegas = np.linspace(-np.pi / dt, np.pi / dt, 9)
    return pole_map_grid(dt, sigmas, omegas), euler_stability_circle(dt)


@st.cache_data(**CACHE)
def rings(n, r_min, r_max, max_phase, seed):
    return ring_study(n, r_min, r_max, max_phase, seed)


@st.cache_data(**CACHE)
def stability_runs(learning_rate, steps, gamma_normalization, r_max, seed):
    """{"naive": StabilityRun, "exponential": StabilityRun} and the output scale with/without γ."""
    common = dict(learning_rate=learning_rate, steps=steps, gamma_normalization=gamma_normalization,
                  r_min=max(0.0, r_max - 0.1), r_max=r_max, seed=seed)
    runs = {p: run_gradient_steps(StabilityConfig(parameterization=p, **common)) for p in PARAMETERIZATIONS}
    return runs, output_scale(StabilityConfig(**common))


@st.cache_data(**CACHE)
def propagation_springs(gap, length):
    return spring_traces(gap, length)


@st.cache_data(**CACHE)
def propagation_lru(gap, length, nu, theta):
    return lru_trace(gap, length, nu, theta)


@st.cache_data(**{**CACHE, "max_entries": 16})
def propagation_grid(gap, length):
    return distinguishability_grid(gap, length)

"""Figure builders are pure functions: every figure (unstable cases included) passes plotly's full
validation and holds only finite numbers."""
import math

import numpy as np
import plotly.graph_objects as go
import pytest

from app.ui.figures import plane_figures, propagation_figures, ring_figures, spring_figures, stability_figures
from lcsm_core.dynamics.discretize import euler_stability_circle, pole_map_grid
from lcsm_core.dynamics.discretize_comparison import compare_discretizations
from lcsm_core.dynamics.lru_stability import PARAMETERIZATIONS, StabilityConfig, run_gradient_steps
from lcsm_core.dynamics.propagation import propagation_experiment
from lcsm_core.dynamics.rings import ring_study
from lcsm_core.dynamics.spring_simulation import simulate_spring


def spring_figs():
    sim = simulate_spring(0.5, -1.0, 2.0, "sine")                          # unstable: stopped at the bound
    return [spring_figures.time_response_figure(sim), spring_figures.phase_portrait_figure(sim),
            spring_figures.energy_figure(sim), spring_figures.s_plane_figure(sim.regime.poles)]


def plane_figs():
    cmp = compare_discretizations(1.0, 0.2, 1.0, 1.5, input_kind="sine", horizon=200)   # Euler diverges
    grid, circle = pole_map_grid(1.5, np.linspace(-1, 0, 5), np.linspace(-2, 2, 9)), euler_stability_circle(1.5)
    return [plane_figures.s_plane_map_figure(cmp, grid, circle), plane_figures.z_plane_figure(cmp, grid),
            plane_figures.z_plane_figure(cmp, grid, zoom=True), plane_figures.responses_figure(cmp),
            plane_figures.error_figure(cmp)]


def ring_figs():
    study = ring_study(64, 0.999, 0.9999, math.pi / 10)
    return [ring_figures.eigenvalue_ring_figure(study), ring_figures.radius_histogram_figure(study),
            ring_figures.impulse_response_figure(study)]


def stability_figs():
    runs = {p: run_gradient_steps(StabilityConfig(parameterization=p, learning_rate=0.3, steps=10, seq_len=16))
            for p in PARAMETERIZATIONS}                                   # naive diverges
    return [stability_figures.eigen_trajectory_figure(runs), stability_figures.loss_figure(runs)]


def propagation_figs():
    exp = propagation_experiment(50, 400, -0.03, 0.3)                    # LRU explodes
    dist, size = exp.grid.by_length(0.3)
    heat = propagation_figures.heatmap_figure(exp.grid.lengths, exp.grid.nu, dist, size, forget_below=1e-3,
                                              explode_above=1e3, marker=(400, -0.03), x_title="L", y_title="ν",
                                              title="t")
    return [propagation_figures.traces_figure(exp.traces), propagation_figures.distance_figure(exp.traces), heat]


def numbers(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from numbers(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from numbers(v)
    elif isinstance(obj, np.ndarray) and obj.dtype.kind in "fc":
        yield obj[~np.isnan(obj)]                                       # NaN = a deliberate gap between lines
    elif isinstance(obj, float) and not math.isnan(obj):
        yield np.array([obj])


@pytest.mark.parametrize("make", [spring_figs, plane_figs, ring_figs, stability_figs, propagation_figs],
                         ids=["spring", "discretize", "rings", "lru_stability", "propagation"])
def test_figures_validate_and_hold_finite_numbers(make):
    for fig in make():
        spec = fig.to_dict()
        go.Figure(spec)                                                 # full validation: no misspelled property
        assert all(np.all(np.isfinite(v)) for v in numbers(spec)), fig.layout.title.text

"""Lessons 4 and 5 claims."""
import numpy as np

from lcsm_core.dynamics.lru_stability import StabilityConfig, output_scale, run_gradient_steps
from lcsm_core.dynamics.propagation import FORGET_BELOW, propagation_experiment, token_pulses


def test_token_pulses():
    u = token_pulses(3, 2)
    np.testing.assert_array_equal(u, [[1, 0, 0, 1, 0, 0], [1, 0, 0, -1, 0, 0]])


def test_low_damping_remembers_longer_than_high_damping():
    exp = propagation_experiment(gap=100, length=200, nu=0.01, theta_deg=15)
    low, high, negative, lru = exp.traces
    assert low.final_distance > 100 * high.final_distance
    assert high.final_distance < FORGET_BELOW * 10
    assert negative.final_distance > low.final_distance
    assert np.isclose(lru.final_distance, 2 * np.exp(-0.01 * 200), rtol=1e-9)
    by_length = exp.by_length.distance
    assert np.all(np.diff(by_length[:, -1]) < 0)     # more damping (larger ν) → less distinguishable
    by_theta = exp.by_theta.distance
    np.testing.assert_allclose(by_theta, np.broadcast_to(by_theta[:, :1], by_theta.shape), rtol=1e-9)


def test_naive_parameterization_leaves_the_disk_exponential_cannot():
    fast = dict(learning_rate=0.05, steps=12, seq_len=24, batch=2)
    naive = run_gradient_steps(StabilityConfig(parameterization="naive", **fast))
    expo = run_gradient_steps(StabilityConfig(parameterization="exponential", **fast))
    assert naive.left_disk_step is not None
    assert expo.left_disk_step is None and np.abs(expo.eigenvalues).max() < 1
    assert np.all(np.isfinite(expo.loss))


def test_diverging_run_stops_with_finite_history():
    run = run_gradient_steps(StabilityConfig(parameterization="naive", learning_rate=0.5, steps=30, seq_len=24))
    assert run.diverged_step is not None
    assert np.all(np.isfinite(run.eigenvalues))


def test_gamma_normalization_shrinks_the_output():
    scale = output_scale(StabilityConfig(seq_len=24, batch=2))
    assert scale["with γ"] < scale["without γ"]

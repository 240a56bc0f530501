"""Lesson 5's fast path: a single token's responses, shifted and added, are the scans of "aa" and "ab"."""
from __future__ import annotations

import numpy as np
import pytest

from lcsm_core.dynamics.propagation import (
    distinguishability_grid,
    propagation_experiment,
    spring_traces,
    superposed_distance_maps,
    superposed_spring_traces,
    token_responses,
)


@pytest.fixture(scope="module")
def responses():
    return token_responses(160)


@pytest.mark.parametrize("gap, length, theta", [(100, 59, 15), (1, 1, 0), (37, 91, 120), (3, 150, 180)])
def test_superposed_grid_cuts_are_the_scanned_grids(responses, gap, length, theta):
    grid = distinguishability_grid(gap, length)
    by_length, by_theta = superposed_distance_maps(responses, gap, length, theta)
    for fast, reference in ((by_length, grid.length_map(theta)), (by_theta, grid.theta_map(length))):
        np.testing.assert_array_equal(fast.nu, reference.nu)
        np.testing.assert_array_equal(fast.x, reference.x)
        for name in ("distance", "size"):
            a, b = getattr(fast, name), getattr(reference, name)
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-300, err_msg=name)


@pytest.mark.parametrize("gap, length", [(100, 59), (1, 1), (37, 91), (150, 9)])
def test_superposed_springs_are_the_scanned_springs(responses, gap, length):
    for fast, reference in zip(superposed_spring_traces(responses, gap, length), spring_traces(gap, length),
                               strict=True):
        assert fast.name == reference.name
        assert (fast.exploded, fast.growing, fast.verdict) == (reference.exploded, reference.growing,
                                                               reference.verdict)
        np.testing.assert_array_equal(fast.t, reference.t)
        scale = max(np.abs(reference.y_aa).max(), np.abs(reference.y_ab).max())
        for name in ("y_aa", "y_ab", "distance"):
            np.testing.assert_allclose(getattr(fast, name), getattr(reference, name), rtol=1e-9,
                                       atol=1e-12 * scale, err_msg=f"{fast.name} {name}")


def test_a_bound_low_enough_to_cut_cuts_both_the_same(responses):
    fast = superposed_spring_traces(responses, 20, 100, bound=0.5)
    reference = spring_traces(20, 100, bound=0.5)
    assert [t.exploded for t in fast] == [t.exploded for t in reference] and any(t.exploded for t in fast)
    assert [len(t.t) for t in fast] == [len(t.t) for t in reference]


def test_the_experiment_uses_the_responses_only_when_they_are_long_enough(responses):
    fast = propagation_experiment(100, 59, 0.01, 15, responses=responses)
    longer = propagation_experiment(100, 60, 0.01, 15, responses=responses)      # 161 steps > 160: scanned
    reference = propagation_experiment(100, 59, 0.01, 15)
    assert longer.by_length.distance.shape == (len(reference.by_length.nu), 61)
    for a, b in zip(fast.traces, reference.traces, strict=True):
        assert np.isclose(a.final_distance, b.final_distance, rtol=1e-9)
    np.testing.assert_allclose(fast.by_theta.distance, reference.by_theta.distance, rtol=1e-9)

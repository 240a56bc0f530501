"""The numbers the EOS view page reads off a layer (lcsm_core.eos_view): spreads, distances and the spectrum,
each on a case whose answer is known in closed form."""
import dataclasses

import numpy as np
import pytest

from lcsm_core.eos_view import (
    inspect_layer,
    largest_radius,
    memory_norm_spread,
    spectrum_summary,
    steps_ran,
    steps_within_bound,
    weights_vs_linear,
)


def test_memory_norm_spread_counts_from_the_first_write():
    assert memory_norm_spread(np.zeros(5)) == 0.0                       # never written
    assert memory_norm_spread(np.array([0.0, 0.0, 3.0, 3.0])) == 0.0    # written once, never fades
    assert memory_norm_spread(np.array([0.0, 4.0, 2.0, 1.0])) == pytest.approx(0.75)


def test_linear_attention_keeps_its_weights_and_a_unit_spectrum():
    view = inspect_layer("variant", "linear_attention", T=12, d_model=4, expand_dim=3)
    assert weights_vs_linear(view) == pytest.approx(0.0, abs=1e-12)     # o = 1: W is the masked QKᵀ itself
    summary = spectrum_summary(view)
    assert summary["min_radius"] == pytest.approx(1.0) and summary["max_phase"] == pytest.approx(0.0)
    assert summary["eigen_spread"] == pytest.approx(0.0) and summary["min_eigen_re"] == pytest.approx(1.0)
    assert steps_ran(view) == steps_within_bound(view) == 12 and largest_radius(view) == pytest.approx(1.0)


def test_weights_vs_linear_is_the_relative_distance_below_the_diagonal():
    view = inspect_layer("variant", "gla", T=6, d_model=3, expand_dim=2)
    plain = view.s @ view.e.T
    doubled = dataclasses.replace(view, weights=2 * plain + np.triu(np.ones_like(plain), 1))  # above: ignored
    assert weights_vs_linear(doubled) == pytest.approx(1.0)


def test_a_diverged_view_reports_on_the_steps_up_to_the_divergence():
    view = inspect_layer("variant", "deltanet", T=48, signal="random", scale=20.0)
    assert view.diverged_at is not None
    assert steps_ran(view) == view.diverged_at + 1 and steps_within_bound(view) == max(view.diverged_at, 1)
    assert largest_radius(view) == pytest.approx(view.spectral_radius[:view.diverged_at + 1].max())
    assert largest_radius(view) < view.spectral_radius.max()           # later steps reach further
    assert spectrum_summary(view)["min_eigen_re"] < -1                  # 1 − β‖k‖² < −1

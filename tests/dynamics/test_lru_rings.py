"""Lesson 3 claims: ring init radii lie in [r_min, r_max], uniform in area; λ = exp(-exp(ν_log) + iθ)."""
import numpy as np
import pytest
from scipy import stats

from lcsm_core.dynamics.eigen_responses import impulse_responses
from lcsm_core.dynamics.lru_init import lru_ring_init, memory_horizon
from lcsm_core.dynamics.rings import ring_study


@pytest.mark.parametrize("r_min, r_max, phase", [(0.4, 0.9, 2 * np.pi), (0.999, 0.9999, np.pi / 10), (0.0, 0.99, 1.0)])
def test_radii_in_ring_and_uniform_in_area(r_min, r_max, phase):
    init = lru_ring_init(4000, r_min, r_max, phase, seed=3)
    lam = init.eigenvalues
    r = np.abs(lam)
    assert r.min() >= r_min - 1e-12 and r.max() <= r_max + 1e-12
    area_fraction = (r**2 - r_min**2) / (r_max**2 - r_min**2)      # uniform on [0, 1] if uniform in area
    assert stats.kstest(area_fraction, "uniform").pvalue > 1e-3
    angles = np.angle(lam) % (2 * np.pi)
    assert angles.max() <= phase + 1e-9
    np.testing.assert_allclose(np.exp(init.gamma_log), np.sqrt(1 - r**2), rtol=1e-9)


def test_radii_are_not_uniform_in_radius():
    r = np.abs(lru_ring_init(4000, 0.0, 0.99, 1.0, seed=0).eigenvalues)
    assert stats.kstest(r / 0.99, "uniform").pvalue < 1e-6


def test_memory_horizon_and_impulse_response():
    lam = np.array([0.5, 0.9 * np.exp(0.3j), 0.999])
    np.testing.assert_allclose(memory_horizon(lam), [2.0, 10.0, 1000.0], rtol=1e-9)
    h = impulse_responses(lam, 50)
    np.testing.assert_allclose(h, lam[:, None] ** np.arange(50), atol=1e-12)
    assert memory_horizon(np.array([1.0]))[0] == np.inf


def test_ring_study_swaps_reversed_bounds():
    study = ring_study(32, 0.9, 0.5, 1.0)
    assert study.r_min == 0.5 and study.radii.min() >= 0.5


def test_ring_study_gamma_and_expected_density():
    study = ring_study(64, 0.5, 0.95, 1.0, seed=1)
    np.testing.assert_allclose(study.gammas, np.sqrt(1 - study.radii**2), rtol=1e-9)
    assert np.trapezoid(study.density, study.density_radii) == pytest.approx(1.0)
    assert len(ring_study(8, 0.7, 0.7, 1.0).density_radii) == 0      # a circle, not a ring: no density to draw

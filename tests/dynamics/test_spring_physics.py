"""Lesson 1 claims: the poles are (-c ± sqrt(c² - 4mk)) / 2m, and the regime follows ζ."""
import math

import numpy as np
import pytest

from lcsm_core.dynamics.spring import spring_energy, spring_regime

CASES = [  # (m, c, k, regime)
    pytest.param(1.0, 0.2, 1.0, "underdamped", id="under"),
    pytest.param(1.0, 2.0, 1.0, "critically damped", id="critical"),
    pytest.param(2.0, 9.0, 3.0, "overdamped", id="over"),
    pytest.param(0.5, 0.0, 4.0, "undamped", id="undamped"),
    pytest.param(1.0, -0.3, 2.0, "unstable", id="negative-c"),
    pytest.param(1.0, -5.0, 2.0, "unstable", id="negative-c-real-poles"),
]


@pytest.mark.parametrize("m, c, k, regime", CASES)
def test_poles_match_the_characteristic_equation(m, c, k, regime):
    got = spring_regime(m, c, k)
    root = np.sqrt(complex(c * c - 4 * m * k))
    expected = np.sort_complex(np.array([(-c + root) / (2 * m), (-c - root) / (2 * m)]))
    np.testing.assert_allclose(got.poles, expected, atol=1e-7)
    assert got.name == regime
    assert got.omega_n == pytest.approx(math.sqrt(k / m))


def test_field_note_example_and_half_life():
    r = spring_regime(1.0, 0.2, 1.0)
    assert r.zeta == pytest.approx(0.1) and r.omega_n == pytest.approx(1.0)
    assert r.half_life == pytest.approx(math.log(2) / 0.1)
    assert spring_regime(1.0, -0.2, 1.0).doubling_time == pytest.approx(math.log(2) / 0.1)


def test_energy_is_conserved_without_damping():
    from lcsm_core.dynamics.spring_simulation import simulate_spring
    sim = simulate_spring(1.0, 0.0, 2.0, "impulse", dt=0.01, horizon=10)
    e = sim.energy[5:]
    assert np.ptp(e) / e.mean() < 1e-9
    assert spring_energy(np.array([1.0]), np.array([0.0]), 1.0, 2.0)[0] == pytest.approx(1.0)


def test_unstable_spring_stops_at_the_bound_and_says_when():
    from lcsm_core.dynamics.spring_simulation import simulate_spring
    sim = simulate_spring(0.1, -2.0, 1.0, "step", horizon=30)
    assert sim.diverged_at is not None and sim.diverged_at < 30
    assert np.all(np.isfinite(sim.x)) and np.abs(sim.x[:-1]).max() <= sim.bound

"""Lesson 2 claims: ZOH sends s to e^{sΔ}; bilinear keeps stability; Euler can lose it."""
import control  # noqa: I001
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcsm_core.dynamics.discretize import discretize, euler_stability_limit, exact_pole_map
from lcsm_core.dynamics.discretize_comparison import compare_discretizations
from lcsm_core.dynamics.spring import spring_mass_damper, spring_regime

stable_springs = st.tuples(st.floats(0.2, 5), st.floats(0.05, 5), st.floats(0.1, 10))


@settings(max_examples=25, deadline=None)
@given(stable_springs, st.floats(0.01, 3))
def test_zoh_poles_are_e_to_the_s_delta(mck, dt):
    m, c, k = mck
    sysd = discretize(spring_mass_damper(m, c, k), dt, "zoh")
    expected = exact_pole_map(spring_regime(m, c, k).poles, dt)
    got = np.asarray(control.poles(sysd), dtype=complex)
    for z in expected:  # a double pole (critical damping) is only accurate to sqrt(eps)
        assert np.min(np.abs(got - z)) < 1e-6


@settings(max_examples=25, deadline=None)
@given(stable_springs, st.floats(0.01, 50))
def test_bilinear_keeps_a_stable_system_stable_for_every_delta(mck, dt):
    sysd = discretize(spring_mass_damper(*mck), dt, "bilinear")
    assert np.all(np.abs(control.poles(sysd)) < 1)


def test_euler_loses_stability_exactly_past_its_limit():
    poles = spring_regime(1.0, 0.2, 1.0).poles
    limit = euler_stability_limit(poles)
    assert limit == pytest.approx(0.2)
    sys = spring_mass_damper(1.0, 0.2, 1.0)
    assert np.all(np.abs(control.poles(discretize(sys, 0.9 * limit, "euler"))) < 1)
    assert np.any(np.abs(control.poles(discretize(sys, 1.1 * limit, "euler"))) > 1)
    assert np.all(np.abs(control.poles(discretize(sys, 1.1 * limit, "zoh"))) < 1)


def test_zoh_is_exact_for_a_release_and_euler_is_not():
    cmp = compare_discretizations(1.0, 0.3, 2.0, 0.1, input_kind="release")
    assert cmp.methods["zoh"].error.max() < 1e-12
    assert cmp.methods["euler"].error.max() > 1e-2
    assert cmp.euler_limit == pytest.approx(2 * 0.15 / 2.0)


def test_unstable_euler_run_is_cut_at_the_bound():
    cmp = compare_discretizations(1.0, 0.2, 1.0, 1.5, input_kind="sine", horizon=200)
    euler = cmp.methods["euler"]
    assert not euler.stable and euler.diverged_at is not None
    assert np.all(np.isfinite(euler.y))


@settings(max_examples=25, deadline=None)
@given(stable_springs, st.floats(0.01, 3))
def test_mapped_poles_are_the_discrete_poles_in_the_order_of_the_continuous_ones(mck, dt):
    cmp = compare_discretizations(*mck, dt, horizon=5 * dt)
    for res in cmp.methods.values():
        for z in res.mapped:           # a double pole (critical damping) is only accurate to sqrt(eps)
            assert np.min(np.abs(res.poles - z)) < 1e-6
        assert res.radius == pytest.approx(np.max(np.abs(res.poles)))
    np.testing.assert_allclose(cmp.methods["zoh"].mapped, cmp.z_exact)


def test_pole_map_covers_the_poles_and_euler_disk_is_its_stable_region():
    cmp = compare_discretizations(1.0, 3.0, 1.0, 0.5)
    s_lines = np.concatenate([s for s, _ in cmp.pole_map.lines])
    assert s_lines.real.min() <= cmp.s_poles.real.min() and s_lines.real.max() == 0
    np.testing.assert_allclose(np.abs(1 + cmp.pole_map.euler_circle * cmp.dt), 1.0)

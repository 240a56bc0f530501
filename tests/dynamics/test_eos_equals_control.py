"""Every response on the dynamics pages comes from `eos_scan`; it equals control.forced_response."""
import control  # noqa: I001
import numpy as np
import pytest

from lcsm_core.dynamics.discretize import METHODS, discretize
from lcsm_core.dynamics.eos_bridge import diagonalize, eos_response, eos_responses, reference_response
from lcsm_core.dynamics.spring import spring_mass_damper

TOL = 1e-9  # fp64, relative to the response scale

SPRINGS = [pytest.param(1.0, 0.2, 1.0, id="under"), pytest.param(1.0, 2.0, 1.0, id="critical-defective"),
           pytest.param(2.0, 9.0, 3.0, id="over"), pytest.param(1.0, 0.0, 3.0, id="undamped"),
           pytest.param(1.0, -0.3, 1.0, id="unstable")]


@pytest.mark.parametrize("T", [250, 700], ids=["T250-recurrent", "T700-auto-chunked"])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("m, c, k", SPRINGS)
def test_spring_response_through_eos_equals_forced_response(m, c, k, method, T):
    sysd = discretize(spring_mass_damper(m, c, k), 0.1, method)
    u = np.random.default_rng(0).standard_normal(T)
    x0 = np.array([0.7, -0.4])
    y, x = eos_response(sysd, u, x0)
    y_ref, x_ref = reference_response(sysd, u, x0)
    scale = max(1.0, np.abs(y_ref).max())
    np.testing.assert_allclose(y, y_ref, atol=TOL * scale, rtol=0)
    np.testing.assert_allclose(x, x_ref, atol=TOL * max(1.0, np.abs(x_ref).max()), rtol=0)


def test_mimo_system_through_eos_equals_forced_response():
    rng = np.random.default_rng(1)
    sys = control.ss(rng.standard_normal((4, 4)) - 3 * np.eye(4), rng.standard_normal((4, 2)),
                     rng.standard_normal((3, 4)), rng.standard_normal((3, 2)))
    sysd = discretize(sys, 0.05, "bilinear")
    u = rng.standard_normal((120, 2))
    y, x = eos_response(sysd, u, rng.standard_normal(4))
    y_ref, x_ref = reference_response(sysd, u, x[0])
    np.testing.assert_allclose(y, y_ref, atol=TOL * max(1, np.abs(y_ref).max()), rtol=0)


def test_critical_damping_is_defective_and_uses_the_matrix_form():
    assert diagonalize(discretize(spring_mass_damper(1.0, 2.0, 1.0), 0.1, "zoh")) is None
    diag = diagonalize(discretize(spring_mass_damper(1.0, 0.2, 1.0), 0.1, "zoh"))
    assert diag is not None and np.iscomplexobj(diag.eigenvalues)


# --- several systems in one scan (lesson 2's three methods) ------------------------------------------
@pytest.mark.parametrize("dt, T", [(0.1, 201), (0.02, 1001), (1.3, 16), (0.05, 401)])
@pytest.mark.parametrize("m, c, k", SPRINGS + [pytest.param(0.1, 5.0, 0.1, id="stiff-euler-explodes")])
def test_systems_side_by_side_equal_each_alone(m, c, k, dt, T):
    systems = [discretize(spring_mass_damper(m, c, k), dt, method) for method in METHODS]
    u = np.sin(0.7 * np.arange(T) * dt)
    x0s = [np.array([1.0, 0.0])] * len(systems)
    for (y, x), sysd, x0 in zip(eos_responses(systems, u, x0s), systems, x0s, strict=True):
        y_alone, x_alone = eos_response(sysd, u, x0)
        assert np.all(np.isfinite(y)) == np.all(np.isfinite(y_alone))
        finite = np.isfinite(y_alone[:, 0])
        scale = max(1.0, np.abs(y_alone[finite]).max())
        np.testing.assert_allclose(y[finite], y_alone[finite], atol=TOL * scale, rtol=0)
        np.testing.assert_allclose(x[finite], x_alone[finite], atol=TOL * max(1.0, np.abs(x_alone[finite]).max()),
                                   rtol=0)


def test_a_system_that_would_overflow_runs_alone_and_leaves_the_others_finite():
    zoh, euler = (discretize(spring_mass_damper(0.1, 5.0, 0.1), 0.054, method) for method in ("zoh", "euler"))
    T = 8000                                                      # Euler's |z| ≈ 1.7: |z|^T overflows to inf
    (y_zoh, _), (y_euler, _) = eos_responses([zoh, euler], np.ones(T))
    assert np.all(np.isfinite(y_zoh))
    y_ref, _ = eos_response(zoh, np.ones(T))
    np.testing.assert_allclose(y_zoh, y_ref, atol=TOL * np.abs(y_ref).max(), rtol=0)

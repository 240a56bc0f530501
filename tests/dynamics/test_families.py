"""Preview families in one core call equal the per-value reference, member by member, in fp64.

Each lesson's `compute` stays the readable reference (one value, one scan); the family functions batch the swept
value (`lti_batch`: one EOS scan over many small systems; closed forms λᵗ where a single mode is all there is).
Every field a page draws or prints is compared: the curves to rounding, the lengths, divergence points and flags,
regimes and verdicts exactly.
"""
from __future__ import annotations

import math
from dataclasses import fields

import control
import numpy as np
import pytest

from lcsm_core.dynamics.discretize import discretize
from lcsm_core.dynamics.discretize_comparison import compare_discretizations
from lcsm_core.dynamics.discretize_family import compare_discretizations_family
from lcsm_core.dynamics.eigen_responses import impulse_powers, impulse_responses
from lcsm_core.dynamics.eos_bridge import eos_response
from lcsm_core.dynamics.lru_stability import stability_study
from lcsm_core.dynamics.lti_batch import gbt_many, length_groups, state_readouts, zoh_many
from lcsm_core.dynamics.propagation import propagation_experiment, token_responses
from lcsm_core.dynamics.propagation_family import propagation_family
from lcsm_core.dynamics.rings import ring_study
from lcsm_core.dynamics.rings_family import ring_study_family
from lcsm_core.dynamics.spring import spring_mass_damper
from lcsm_core.dynamics.spring_family import simulate_spring_family
from lcsm_core.dynamics.spring_simulation import simulate_spring

RTOL = 1e-10       # relative to the curve's own peak (at least 1): rounding of different but exact operation orders


def close(a, b, rtol: float = RTOL) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    scale = max(1.0, float(np.max(np.abs(a), initial=0.0)))
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= rtol * scale))


# --- the batched LTI machinery ----------------------------------------------------------------------------------
@pytest.mark.parametrize("method, alpha", [("bilinear", 0.5), ("euler", 0.0)])
def test_batched_discretizations_are_python_controls(method, alpha):
    systems = [spring_mass_damper(m, c, k) for m, c, k in [(1, 0.2, 1), (0.1, 5, 10), (5, -1, 0.1)]]
    dts = np.array([0.02, 0.3, 2.0])
    A, B, C, D = (np.stack([np.asarray(getattr(s, name), float) for s in systems]) for name in "ABCD")
    A_z, B_z = zoh_many(A, B, dts)
    A_g, B_g, C_g, D_g = gbt_many(A, B, C, D, dts, alpha)
    for j, (sys, dt) in enumerate(zip(systems, dts)):
        zoh, other = discretize(sys, dt, "zoh"), discretize(sys, dt, method)
        assert np.allclose(A_z[j], zoh.A, atol=1e-13) and np.allclose(B_z[j], zoh.B, atol=1e-13)
        for got, want in zip((A_g[j], B_g[j], C_g[j], D_g[j]), (other.A, other.B, other.C, other.D)):
            assert np.allclose(got, want, atol=1e-13)


def test_state_readouts_are_eos_response_for_systems_of_different_lengths():
    systems = [discretize(spring_mass_damper(1, c, 1), dt, "zoh") for c, dt in [(0.2, 0.05), (2.0, 0.5), (-0.5, 0.1)]]
    lengths = [601, 61, 301]
    rng = np.random.default_rng(0)
    u = np.zeros((3, 601))
    for j, T in enumerate(lengths):
        u[j, :T] = rng.normal(size=T)
    x0 = rng.normal(size=(3, 2))
    A_d = np.stack([np.asarray(s.A) for s in systems])
    B_d = np.stack([np.asarray(s.B)[:, 0] for s in systems])
    got = state_readouts(A_d, B_d, u, x0, np.broadcast_to(np.eye(2)[:, None], (2, 3, 2)), lengths)
    for j, (sys, T) in enumerate(zip(systems, lengths)):           # c = 2: defective A (the matrix form needs no V)
        _, states = eos_response(sys, u[j, :T], x0[j])
        assert close(got[:, j, :T].T, states)
        assert not got[:, j, T:].any()


def test_length_groups_keep_padding_small_and_lose_no_system():
    lengths = [1001, 401, 201, 134, 101, 11, 12, 60]
    groups = length_groups(lengths)
    assert sorted(np.concatenate(groups).tolist()) == list(range(len(lengths)))
    for group in groups:
        sizes = [lengths[j] for j in group]
        assert max(sizes) <= 4 * min(sizes)


def test_impulse_powers_are_the_scanned_impulse_responses():
    lam = np.exp(-np.array([1e-4, 0.01, 0.5, 5.0]) + 1j * np.array([0.0, 0.3, 2.0, 3.1]))
    assert close(impulse_powers(lam, 3000), impulse_responses(lam, 3000), 1e-11)


# --- lesson 1 ---------------------------------------------------------------------------------------------------
def same_spring(batch, ref):
    assert (len(batch.t), batch.dt, batch.diverged_at, batch.diverged_in) == (len(ref.t), ref.dt, ref.diverged_at,
                                                                              ref.diverged_in)
    assert np.array_equal(batch.t, ref.t) and np.array_equal(batch.force, ref.force)
    assert close(batch.x, ref.x) and close(batch.v, ref.v) and close(batch.energy, ref.energy)
    assert batch.regime.name == ref.regime.name and np.array_equal(batch.regime.poles, ref.regime.poles)
    for f in fields(ref.regime):
        if f.name != "poles":
            assert getattr(batch.regime, f.name) == getattr(ref.regime, f.name), f.name
    assert batch.energy_growth == pytest.approx(ref.energy_growth, rel=1e-8)


@pytest.mark.parametrize("forcing", ["impulse", "step", "pulse train", "sine"])
@pytest.mark.parametrize("m, k", [(1.0, 1.0), (0.1, 10.0), (5.0, 0.1)])
def test_spring_family_is_simulate_spring_at_every_damping(forcing, m, k):
    """−1 … 5 in 0.25 steps (the page's preview grid is every other one): growing, undamped, critically damped
    (a Jordan block at m = k = 1), overdamped with a fast pole (a finer, member-own sample step)."""
    cs = np.round(np.linspace(-1.0, 5.0, 25), 10)
    family = simulate_spring_family(m, cs, k, forcing, frequency=1.3, period=4.0)
    assert len(family) == len(cs)
    for c, sim in zip(cs, family):
        same_spring(sim, simulate_spring(m, c, k, forcing, frequency=1.3, period=4.0))
    assert any(sim.diverged_at is not None for sim in family) or m * k < 1        # slow growth stays in bounds


def test_spring_family_refuses_what_simulate_spring_refuses():
    with pytest.raises(ValueError, match="mass"):
        simulate_spring_family(0.0, [0.1, 0.2], 1.0)
    with pytest.raises(ValueError, match="forcing"):
        simulate_spring_family(1.0, [0.1, 0.2], 1.0, "hammer")


# --- lesson 2 ---------------------------------------------------------------------------------------------------
# every Δ of the page's preview grid (app/lessons/discretize.py: 1.5 is its own) and of the finer one it had before
DTS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.4, 1.5, 1.6, 1.8, 2.0)


@pytest.mark.parametrize("input_kind, m, c, k", [("release", 1.0, 0.2, 1.0), ("step", 1.0, 0.2, 1.0),
                                                 ("sine", 1.0, 0.5, 1.0), ("release", 1.0, 2.0, 1.0),
                                                 ("release", 1.0, 0.0, 1.0), ("sine", 0.3, 0.05, 9.0)])
def test_discretize_family_is_compare_discretizations_at_every_step(input_kind, m, c, k):
    family = compare_discretizations_family(m, c, k, DTS, input_kind=input_kind, frequency=0.8)
    for dt, got in zip(DTS, family):
        ref = compare_discretizations(m, c, k, dt, input_kind=input_kind, frequency=0.8)
        assert got.dt == ref.dt and np.array_equal(got.t, ref.t)
        assert close(got.u, ref.u) and close(got.y_exact, ref.y_exact)
        assert np.array_equal(got.s_poles, ref.s_poles) and np.array_equal(got.z_exact, ref.z_exact)
        assert got.euler_limit == ref.euler_limit and got.precision == pytest.approx(ref.precision, rel=1e-9)
        for (s_got, z_got), (s_ref, z_ref) in zip(got.pole_map.lines, ref.pole_map.lines):
            assert np.array_equal(s_got, s_ref) and np.array_equal(z_got, z_ref)
        for method, want in ref.methods.items():
            have = got.methods[method]
            assert (have.diverged_at, have.stable, have.verdict) == (want.diverged_at, want.stable, want.verdict)
            assert close(have.y, want.y) and np.allclose(have.error, want.error, rtol=0, atol=RTOL * max(
                1.0, float(np.abs(want.y).max())))
            assert np.allclose(np.sort_complex(have.poles), np.sort_complex(want.poles), atol=1e-13)
            assert have.radius == pytest.approx(want.radius, abs=1e-13)
            assert np.array_equal(have.mapped, want.mapped)


def test_discretize_family_zoh_is_still_exact_for_a_release():
    for cmp in compare_discretizations_family(1.0, 0.2, 1.0, DTS):
        assert cmp.methods["zoh"].error.max() < 1e-9


# --- lesson 3 ---------------------------------------------------------------------------------------------------
R_MAX = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995, 0.999, 0.9999)


@pytest.mark.parametrize("n, r_min, phase, seed", [(128, 0.4, 2.0, 0), (1024, 0.0, 0.1, 3), (8, 0.9999, 1.0, 1)])
def test_rings_family_is_ring_study_at_every_r_max(n, r_min, phase, seed):
    family = ring_study_family(n, r_min, R_MAX, phase * math.pi, seed)
    for r_max, got in zip(R_MAX, family):
        ref = ring_study(n, r_min, r_max, phase * math.pi, seed)
        for f in fields(ref):
            want, have = getattr(ref, f.name), getattr(got, f.name)
            if f.name == "impulse":
                assert close(have, want, 1e-11)
            elif f.name == "init":
                assert all(np.array_equal(getattr(have, g.name), getattr(want, g.name)) for g in fields(want))
            else:
                assert np.array_equal(have, want), f.name


def test_rings_family_leaves_out_what_ring_study_refuses():
    family = ring_study_family(16, 0.4, [0.9, 1.0], math.pi)
    assert family[0] is not None and family[1] is None
    with pytest.raises(ValueError):
        ring_study(16, 0.4, 1.0, math.pi)


# --- lesson 4 ---------------------------------------------------------------------------------------------------
def test_stability_family_is_the_cut_of_one_training():
    study = stability_study(0.05, 40, True, 0.999, 0)
    family = study.up_to_each([0, 10, 40, 41])
    assert family[-1] is None
    for steps, got in zip([0, 10, 40], family):
        want = study.up_to(steps)
        for name in want.runs:
            assert np.array_equal(got.runs[name].loss, want.runs[name].loss)
            assert np.array_equal(got.runs[name].eigenvalues, want.runs[name].eigenvalues)
            assert got.runs[name].diverged_step == want.runs[name].diverged_step


# --- lesson 5 ---------------------------------------------------------------------------------------------------
NUS = (-0.05, -0.03, -0.02, -0.01, -0.005, 0.0, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1)


@pytest.fixture(scope="module")
def responses():
    return token_responses(601)


@pytest.mark.parametrize("gap, length, theta, shared", [(100, 200, 15, True), (50, 400, 5, True),
                                                        (10, 30, 180, False)])
def test_propagation_family_is_propagation_experiment_at_every_damping(gap, length, theta, shared, responses):
    given = responses if shared else None
    family = propagation_family(gap, length, NUS, theta, responses=given)
    for nu, got in zip(NUS, family):
        ref = propagation_experiment(gap, length, nu, theta, responses=given)
        assert (got.gap, got.length, got.nu, got.theta_deg) == (ref.gap, ref.length, ref.nu, ref.theta_deg)
        assert got.predicted_distance == ref.predicted_distance
        for cut in ("by_length", "by_theta"):
            for name in ("nu", "x", "distance", "size"):
                assert np.array_equal(getattr(getattr(got, cut), name), getattr(getattr(ref, cut), name))
        for have, want in zip(got.traces, ref.traces):
            assert (have.name, have.exploded, have.growing, have.verdict) == (want.name, want.exploded,
                                                                              want.growing, want.verdict)
            assert np.array_equal(have.t, want.t)
            assert close(have.y_aa, want.y_aa, 1e-12) and close(have.y_ab, want.y_ab, 1e-12)
            assert close(have.distance, want.distance, 1e-12)
            assert have.final_distance == pytest.approx(want.final_distance, rel=1e-9, abs=1e-300)
    verdicts = {exp.traces[-1].verdict for exp in family}
    assert "remembers" in verdicts and ("exploded" in verdicts or gap + length < 200)   # short: ν < 0 only grows


def test_control_is_still_the_oracle_of_the_batched_scan():
    """One member against python-control itself, not only against the EOS reference."""
    sim = simulate_spring_family(1.0, [0.7], 2.0, "sine")[0]
    sys = discretize(spring_mass_damper(1.0, 0.7, 2.0), sim.dt, "zoh")
    res = control.forced_response(sys, sim.t, sim.force, return_x=True)
    assert close(sim.x, np.asarray(res.states)[0], 1e-9)

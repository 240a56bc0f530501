"""The block form of a batch of LTI systems' states equals the step-by-step reference and the EOS scan, in fp64."""
from __future__ import annotations

import numpy as np
import pytest

from lcsm_core.dynamics.lti_batch import state_readouts, zoh_many
from lcsm_core.dynamics.lti_blocks import block_states, matrix_powers, recurrent_states

RTOL = 1e-12       # relative to each system's own peak (at least 1): the same sums in another order


def assert_close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    scale = np.maximum(1.0, np.abs(want).max(axis=(1, 2), keepdims=True))
    assert np.all(np.abs(got - want) <= RTOL * scale)


def springs(cs, dt: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """ZOH of m = k = 1 springs with damping cs: c = 2 is critical damping (a defective A), c < 0 grows."""
    cs = np.asarray(cs, dtype=float)
    A = np.zeros((len(cs), 2, 2))
    A[:, 0, 1], A[:, 1, 0], A[:, 1, 1] = 1.0, -1.0, -cs
    B = np.zeros((len(cs), 2, 1))
    B[:, 1, 0] = 1.0
    A_d, B_d = zoh_many(A, B, np.full(len(cs), dt))
    return A_d, B_d[..., 0]


@pytest.mark.parametrize("T", [1, 2, 3, 16, 17, 601, 1001])
@pytest.mark.parametrize("forced", [True, False])
def test_block_states_are_the_recurrence(T, forced):
    rng = np.random.default_rng(T)
    A, b = springs([0.2, 2.0, -0.3, 0.0])
    u = rng.normal(size=(4, T)) if forced else np.zeros((4, T))
    x0 = rng.normal(size=(4, 2))
    assert_close(block_states(A, b, u, x0), recurrent_states(A, b, u, x0))


@pytest.mark.parametrize("block", [1, 2, 5, 64])
def test_any_block_length_gives_the_same_states(block):
    rng = np.random.default_rng(block)
    A, b = rng.normal(size=(6, 3, 3)) * 0.6, rng.normal(size=(6, 3))
    u, x0 = rng.normal(size=(6, 50)), rng.normal(size=(6, 3))
    assert_close(block_states(A, b, u, x0, block=block), recurrent_states(A, b, u, x0))


def test_matrix_powers_are_repeated_products():
    A = np.random.default_rng(0).normal(size=(3, 2, 2))
    powers = matrix_powers(A, 9)
    assert powers.shape == (3, 10, 2, 2)
    for s in range(10):
        assert np.allclose(powers[:, s], np.linalg.matrix_power(A, s), rtol=1e-13, atol=1e-13)


def test_a_runaway_tail_leaves_the_earlier_states_finite_and_the_other_systems_alone():
    """A system that overflows late (a short system padded to its group's length) has its first non-finite state
    at the reference's step, the states before it equal, and the other system untouched. (Past that step the two
    differ in which states are inf or NaN: no one reads them.)"""
    A = np.stack([np.diag([40.0, 0.5]), np.diag([0.9, 0.8])])
    b, u, x0 = np.ones((2, 2)), np.zeros((2, 300)), np.ones((2, 2))
    got, want = block_states(A, b, u, x0), recurrent_states(A, b, u, x0)
    first = int(np.argmin(np.isfinite(want[0]).all(axis=1)))
    assert 0 < first < 300 and not np.isfinite(got[0, first]).all()
    assert_close(got[:1, :first], want[:1, :first])
    assert_close(got[1:], want[1:])


@pytest.mark.parametrize("form", ["blocks", "chunked"])
def test_state_readouts_forms_equal_the_eos_reference(form):
    rng = np.random.default_rng(1)
    A, b = springs([0.2, 2.0, -0.5, 1.0], dt=0.1)
    lengths = np.array([401, 61, 301, 11])
    u = np.zeros((4, 401))
    for j, T in enumerate(lengths):
        u[j, :T] = rng.normal(size=T)
    x0 = rng.normal(size=(4, 2))
    readouts = np.stack([np.broadcast_to([1.0, 0.0], (4, 2)), rng.normal(size=(4, 2))])      # (R, N, n)
    want = state_readouts(A, b, u, x0, readouts, lengths, form="recurrent")
    got = state_readouts(A, b, u, x0, readouts, lengths, form=form)
    assert_close(got.transpose(1, 0, 2), want.transpose(1, 0, 2))

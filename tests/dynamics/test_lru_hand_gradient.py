"""Lesson 4's fast path: the hand-written LRU gradient and its Adam equal torch autograd through `eos_scan`."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from lcsm_core.dynamics.lru_hand_gradient import (
    eigenvalues,
    lagged_inputs,
    loss_and_gradient,
    lru_output,
    student_init,
    weights,
)
from lcsm_core.dynamics.lru_stability import (
    PARAMETERIZATIONS,
    StabilityConfig,
    StudentLRU,
    lru_forward,
    run_hand_gradient_steps,
    stability_study,
    teacher_task,
)


def student_params(model: StudentLRU) -> np.ndarray:
    """The reference student's parameters as the fast path's (1, 7, n) rows."""
    first, second = ((model.lam_re, model.lam_im) if model.parameterization == "naive"
                     else (model.nu_log, model.theta_log))
    rows = [first, second, model.gamma_log, model.b.real, model.b.imag, model.c.real, model.c.imag]
    return np.stack([r.detach().numpy() for r in rows])[None]


def reference_gradient(model: StudentLRU) -> np.ndarray:
    """(7, n) autograd gradient in the fast path's row order (zero where autograd gives none)."""
    first, second = ((model.lam_re, model.lam_im) if model.parameterization == "naive"
                     else (model.nu_log, model.theta_log))

    def grad(p):
        return np.zeros(p.shape) if p.grad is None else p.grad.numpy()
    b, c = grad(model.b), grad(model.c)
    return np.stack([grad(first), grad(second), grad(model.gamma_log), b.real, b.imag, c.real, c.imag])


@pytest.mark.parametrize("parameterization", PARAMETERIZATIONS)
@pytest.mark.parametrize("gamma", [True, False])
@pytest.mark.parametrize("r_max", [0.9, 0.999])
def test_the_hand_gradient_is_autograds(parameterization, gamma, r_max):
    cfg = StabilityConfig(parameterization=parameterization, gamma_normalization=gamma, r_min=r_max - 0.1,
                          r_max=r_max, seed=3)
    u, target = teacher_task(cfg)
    model = StudentLRU(cfg)
    if parameterization == "naive":                 # a λ outside the disk too: the naive student gets there
        with torch.no_grad():
            model.lam_re[0] = 1.05
    loss = (model(u) - target).pow(2).mean() / target.pow(2).mean()
    loss.backward()
    params = student_params(model)
    fast_loss, fast_grad, lam = loss_and_gradient(
        params, np.array([parameterization != "naive"]), gamma, lagged_inputs(u.numpy()), target.numpy().reshape(-1),
        float(target.pow(2).mean()))
    np.testing.assert_allclose(lam[0], model.eigenvalues().detach().numpy(), rtol=1e-14)
    np.testing.assert_allclose(fast_loss[0], float(loss.detach()), rtol=1e-12)
    np.testing.assert_allclose(fast_grad[0], reference_gradient(model), rtol=1e-9, atol=1e-12 * np.abs(fast_grad).max())


def test_the_convolution_is_the_eos_scan_and_the_init_is_the_students():
    cfg = StabilityConfig(parameterization="exponential", seed=5)
    u, _ = teacher_task(cfg)
    for parameterization in PARAMETERIZATIONS:
        model = StudentLRU(StabilityConfig(parameterization=parameterization, seed=5))
        params = student_init(parameterization, cfg.n_eigs, cfg.r_min, cfg.r_max, cfg.seed)[None]
        np.testing.assert_array_equal(params, student_params(model))
        lam = eigenvalues(params, np.array([parameterization != "naive"]))
        y = lru_output(lagged_inputs(u.numpy()), lam, weights(params, True)[3])
        with torch.no_grad():
            reference = lru_forward(u, model.eigenvalues(), model.b, model.c,
                                    torch.exp(model.gamma_log).to(torch.complex128))
        np.testing.assert_allclose(y.reshape(u.shape), reference.numpy(), rtol=1e-11, atol=1e-13)


# The presets' settings, a diverging run, an inner ring and a run without γ: the whole training agrees.
@pytest.mark.parametrize("lr, steps, gamma, r_max, seed", [
    (0.03, 60, True, 0.999, 2),          # naive leaves the disk at step 3
    (0.3, 60, True, 0.999, 0),           # naive diverges at step 2, exponential trains on
    (0.001, 60, True, 0.95, 1),          # naive leaves the disk at step 49
    (0.01, 40, False, 0.9999, 3),
    (0.1, 40, True, 0.5, 7),
])
def test_training_with_the_hand_gradient_is_the_reference_training(lr, steps, gamma, r_max, seed):
    fast = stability_study(lr, steps, gamma, r_max, seed)
    reference = stability_study(lr, steps, gamma, r_max, seed, gradient="autograd")
    assert fast.output_rms.keys() == reference.output_rms.keys()
    for key, rms in fast.output_rms.items():
        np.testing.assert_allclose(rms, reference.output_rms[key], rtol=1e-13)
    for name in PARAMETERIZATIONS:
        a, b = fast.runs[name], reference.runs[name]
        assert a.config == b.config
        assert (a.left_disk_step, a.diverged_step, a.steps_run) == (b.left_disk_step, b.diverged_step, b.steps_run)
        np.testing.assert_allclose(a.loss, b.loss, rtol=1e-10, err_msg=name)
        np.testing.assert_allclose(a.eigenvalues, b.eigenvalues, rtol=0, atol=1e-11, err_msg=name)
        np.testing.assert_allclose(a.output_rms, b.output_rms, rtol=1e-13)
        np.testing.assert_allclose(a.target_rms, b.target_rms, rtol=1e-13)


def test_side_by_side_is_one_at_a_time():
    """A student's run does not depend on the one trained beside it (or on its diverging)."""
    common = dict(learning_rate=0.3, steps=20, r_min=0.899, r_max=0.999, seed=0)
    both = run_hand_gradient_steps([StabilityConfig(parameterization=p, **common) for p in PARAMETERIZATIONS])
    for run in both:
        alone, = run_hand_gradient_steps([run.config])
        np.testing.assert_allclose(alone.loss, run.loss, rtol=1e-13)
        np.testing.assert_allclose(alone.eigenvalues, run.eigenvalues, rtol=0, atol=1e-13)
        assert (alone.left_disk_step, alone.diverged_step) == (run.left_disk_step, run.diverged_step)


def test_bad_requests_are_refused():
    with pytest.raises(ValueError, match="gradient must be one of"):
        stability_study(0.01, 10, True, 0.99, 0, gradient="numeric")
    with pytest.raises(ValueError, match="parameterization must be one of"):
        run_hand_gradient_steps([StabilityConfig(parameterization="polar")])
    with pytest.raises(ValueError, match="differ only in their parameterization"):
        run_hand_gradient_steps([StabilityConfig(seed=0), StabilityConfig(parameterization="naive", seed=1)])

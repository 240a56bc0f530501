"""Lesson 4's training with the LRU's gradient written by hand (numpy): the fast path of `run_gradient_steps`.

The student of `lru_stability` is a diagonal LRU run by the EOS scan's parallel form with the B input
sequences as the d columns of one memory. Its output is therefore a causal convolution of the input with
the layer's real impulse response:

    y_{b,t} = Σ_τ k_τ u_{b,t−τ},     k_τ = Re Σ_j w_j λ_j^τ,     w_j = c_j γ_j b_j

With r = ∂L/∂y (L the normalized MSE) and its cross-correlation with the input ρ_τ = Σ_{b,t} r_{b,t} u_{b,t−τ},
every gradient is a sum over the T lags τ, in torch's convention for a complex z (∂L/∂Re z + i ∂L/∂Im z):

    ∂L/∂w_j = conj(Σ_τ λ_j^τ ρ_τ)            ∂L/∂λ_j = conj(w_j Σ_τ τ λ_j^{τ−1} ρ_τ)
    ∂L/∂c = ∂L/∂w · conj(γ b)    ∂L/∂b = ∂L/∂w · conj(c) γ    ∂L/∂γ = Re(∂L/∂w · conj(c b))
    naive λ = a + ib:                         ∂L/∂a = Re ∂L/∂λ,   ∂L/∂b = Im ∂L/∂λ
    exponential λ = exp(−e^ν + i e^θ):        ∂L/∂ν = Re(conj(∂L/∂λ) · (−e^ν λ)),   ∂L/∂θ = Re(conj(∂L/∂λ) · i e^θ λ)

Both students train side by side, as one (2, …) array (a row stops changing once its loss diverges), with
torch's Adam written out. Why: the autograd reference (`lru_stability.run_gradient_steps`) spends most of a
step in torch overhead; this takes a small part of that for both students, so a new (lr, γ, r_max, seed) on the page
costs milliseconds instead of half a second. The two agree to rounding (tests/dynamics/test_lru_hand_gradient.py).
"""
from __future__ import annotations

import numpy as np
import torch

from ..divergence import is_diverged
from .lru_init import lru_ring_init

BETAS = (0.9, 0.999)    # torch.optim.Adam's defaults, as the reference trains with
EPS = 1e-8
ROWS = ("lambda_1", "lambda_2", "gamma_log", "b_re", "b_im", "c_re", "c_im")   # a student's parameters, (7, n)


def lagged_inputs(u: np.ndarray) -> np.ndarray:
    """S (T, B·T) with S[τ, b·T + t] = u[b, t − τ] (0 for t < τ): y = k @ S, ρ = S @ r. u (B, T) real."""
    B, T = u.shape
    lag = np.arange(T)[None, :] - np.arange(T)[:, None]                     # (τ, t): t − τ
    shifted = np.where(lag >= 0, u[:, np.clip(lag, 0, None)], 0.0)          # (B, τ, t)
    return shifted.transpose(1, 0, 2).reshape(T, B * T)


def powers(lam: np.ndarray, T: int) -> np.ndarray:
    """λ^τ for τ = 0..T−1 by cumulative product (exact past |λ| = 1, as the scan's decays): (..., T, n)."""
    steps = np.broadcast_to(lam[..., None, :], (*lam.shape[:-1], T, lam.shape[-1])).copy()
    steps[..., 0, :] = 1.0
    return np.cumprod(steps, axis=-2)


def lru_output(lags: np.ndarray, lam: np.ndarray, w: np.ndarray) -> np.ndarray:
    """y (..., B·T) of the LRUs with eigenvalues lam and weights w = c γ b, each (..., n), on `lagged_inputs`."""
    kernel = np.einsum("...tn,...n->...t", powers(lam, lags.shape[0]), w).real   # (..., T) impulse response
    return kernel @ lags


def teacher_output(u: np.ndarray, lam: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The teacher LRU's output (B, T) on u (B, T): eigenvalues lam, b = 1, shrink c, no γ."""
    return lru_output(lagged_inputs(u), lam[None], c[None])[0].reshape(u.shape)


def initial_output_rms(u: np.ndarray, n: int, r_min: float, r_max: float, seed: int,
                       gamma_normalization: bool) -> float:
    """RMS of a student's output on u (B, T) at initialization (the same for both parameterizations)."""
    params = student_init("exponential", n, r_min, r_max, seed)[None]
    y = lru_output(lagged_inputs(u), eigenvalues(params, np.array([True])), weights(params, gamma_normalization)[3])
    return float(np.sqrt((y * y).mean()))


def student_init(parameterization: str, n: int, r_min: float, r_max: float, seed: int) -> np.ndarray:
    """(7, n) parameters (`ROWS`) exactly as `lru_stability.StudentLRU` initializes them."""
    init = lru_ring_init(n, r_min, r_max, np.pi / 4, seed)
    if parameterization == "naive":
        first, second = init.eigenvalues.real, init.eigenvalues.imag
    else:
        first, second = init.nu_log, init.theta_log
    g = torch.Generator().manual_seed(seed + 1)
    draws = [torch.randn(n, generator=g, dtype=torch.float64).numpy() for _ in range(4)]
    b = (draws[0] + 1j * draws[1]) / np.sqrt(2)
    c = (draws[2] + 1j * draws[3]) / np.sqrt(n)
    return np.stack([first, second, init.gamma_log, b.real, b.imag, c.real, c.imag])


def eigenvalues(params: np.ndarray, exponential: np.ndarray) -> np.ndarray:
    """λ (S, n) of S students' (S, 7, n) parameters; `exponential` (S,) bool says which map each uses."""
    naive = params[:, 0] + 1j * params[:, 1]
    with np.errstate(all="ignore"):                                         # a diverged naive row may be huge
        expo = np.exp(-np.exp(params[:, 0]) + 1j * np.exp(params[:, 1]))
    return np.where(exponential[:, None], expo, naive)


def weights(params: np.ndarray, gamma_normalization: bool):
    """(γ, b, c, w = c γ b) of (S, 7, n) parameters, each (S, n); γ = 1 without the normalization."""
    gamma = np.exp(params[:, 2]) if gamma_normalization else np.ones_like(params[:, 2])
    b = params[:, 3] + 1j * params[:, 4]
    c = params[:, 5] + 1j * params[:, 6]
    return gamma, b, c, c * (gamma * b)


def loss_and_gradient(params: np.ndarray, exponential: np.ndarray, gamma_normalization: bool, lags: np.ndarray,
                      target: np.ndarray, target_power: float):
    """Normalized MSE (S,) of S students and its gradient (S, 7, n) (module docstring)."""
    lam = eigenvalues(params, exponential)
    gamma, b, c, w = weights(params, gamma_normalization)
    T = lags.shape[0]
    P = powers(lam, T)                                                      # (S, T, n)
    err = np.einsum("stn,sn->st", P, w).real @ lags - target               # (S, B·T)
    loss = (err * err).mean(axis=-1) / target_power
    rho = (2.0 / (err.shape[-1] * target_power) * err) @ lags.T            # (S, T)
    grad_w = np.conj(np.einsum("stn,st->sn", P, rho))
    dP = np.zeros_like(P)
    dP[:, 1:] = np.arange(1, T)[:, None] * P[:, :-1]                        # τ λ^{τ−1}
    grad_lam = np.conj(w * np.einsum("stn,st->sn", dP, rho))
    nu_or_theta = np.where(exponential[:, None], 1.0, 0.0)
    d_first = -np.exp(params[:, 0]) * lam                                   # ∂λ/∂ν (exponential rows)
    d_second = 1j * np.exp(params[:, 1]) * lam                              # ∂λ/∂θ
    grad_first = np.where(nu_or_theta > 0, (np.conj(grad_lam) * d_first).real, grad_lam.real)
    grad_second = np.where(nu_or_theta > 0, (np.conj(grad_lam) * d_second).real, grad_lam.imag)
    grad_gamma_log = (grad_w * np.conj(c * b)).real * gamma if gamma_normalization else np.zeros_like(gamma)
    grad_b = grad_w * np.conj(c) * gamma
    grad_c = grad_w * np.conj(gamma * b)
    grad = np.stack([grad_first, grad_second, grad_gamma_log, grad_b.real, grad_b.imag, grad_c.real, grad_c.imag],
                    axis=1)
    return loss, grad, lam


class Adam:
    """torch.optim.Adam (defaults, no weight decay) on one array, in torch's order of operations."""

    def __init__(self, shape: tuple, learning_rate: float):
        self.lr, self.step = learning_rate, 0
        self.m, self.v = np.zeros(shape), np.zeros(shape)

    def update(self, params: np.ndarray, grad: np.ndarray, rows: np.ndarray) -> None:
        """Step the `rows` (bool, axis 0) of params in place; the others keep their values and moments."""
        beta1, beta2 = BETAS
        self.step += 1
        m = self.m + (1 - beta1) * (grad - self.m)                          # torch: exp_avg.lerp_(grad, 1 − β₁)
        v = self.v * beta2 + ((1 - beta2) * grad) * grad
        step_size = self.lr / (1 - beta1 ** self.step)
        denom = np.sqrt(v) / (1 - beta2 ** self.step) ** 0.5 + EPS
        moved = params + (-step_size * m) / denom
        keep = rows.reshape(-1, *(1,) * (params.ndim - 1))
        self.m, self.v = np.where(keep, m, self.m), np.where(keep, v, self.v)
        params[...] = np.where(keep, moved, params)


def train_students(parameterizations: tuple[str, ...], learning_rate: float, steps: int, gamma_normalization: bool,
                   n_eigs: int, r_min: float, r_max: float, seed: int, u: np.ndarray, target: np.ndarray):
    """Train one student per parameterization side by side; each stops at its first diverged loss.

    Returns, per student, (eigenvalues (S+1, n) complex, loss (S+1,), diverged step or None, output RMS at init)
    — what `run_gradient_steps` records, with S ≤ steps.
    """
    lags = lagged_inputs(u)
    target = target.reshape(-1)
    target_power = float((target * target).mean())
    exponential = np.array([p != "naive" for p in parameterizations])
    params = np.stack([student_init(p, n_eigs, r_min, r_max, seed) for p in parameterizations])
    init_rms = np.sqrt((lru_output(lags, eigenvalues(params, exponential), weights(params, gamma_normalization)[3])
                        ** 2).mean(axis=-1))
    opt = Adam(params.shape, learning_rate)
    active = np.ones(len(parameterizations), dtype=bool)
    eigs, losses, diverged = [[] for _ in parameterizations], [[] for _ in parameterizations], [None] * len(active)
    with np.errstate(all="ignore"):                                          # a stopped row may overflow: unused
        for step in range(steps + 1):
            loss, grad, lam = loss_and_gradient(params, exponential, gamma_normalization, lags, target, target_power)
            for s in np.flatnonzero(active):
                eigs[s].append(lam[s].copy())
                losses[s].append(float(loss[s]))
                if is_diverged(float(loss[s])):
                    diverged[s], active[s] = step, False
            if step == steps or not active.any():
                break
            opt.update(params, grad, active)
    return [(np.array(eigs[s]), np.array(losses[s]), diverged[s], float(init_rms[s]))
            for s in range(len(parameterizations))]

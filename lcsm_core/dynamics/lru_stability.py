"""Lesson 4: real gradient steps on a small LRU, naive vs exponential parameterization.

Student and teacher are diagonal LRUs run by `eos_scan` (i = u, e = γ ⊙ B, o = λ, s = C):

    h_t = λ ⊙ h_{t-1} + (γ ⊙ B) u_t,     y_t = Re(C h_t)

The task: match the teacher's output on random input sequences (normalized MSE), with
Adam. "naive" learns Re λ and Im λ directly — a large step can push |λ| past 1;
"exponential" learns ν_log, θ_log with λ = exp(-exp(ν_log) + i exp(θ_log)), which is
inside the unit disk for every parameter value.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..scan import eos_scan
from .lru_init import lru_ring_init

PARAMETERIZATIONS = ("naive", "exponential")
STOP_LOSS = 1e6  # normalized loss above this (or non-finite): training stopped, the run diverged


@dataclass(frozen=True)
class StabilityConfig:
    parameterization: str = "exponential"
    learning_rate: float = 0.01
    steps: int = 60
    gamma_normalization: bool = True
    n_eigs: int = 8
    r_min: float = 0.9
    r_max: float = 0.999
    seq_len: int = 32
    batch: int = 4
    seed: int = 0


@dataclass(frozen=True)
class StabilityRun:
    config: StabilityConfig
    eigenvalues: np.ndarray        # (S+1, n) complex: after 0..S steps (S ≤ steps if stopped early)
    loss: np.ndarray               # (S+1,) normalized MSE before each step / at the end
    left_disk_step: int | None     # first step index with some |λ| ≥ 1
    diverged_step: int | None      # step where the loss became non-finite or > STOP_LOSS
    output_rms: float              # student output RMS at initialization
    target_rms: float


def lru_forward(u: torch.Tensor, lam: torch.Tensor, b: torch.Tensor, c: torch.Tensor,
                gamma: torch.Tensor | None) -> torch.Tensor:
    """y (B, T) for input u (B, T); lam, b, c (n,) complex; gamma (n,) real or None."""
    T = u.shape[-1]
    expand = (b if gamma is None else gamma * b).expand(T, -1)                   # (T, n)
    # The parallel form: sequences here are short (T ≈ 32), and its cumulative-product decays stay exact
    # for |λ| > 1, so the naive run can leave the disk; ~7× faster per step than the recurrent form.
    y = eos_scan(u.unsqueeze(-1), expand, lam[:, None], c.expand(T, -1), form="parallel")   # (B, T, 1)
    return y[..., 0]


class StudentLRU(torch.nn.Module):
    """One diagonal LRU layer with either parameterization of λ."""

    def __init__(self, cfg: StabilityConfig):
        super().__init__()
        init = lru_ring_init(cfg.n_eigs, cfg.r_min, cfg.r_max, np.pi / 4, cfg.seed)
        lam0 = init.eigenvalues
        self.parameterization = cfg.parameterization
        self.gamma_normalization = cfg.gamma_normalization
        f64 = dict(dtype=torch.float64)
        if cfg.parameterization == "naive":
            self.lam_re = torch.nn.Parameter(torch.tensor(lam0.real, **f64))
            self.lam_im = torch.nn.Parameter(torch.tensor(lam0.imag, **f64))
        else:
            self.nu_log = torch.nn.Parameter(torch.tensor(init.nu_log, **f64))
            self.theta_log = torch.nn.Parameter(torch.tensor(init.theta_log, **f64))
        self.gamma_log = torch.nn.Parameter(torch.tensor(init.gamma_log, **f64))
        g = torch.Generator().manual_seed(cfg.seed + 1)
        n = cfg.n_eigs
        self.b = torch.nn.Parameter(torch.complex(torch.randn(n, generator=g, **f64),
                                                  torch.randn(n, generator=g, **f64)) / np.sqrt(2))
        self.c = torch.nn.Parameter(torch.complex(torch.randn(n, generator=g, **f64),
                                                  torch.randn(n, generator=g, **f64)) / np.sqrt(n))

    def eigenvalues(self) -> torch.Tensor:
        if self.parameterization == "naive":
            return torch.complex(self.lam_re, self.lam_im)
        return torch.exp(torch.complex(-torch.exp(self.nu_log), torch.exp(self.theta_log)))

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        gamma = torch.exp(self.gamma_log).to(torch.complex128) if self.gamma_normalization else None
        return lru_forward(u, self.eigenvalues(), self.b, self.c, gamma)


def teacher_task(cfg: StabilityConfig):
    """(u, y_target), each (batch, seq_len): a fixed long-memory LRU (|λ| ∈ [0.97, 0.995]) on white noise."""
    g = torch.Generator().manual_seed(1000 + cfg.seed)
    u = torch.randn(cfg.batch, cfg.seq_len, generator=g, dtype=torch.float64)
    teacher = lru_ring_init(4, 0.97, 0.995, np.pi / 8, seed=1000 + cfg.seed)
    lam = torch.tensor(teacher.eigenvalues)
    b = torch.ones(4, dtype=torch.complex128)
    c = torch.tensor(np.exp(teacher.gamma_log), dtype=torch.complex128)
    with torch.no_grad():
        return u, lru_forward(u, lam, b, c, None)


def run_gradient_steps(cfg: StabilityConfig) -> StabilityRun:
    """Train for cfg.steps Adam steps (stops early if the loss diverges); returns λ and loss per step."""
    if cfg.parameterization not in PARAMETERIZATIONS:
        raise ValueError(f"parameterization must be one of {PARAMETERIZATIONS}, got {cfg.parameterization!r}")
    torch.manual_seed(cfg.seed)
    u, target = teacher_task(cfg)
    target_power = target.pow(2).mean()
    model = StudentLRU(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate)
    eigs, losses = [], []
    left_disk, diverged = None, None
    with torch.no_grad():
        output_rms = float(model(u).pow(2).mean().sqrt())
    for step in range(cfg.steps + 1):
        lam = model.eigenvalues().detach().numpy().copy()
        eigs.append(lam)
        if left_disk is None and np.any(np.abs(lam) >= 1):
            left_disk = step
        loss = (model(u) - target).pow(2).mean() / target_power
        value = float(loss.detach())
        losses.append(value)
        if not np.isfinite(value) or value > STOP_LOSS:
            diverged = step
            break
        if step == cfg.steps:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
    return StabilityRun(config=cfg, eigenvalues=np.array(eigs), loss=np.array(losses), left_disk_step=left_disk,
                        diverged_step=diverged, output_rms=output_rms, target_rms=float(target_power.sqrt()))


def output_scale(cfg: StabilityConfig) -> dict[str, float]:
    """Student output RMS at initialization with and without the γ normalization."""
    u, _ = teacher_task(cfg)
    out = {}
    for flag in (True, False):
        model = StudentLRU(StabilityConfig(**{**cfg.__dict__, "gamma_normalization": flag}))
        with torch.no_grad():
            out["with γ" if flag else "without γ"] = float(model(u).pow(2).mean().sqrt())
    return out

"""Lesson 4: real gradient steps on a small LRU, naive vs exponential parameterization.

Student and teacher are diagonal LRUs run by `eos_scan` (i = u, e = γ ⊙ B, o = λ, s = C):

    h_t = λ ⊙ h_{t-1} + (γ ⊙ B) u_t,     y_t = Re(C h_t)

The task: match the teacher's output on random input sequences (normalized MSE), with
Adam. "naive" learns Re λ and Im λ directly — a large step can push |λ| past 1;
"exponential" learns ν_log, θ_log with λ = exp(-exp(ν_log) + i exp(θ_log)), which is
inside the unit disk for every parameter value.

Training is deterministic, so a run of S steps is the first S steps of any longer run with the
same settings: `stability_study` trains once to the longest horizon and `StabilityStudy.up_to`
cuts it to S (what the lesson does while the learner drags its "gradient steps" slider).

Two ways to take the same steps: `run_gradient_steps`, the readable reference (torch autograd through
`eos_scan`, one student at a time), and `lru_hand_gradient.train_students` (the gradient written out in
numpy, both students at once, ~20× less CPU), which `stability_study` uses unless told otherwise; they
agree to rounding (tests/dynamics/test_lru_hand_gradient.py).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from ..divergence import is_diverged
from ..scan import eos_scan
from .lru_hand_gradient import initial_output_rms, teacher_output, train_students
from .lru_init import lru_ring_init

PARAMETERIZATIONS = ("naive", "exponential")
RING_WIDTH = 0.1    # the students start on the ring r_max − RING_WIDTH ≤ |λ| ≤ r_max


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
    diverged_step: int | None      # step where the loss became non-finite or > DIVERGENCE_BOUND
    output_rms: float              # student output RMS at initialization
    target_rms: float

    @property
    def steps_run(self) -> int:
        """Gradient steps actually taken (fewer than config.steps when the loss diverged)."""
        return len(self.loss) - 1

    @property
    def peak_radius(self) -> float:
        """The largest |λ| at any step of the run."""
        return float(np.abs(self.eigenvalues).max())

    @property
    def init_radius(self) -> float:
        """The largest |λ| before the first step."""
        return float(np.abs(self.eigenvalues[0]).max())

    @property
    def final_radius(self) -> float:
        """The largest |λ| after the last step."""
        return float(np.abs(self.eigenvalues[-1]).max())

    def up_to(self, steps: int) -> StabilityRun:
        """This run as a run of `steps` steps would have been: its first steps (training is deterministic)."""
        if not 0 <= steps <= self.config.steps:
            raise ValueError(f"steps must be in [0, {self.config.steps}] (the run's length), got {steps}")

        def within(step: int | None) -> int | None:
            return step if step is not None and step <= steps else None

        keep = min(steps + 1, len(self.loss))
        return replace(self, config=replace(self.config, steps=steps), eigenvalues=self.eigenvalues[:keep],
                       loss=self.loss[:keep], left_disk_step=within(self.left_disk_step),
                       diverged_step=within(self.diverged_step))


@dataclass(frozen=True)
class StabilityStudy:
    """Both parameterizations trained on the same task from the same ring, and the output scale at init."""

    runs: dict[str, StabilityRun]       # parameterization → run, in PARAMETERIZATIONS order
    output_rms: dict[str, float]        # "with γ" / "without γ": student output RMS at initialization

    def up_to(self, steps: int) -> StabilityStudy:
        """The study as if every run had been trained for `steps` steps."""
        return replace(self, runs={name: run.up_to(steps) for name, run in self.runs.items()})

    def up_to_each(self, steps) -> list[StabilityStudy | None]:
        """`up_to(s)` for each s in `steps` (None where it refuses s): a whole "gradient steps" family from one
        training."""
        studies = []
        for s in steps:
            try:
                studies.append(self.up_to(s))
            except ValueError:
                studies.append(None)
        return studies


def lru_forward(u: torch.Tensor, lam: torch.Tensor, b: torch.Tensor, c: torch.Tensor,
                gamma: torch.Tensor | None) -> torch.Tensor:
    """y (B, T) for input u (B, T); lam, b, c (n,) complex; gamma (n,) real or None."""
    T = u.shape[-1]
    expand = (b if gamma is None else gamma * b).expand(T, -1)                   # (T, n)
    # The parallel form: sequences here are short (T ≈ 32), and its cumulative-product decays stay exact
    # for |λ| > 1, so the naive run can leave the disk; ~7× faster per step than the recurrent form.
    # The B sequences are the d = B columns of one memory (n, B) — same λ for every column — so the
    # (T, T, n) decays are built once, not once per sequence (about 2× faster per training step).
    y = eos_scan(u.transpose(-1, -2), expand, lam[:, None], c.expand(T, -1), form="parallel")   # (T, B)
    return y.transpose(-1, -2)


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


def teacher(cfg: StabilityConfig):
    """(u (batch, seq_len) white noise, λ (4,), c (4,)): the task's input and its fixed long-memory LRU
    (|λ| ∈ [0.97, 0.995], b = 1, c = √(1 − |λ|²), no γ)."""
    g = torch.Generator().manual_seed(1000 + cfg.seed)
    u = torch.randn(cfg.batch, cfg.seq_len, generator=g, dtype=torch.float64)
    ring = lru_ring_init(4, 0.97, 0.995, np.pi / 8, seed=1000 + cfg.seed)
    return u, ring.eigenvalues, np.exp(ring.gamma_log).astype(complex)


def teacher_task(cfg: StabilityConfig):
    """(u, y_target), each (batch, seq_len): a fixed long-memory LRU (|λ| ∈ [0.97, 0.995]) on white noise."""
    u, lam, c = teacher(cfg)
    with torch.no_grad():
        return u, lru_forward(u, torch.tensor(lam), torch.ones(len(lam), dtype=torch.complex128), torch.tensor(c), None)


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
        if is_diverged(value):
            diverged = step
            break
        if step == cfg.steps:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
    return StabilityRun(config=cfg, eigenvalues=np.array(eigs), loss=np.array(losses), left_disk_step=left_disk,
                        diverged_step=diverged, output_rms=output_rms, target_rms=float(target_power.sqrt()))


def output_scale(cfg: StabilityConfig, *, gradient: str = "autograd") -> dict[str, float]:
    """Student output RMS at initialization with and without the γ normalization (gradient="hand": in numpy)."""
    if gradient == "hand":
        u = teacher(cfg)[0].numpy()
        return {"with γ" if flag else "without γ": initial_output_rms(u, cfg.n_eigs, cfg.r_min, cfg.r_max, cfg.seed,
                                                                       flag) for flag in (True, False)}
    u, _ = teacher_task(cfg)
    out = {}
    for flag in (True, False):
        model = StudentLRU(StabilityConfig(**{**cfg.__dict__, "gamma_normalization": flag}))
        with torch.no_grad():
            out["with γ" if flag else "without γ"] = float(model(u).pow(2).mean().sqrt())
    return out


GRADIENTS = ("hand", "autograd")


def run_hand_gradient_steps(configs: list[StabilityConfig]) -> list[StabilityRun]:
    """`run_gradient_steps` for each config (they differ only in the parameterization), trained side by side with
    the hand-written gradient (`lru_hand_gradient`); the same runs, to rounding."""
    cfg = configs[0]
    if any(replace(c, parameterization=cfg.parameterization) != cfg for c in configs):
        raise ValueError("configs trained side by side may differ only in their parameterization")
    for c in configs:
        if c.parameterization not in PARAMETERIZATIONS:
            raise ValueError(f"parameterization must be one of {PARAMETERIZATIONS}, got {c.parameterization!r}")
    u, lam, c_teacher = teacher(cfg)
    u = u.numpy()
    target = teacher_output(u, lam, c_teacher)
    target_rms = float(np.sqrt((target * target).mean()))
    trained = train_students(tuple(c.parameterization for c in configs), cfg.learning_rate, cfg.steps,
                             cfg.gamma_normalization, cfg.n_eigs, cfg.r_min, cfg.r_max, cfg.seed, u, target)
    runs = []
    for c, (eigs, loss, diverged, output_rms) in zip(configs, trained):
        outside = np.flatnonzero((np.abs(eigs) >= 1).any(axis=1))
        runs.append(StabilityRun(config=c, eigenvalues=eigs, loss=loss,
                                 left_disk_step=int(outside[0]) if outside.size else None, diverged_step=diverged,
                                 output_rms=output_rms, target_rms=target_rms))
    return runs


def stability_study(learning_rate: float, steps: int, gamma_normalization: bool, r_max: float,
                    seed: int, *, gradient: str = "hand") -> StabilityStudy:
    """Both parameterizations, `steps` Adam steps each, from the ring [r_max − RING_WIDTH, r_max].

    gradient: "hand" (numpy, both students at once: milliseconds) or "autograd" (the torch reference)."""
    if gradient not in GRADIENTS:
        raise ValueError(f"gradient must be one of {GRADIENTS}, got {gradient!r}")
    common = dict(learning_rate=learning_rate, steps=steps, gamma_normalization=gamma_normalization,
                  r_min=max(0.0, r_max - RING_WIDTH), r_max=r_max, seed=seed)
    configs = [StabilityConfig(parameterization=p, **common) for p in PARAMETERIZATIONS]
    if gradient == "hand":
        runs = dict(zip(PARAMETERIZATIONS, run_hand_gradient_steps(configs)))
    else:
        runs = {c.parameterization: run_gradient_steps(c) for c in configs}
    return StabilityStudy(runs=runs, output_rms=output_scale(StabilityConfig(**common), gradient=gradient))


def white_noise_gain(radius: float) -> float:
    """1/√(1 − r²): the output RMS of a mode |λ| = r fed unit white noise — what γ = √(1 − r²) cancels."""
    return float(1.0 / np.sqrt(max(1e-12, 1.0 - radius * radius)))


def amplification(radius: float, steps: int) -> float:
    """r^steps: how much a mode of radius r scales a signal over `steps` steps (inf past the float range)."""
    with np.errstate(over="ignore"):
        return float(np.power(np.float64(radius), steps))

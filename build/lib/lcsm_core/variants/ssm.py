"""State-space models: S4, S5, DSS, TNN, LRU (data-independent oscillation)."""
from __future__ import annotations

import math

import torch
from torch import nn

from .base import EOSLayer, EOSStates, VariantInfo, alibi_decays, linear
from .oscillation import channel_bank, one, rows_k
from .registry import register


def hippo_legs(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """HiPPO-LegS A (n, n) and B (n,): the S4 initialization."""
    q = torch.sqrt(2 * torch.arange(n, dtype=torch.float64) + 1)
    A = -torch.tril(q[:, None] * q[None, :], diagonal=-1) - torch.diag(torch.arange(1, n + 1, dtype=torch.float64))
    return A.float(), q.float()


def bilinear(A: torch.Tensor, B: torch.Tensor, dt: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Bilinear (Tustin) discretization: Ā = (I − Δ/2 A)⁻¹(I + Δ/2 A), B̄ = (I − Δ/2 A)⁻¹ Δ B.

    A (n, n), B (n, m), dt (...,) -> Ā (..., n, n), B̄ (..., n, m).
    """
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    half = (dt / 2)[..., None, None] * A
    Abar = torch.linalg.solve(eye - half, eye + half)
    Bbar = torch.linalg.solve(eye - half, dt[..., None, None] * B)
    return Abar, Bbar


def log_uniform_dt(n: int, lo: float = 1e-3, hi: float = 1e-1) -> torch.Tensor:
    return torch.rand(n) * (math.log(hi) - math.log(lo)) + math.log(lo)


def along_time(p: torch.Tensor, T: int) -> torch.Tensor:
    """A data-independent state p (..., k) as a view of shape (..., T, k)."""
    return p.unsqueeze(-2).expand(*p.shape[:-1], T, p.shape[-1])


def one_channel_each(x: torch.Tensor) -> torch.Tensor:
    """x (B, T, D) as the input of D single-channel systems: (B, D, T, 1), for layout="channels"."""
    return x.transpose(1, 2).unsqueeze(-1)


def complex_dtype(x: torch.Tensor) -> torch.dtype:
    return torch.complex128 if x.dtype == torch.float64 else torch.complex64


@register
class S4(EOSLayer):
    info = VariantInfo("s4", "S4", "SSM", "u_t", "B̄", "Ā (HiPPO-LegS, bilinear)", "C", "matrix", "",
                       "a bank of per-channel SISO SSMs, d = 1",
                       oscillation_shape=channel_bank(rows_k, rows_k, psi="matrix", batched_copy=True))

    def __init__(self, d_model, expand_dim, **kw):
        super().__init__(d_model, expand_dim, **kw)
        A, B = hippo_legs(expand_dim)
        self.register_buffer("A", A)
        self.register_buffer("B", B)
        self.log_dt = nn.Parameter(log_uniform_dt(d_model))                       # one step size per channel
        self.C = nn.Parameter(torch.randn(d_model, expand_dim) * expand_dim ** -0.5)
        self.D = nn.Parameter(torch.ones(d_model))
        self.out_proj = linear(d_model, d_model)

    def discrete(self):
        Abar, Bbar = bilinear(self.A, self.B.unsqueeze(-1), torch.exp(self.log_dt))
        return Abar, Bbar.squeeze(-1)                                              # (D, n, n), (D, n)

    def states(self, x):
        T = x.shape[1]
        Abar, Bbar = self.discrete()
        return EOSStates(i=one_channel_each(x), e=along_time(Bbar.to(x.dtype), T),
                         o=Abar.to(x.dtype).unsqueeze(1), s=along_time(self.C.to(x.dtype), T),
                         psi="matrix", layout="channels")

    def readout(self, y, x):
        return self.out_proj(y + self.D * x)


@register
class S5(EOSLayer):
    # data_dependent "": e = B̄ u_t only carries the input (i = 1), so that one MIMO SSM fits the EOS core;
    # A, B, C never read x_t (LCSM Table 1 writes e = B). LRU folds its input the same way and says the same.
    info = VariantInfo("s5", "S5", "SSM", "1 (d = 1 per output)", "B̄ u_t", "Ā (dense)", "C (one row per output)",
                       "matrix", "", "one MIMO SSM; each output channel reads the shared state",
                       oscillation_shape=channel_bank(rows_k, rows_k, psi="matrix", extra_k=1))

    def __init__(self, d_model, expand_dim, **kw):
        super().__init__(d_model, expand_dim, **kw)
        A, _ = hippo_legs(expand_dim)
        self.register_buffer("A", A)
        self.B = nn.Parameter(torch.randn(expand_dim, d_model) * d_model ** -0.5)
        self.log_dt = nn.Parameter(log_uniform_dt(1)[0])
        self.C = nn.Parameter(torch.randn(d_model, expand_dim) * expand_dim ** -0.5)
        self.D = nn.Parameter(torch.ones(d_model))
        self.out_proj = linear(d_model, d_model)

    def discrete(self):
        return bilinear(self.A, self.B, torch.exp(self.log_dt))                   # (n, n), (n, D)

    def states(self, x):
        T = x.shape[1]
        Abar, Bbar = self.discrete()
        ones = torch.ones(1, 1, T, 1, dtype=x.dtype, device=x.device)
        return EOSStates(i=ones, e=(x @ Bbar.to(x.dtype).T).unsqueeze(1), o=Abar.to(x.dtype),
                         s=along_time(self.C.to(x.dtype), T), psi="matrix", layout="channels")

    def readout(self, y, x):
        return self.out_proj(y + self.D * x)


@register
class DSS(EOSLayer):
    # LCSM §2.3: DSS is S5's recurrence with A = Diag{a}, and S5 has B, C ∈ R^{k×d}: d SISO SSMs sharing a,
    # each with its own B and C; Δ per channel as in DSS and S4D. ψ = × with a diagonal A is ψ = ⊙.
    info = VariantInfo("dss", "DSS", "SSM", "u_t, one channel per SSM", "B̄_c = (exp(Δ_c a) − 1)/a ⊙ B_c",
                       "exp(Δ_c a) (a diagonal, complex, shared)", "C_c", "elementwise", "",
                       "a bank of d SISO SSMs: Δ_c, B_c, C_c per channel, a shared",
                       oscillation_shape=channel_bank(rows_k, one, complex=True))

    def __init__(self, d_model, expand_dim, **kw):
        super().__init__(d_model, expand_dim, **kw)
        n = expand_dim
        self.a_real_log = nn.Parameter(torch.log(0.5 * torch.ones(n)))            # S4D-Lin: a = −1/2 + iπj
        self.a_imag = nn.Parameter(math.pi * torch.arange(n, dtype=torch.float32))
        self.log_dt = nn.Parameter(log_uniform_dt(d_model))                       # one step size per channel
        self.B = nn.Parameter(torch.ones(d_model, n))                             # row c: channel c's B
        self.C = nn.Parameter(torch.randn(d_model, n, dtype=torch.complex64) * n ** -0.5)
        self.out_proj = linear(d_model, d_model)

    def discrete(self):
        """Zero-order hold per channel: Ā_c = exp(Δ_c a), B̄_c = (Ā_c − 1)/a ⊙ B_c, both (d, n) complex."""
        a = torch.complex(-torch.exp(self.a_real_log), self.a_imag)
        Abar = torch.exp(torch.exp(self.log_dt).unsqueeze(-1) * a)
        return Abar, (Abar - 1) / a * self.B

    def states(self, x):
        T, cdt = x.shape[1], complex_dtype(x)
        Abar, Bbar = self.discrete()
        return EOSStates(i=one_channel_each(x), e=along_time(Bbar.to(cdt), T), o=Abar.to(cdt)[:, None, :, None],
                         s=along_time(self.C.to(cdt), T), layout="channels")


@register
class TNN(EOSLayer):
    # LCSM §2.3: C = J^(kd), B ∈ R^{k×d}, A = Diag{λ}: channel c's kernel is Σ_j B_jc λ_j^t.
    info = VariantInfo("tnn", "TNN", "SSM", "x_t, one channel per SSM", "B_c", "diag(λ) (shared)", "C = J (ones)",
                       "elementwise", "", "a Toeplitz network converted to an SSM: B_c per channel, λ shared",
                       oscillation_shape=channel_bank(rows_k, one))

    def __init__(self, d_model, expand_dim, **kw):
        super().__init__(d_model, expand_dim, **kw)
        self.rate_log = nn.Parameter(torch.log(-torch.log(alibi_decays(expand_dim))))  # λ = exp(−exp(rate_log))
        self.B = nn.Parameter(torch.randn(d_model, expand_dim) * expand_dim ** -0.5)  # row c: channel c's B
        self.register_buffer("C", torch.ones(expand_dim))                         # J: the same for every channel
        self.out_proj = linear(d_model, d_model)

    def states(self, x):
        T = x.shape[1]
        lam = torch.exp(-torch.exp(self.rate_log)).to(x.dtype).unsqueeze(-1)      # (k, 1)
        return EOSStates(i=one_channel_each(x), e=along_time(self.B.to(x.dtype), T), o=lam,
                         s=along_time(self.C.to(x.dtype), T), layout="channels")


@register
class LRU(EOSLayer):
    # data_dependent "": as in S5, e = γ ⊙ B x_t only carries the input (i = 1); ν, θ, γ, B, C never read x_t.
    info = VariantInfo("lru", "LRU", "linear RNN", "1 (d = 1 per output)", "γ ⊙ B x_t", "λ = exp(−exp(ν) + iθ)",
                       "C (one row per output)", "elementwise", "",
                       "complex diagonal, ring init; y = Re(C h) + D x",
                       oscillation_shape=channel_bank(rows_k, one, complex=True, extra_k=4))

    def __init__(self, d_model, expand_dim, *, r_min: float = 0.4, r_max: float = 0.99, max_phase: float = math.pi,
                 seed: int = 0, **kw):
        super().__init__(d_model, expand_dim, **kw)
        from ..dynamics.lru_init import lru_ring_init
        ring = lru_ring_init(expand_dim, r_min, r_max, max_phase, seed)
        self.nu_log = nn.Parameter(torch.tensor(ring.nu_log, dtype=torch.float32))
        self.theta_log = nn.Parameter(torch.tensor(ring.theta_log, dtype=torch.float32))
        self.gamma_log = nn.Parameter(torch.tensor(ring.gamma_log, dtype=torch.float32))
        self.B = nn.Parameter(torch.randn(expand_dim, d_model, dtype=torch.complex64) / math.sqrt(2 * d_model))
        self.C = nn.Parameter(torch.randn(d_model, expand_dim, dtype=torch.complex64) / math.sqrt(expand_dim))
        self.D = nn.Parameter(torch.randn(d_model))
        self.out_proj = linear(d_model, d_model)

    def eigenvalue_params(self):
        return torch.exp(torch.complex(-torch.exp(self.nu_log), torch.exp(self.theta_log)))   # (n,)

    def states(self, x):
        T, cdt = x.shape[1], complex_dtype(x)
        lam = self.eigenvalue_params().to(cdt).unsqueeze(-1)                      # (n, 1)
        drive = x.to(cdt) @ self.B.to(cdt).T * torch.exp(self.gamma_log).to(cdt)   # γ ⊙ B x_t  (B, T, n)
        ones = torch.ones(1, 1, T, 1, dtype=x.dtype, device=x.device)
        return EOSStates(i=ones, e=drive.unsqueeze(1), o=lam, s=along_time(self.C.to(cdt), T), layout="channels")

    def readout(self, y, x):
        return self.out_proj(y + self.D * x)

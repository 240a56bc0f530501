"""A layer built from an LCSM model code e-o-s-a: the paper's ablation family.

i = W_v x (d = d_model); e, s: data-dependent projections of x or learned
vectors (k = expand_dim), both passed through activation a; o from Table 3:
data-dependent parts are sigmoid(W x)^(1/τ), data-independent parts are learned
decays exp(−exp(r)) initialised ALiBi-style, code 10 is ones, code 11 exp(iΘ).
"""
from __future__ import annotations

import torch
from torch import nn

from ..activations import activation
from ..codes import ModelCode, parse_code
from .base import EOSLayer, EOSStates, VariantInfo, alibi_decays, data_dependent_decay, linear
from .registry import VARIANT_CLASSES

# Which parts each oscillation code has: (static k, static d, static k×d, dd k, dd d, dd k×d)
O_PARTS = {
    0: {"static_kd"}, 1: {"dd_k", "dd_d"}, 2: {"dd_d"}, 3: {"dd_k"}, 4: {"static_k"}, 5: {"static_d"},
    6: {"static_k", "dd_kd"}, 7: {"static_d", "dd_kd"}, 8: {"static_k", "dd_d"}, 9: {"dd_k", "static_d"},
    10: set(), 11: {"phase_k"},
}


def rate_log_init(n: int) -> torch.Tensor:
    """r with exp(−exp(r)) = ALiBi decays."""
    return torch.log(-torch.log(alibi_decays(n)))


class CodedLayer(EOSLayer):
    def __init__(self, d_model, expand_dim, *, code: ModelCode, tau: float = 16.0, **kw):
        super().__init__(d_model, expand_dim, **kw)
        if not tau > 0:
            raise ValueError(f"tau must be positive, got {tau}")
        self.code, self.tau = code, float(tau)
        k, d = expand_dim, d_model
        self.info = VariantInfo(f"code {code}", f"LCSM {code}", "model code", "v_t", "k_t" if code.e else "k",
                                f"Table 3 code {code.o}", "q_t" if code.s else "q", "elementwise",
                                ", ".join(n for n, dd in (("e", code.e), ("o", code.o in (1, 2, 3, 6, 7, 8, 9)),
                                                           ("s", code.s)) if dd), code.describe())
        self.phi = activation(code.a)
        self.v_proj = linear(d, d)
        self.out_proj = linear(d, d)
        self.k_proj = linear(d, k) if code.e else None
        self.k_static = None if code.e else nn.Parameter(torch.randn(k) * k ** -0.5)
        self.q_proj = linear(d, k) if code.s else None
        self.q_static = None if code.s else nn.Parameter(torch.randn(k) * k ** -0.5)
        parts = O_PARTS[code.o]
        self.rate_k = nn.Parameter(rate_log_init(k)) if "static_k" in parts else None
        self.rate_d = nn.Parameter(rate_log_init(d)) if "static_d" in parts else None
        self.rate_kd = nn.Parameter(rate_log_init(k).unsqueeze(-1).repeat(1, d)) if "static_kd" in parts else None
        self.gate_k = linear(d, k, bias=True) if "dd_k" in parts else None
        self.gate_d = linear(d, d, bias=True) if "dd_d" in parts else None
        self.gate_kd = linear(d, k * d, bias=True) if "dd_kd" in parts else None
        self.phase = nn.Parameter(10000.0 ** (-torch.arange(k, dtype=torch.float32) / k)) if "phase_k" in parts \
            else None

    def oscillation(self, x: torch.Tensor) -> torch.Tensor:
        """o broadcastable to (B, T, k, d)."""
        k, d = self.expand_dim, self.d_model
        if self.code.o == 10:
            return torch.ones(1, 1, dtype=x.dtype, device=x.device)
        if self.code.o == 11:
            theta = self.phase.to(x.dtype)
            return torch.polar(torch.ones_like(theta), theta).unsqueeze(-1)        # (k, 1) complex
        static = lambda r: torch.exp(-torch.exp(r)).to(x.dtype)
        o = torch.ones(1, 1, dtype=x.dtype, device=x.device)
        if self.rate_kd is not None:
            o = o * static(self.rate_kd)                                           # (k, d)
        if self.rate_k is not None:
            o = o * static(self.rate_k).unsqueeze(-1)                              # (k, 1)
        if self.rate_d is not None:
            o = o * static(self.rate_d).unsqueeze(0)                               # (1, d)
        if self.gate_k is not None:
            o = o * data_dependent_decay(self.gate_k(x), self.tau).unsqueeze(-1)   # (B, T, k, 1)
        if self.gate_d is not None:
            o = o * data_dependent_decay(self.gate_d(x), self.tau).unsqueeze(-2)   # (B, T, 1, d)
        if self.gate_kd is not None:
            o = o * data_dependent_decay(self.gate_kd(x), self.tau).unflatten(-1, (k, d))
        return o

    def states(self, x):
        B, T, _ = x.shape
        k = self.expand_dim
        along = lambda p: p.to(x.dtype).expand(B, T, k)
        e = self.phi(self.k_proj(x) if self.k_proj is not None else along(self.k_static))
        s = self.phi(self.q_proj(x) if self.q_proj is not None else along(self.q_static)) * k ** -0.5
        return EOSStates(i=self.v_proj(x), e=e, o=self.oscillation(x), s=s)


def build_layer_from_code(code: str, d_model: int, expand_dim: int, tau: float = 16.0, **options) -> EOSLayer:
    """A layer for an LCSM model code "e-o-s-a" (or "0": the SSM parameterization, a DSS layer: one SISO SSM
    per channel, with its own Δ, B and C, so "0" has more parameters than 0-0-0-0, as in LCSM Table 5)."""
    parsed = parse_code(code)
    if parsed.is_ssm:
        return VARIANT_CLASSES["dss"](d_model, expand_dim, **options)
    return CodedLayer(d_model, expand_dim, code=parsed, tau=tau, **options)

"""A stand-in for the core's variant registry, used only by these tests and only while
`lcsm_core.build_layer` does not exist yet: a GLA-like layer on `eos_scan`."""
from __future__ import annotations

import torch
from torch import nn

import lcsm_core


class StandInGLA(nn.Module):
    """x (B, T, d) → y (B, T, d); o_t = sigmoid(W x_t)^(1/τ) per expand row (k, 1)."""

    def __init__(self, d_model: int, expand_dim: int, tau: float = 16.0, form: str = "auto", **_):
        super().__init__()
        self.q = nn.Linear(d_model, expand_dim, bias=False)
        self.k = nn.Linear(d_model, expand_dim, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.g = nn.Linear(d_model, expand_dim)
        self.out = nn.Linear(d_model, d_model, bias=False)
        self.tau, self.form, self.scale = tau, form, expand_dim ** -0.5

    def oscillation(self, x):                                        # (B, T, k, 1)
        return torch.sigmoid(self.g(x)).pow(1 / self.tau).unsqueeze(-1)

    def forward(self, x):
        y = lcsm_core.eos_scan(self.v(x), self.k(x) * self.scale, self.oscillation(x), self.q(x), form=self.form)
        return self.out(y)

    @torch.no_grad()
    def eigenvalues(self, x):
        return self.oscillation(x).mean(dim=(0, 1)).flatten().to(torch.complex64).cpu()


def parse_code(code: str):
    parts = code.strip().split("-")
    if code.strip() != "0" and (len(parts) != 4 or not all(p.strip().isdigit() for p in parts)):
        raise ValueError(f"malformed model code {code!r}")
    if len(parts) == 4 and int(parts[1]) > 11:
        raise ValueError(f"o type must be 0..11, got {parts[1]}")
    return parts


def install() -> bool:
    """Put the stand-in on `lcsm_core` when the real registry is missing; True if installed."""
    if hasattr(lcsm_core, "build_layer"):
        return False
    lcsm_core.VARIANTS = ("gla",)
    lcsm_core.build_layer = lambda name, d_model, expand_dim, **opt: StandInGLA(d_model, expand_dim, **opt)
    lcsm_core.build_layer_from_code = lambda code, d_model, expand_dim, tau=16.0: (
        parse_code(code), StandInGLA(d_model, expand_dim, tau=tau))[1]
    lcsm_core.parse_code = parse_code
    return True

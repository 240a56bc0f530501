"""Data-dependent decays: Mamba, GLA / GateLoop, DUR / GFW, HGRN / LRN, RWKV4."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ..scan.structured import Outer
from .attention import QKVLayer
from .base import EOSLayer, EOSStates, VariantInfo, check_tau, data_dependent_decay, linear
from .oscillation import channel_bank, cols_d, one, qkv, rows_k
from .registry import register


@register
class GLA(QKVLayer):
    info = VariantInfo("gla", "GLA / GateLoop", "gated linear attention", "v_t", "k_t", "g_t 1_dᵀ", "q_t",
                       "elementwise", "e, o, s", "g_t = sigmoid(W x_t)^(1/τ)",
                       oscillation_shape=qkv(rows_k, one, True, built_from=1, extra_k=7))

    def __init__(self, d_model, expand_dim, *, tau: float = 16.0, **kw):
        super().__init__(d_model, expand_dim, **kw)
        self.tau = check_tau(tau)
        self.gate_proj = linear(d_model, expand_dim, bias=True)

    def states(self, x):
        q, k, v = self.qkv(x)
        g = data_dependent_decay(self.gate_proj(x), self.tau)          # (B, T, k)
        return EOSStates(i=v, e=k, o=g.unsqueeze(-1), s=q)


@register
class DUR(GLA):
    info = VariantInfo("dur", "DUR / GFW", "gated linear attention", "v_t", "k_t", "g_t ḡ_tᵀ", "q_t",
                       "elementwise", "e, o, s", "decay on both the key and the value side",
                       oscillation_shape=qkv(rows_k, cols_d, True, built_from=1, extra_k=7, extra_d=3,
                                             structure="outer"))

    def __init__(self, d_model, expand_dim, **kw):
        super().__init__(d_model, expand_dim, **kw)
        self.value_gate_proj = linear(d_model, d_model, bias=True)

    def states(self, x):
        q, k, v = self.qkv(x)
        g = data_dependent_decay(self.gate_proj(x), self.tau)          # (B, T, k)
        g_bar = data_dependent_decay(self.value_gate_proj(x), self.tau)  # (B, T, d)
        return EOSStates(i=v, e=k, o=Outer(g, g_bar), s=q)               # g ḡᵀ by its factors, never (B, T, k, d)


@register
class Mamba(EOSLayer):
    """The selective SSM of Mamba (the short causal convolution is left out: the EOS part is the lesson)."""

    info = VariantInfo("mamba", "Mamba", "selective SSM", "Δ_t ⊙ u_t", "B_t", "A_t = exp(Δ_t A)", "C_t",
                       "elementwise", "e, o, s", "Δ_t = softplus(W_Δ u_t + b), A = −exp(A_log)",
                       oscillation_shape=qkv(rows_k, cols_d, True, built_from=1, extra_k=2, extra_d=12))

    def __init__(self, d_model, expand_dim, **kw):
        super().__init__(d_model, expand_dim, **kw)
        d, n = d_model, expand_dim
        self.in_proj = linear(d, 2 * d)                                # u and the gate z
        self.delta_proj = linear(d, d, bias=True)
        self.B_proj = linear(d, n)
        self.C_proj = linear(d, n)
        dt = torch.exp(torch.rand(d) * (math.log(0.1) - math.log(0.001)) + math.log(0.001))
        with torch.no_grad():
            self.delta_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))   # softplus⁻¹(dt)
        self.A_log = nn.Parameter(torch.log(torch.arange(1, n + 1, dtype=torch.float32)).unsqueeze(-1).repeat(1, d))
        self.D = nn.Parameter(torch.ones(d))
        self.out_proj = linear(d, d)

    def parts(self, x):
        u, z = self.in_proj(x).chunk(2, dim=-1)
        delta = F.softplus(self.delta_proj(u))                         # (B, T, d)
        A = -torch.exp(self.A_log)                                     # (n, d)
        return u, z, delta, A

    def states(self, x):
        u, _, delta, A = self.parts(x)
        o = torch.exp(delta.unsqueeze(-2) * A)                         # (B, T, n, d)
        return EOSStates(i=delta * u, e=self.B_proj(u), o=o, s=self.C_proj(u))

    def forward(self, x):
        self.check_input(x)
        u, z, _, _ = self.parts(x)
        y = self.mix(x) + self.D * u
        return self.out_proj(y * F.silu(z))


@register
class HGRN(EOSLayer):
    info = VariantInfo("hgrn", "HGRN / LRN", "gated linear RNN", "i_t", "1 − λ_t", "λ_t", "o_t (output gate)",
                       "elementwise", "e, o, s", "channel-wise: one 1×1 memory per channel",
                       oscillation_shape=channel_bank(one, one, per_step=True, memory=one, extra_d=8))

    def __init__(self, d_model, expand_dim, *, lower_bound: float = 0.0, **kw):
        super().__init__(d_model, expand_dim, **kw)
        if not 0 <= lower_bound < 1:
            raise ValueError(f"lower_bound must be in [0, 1), got {lower_bound}")
        self.lower_bound = float(lower_bound)
        self.input_proj = linear(d_model, d_model)
        self.forget_proj = linear(d_model, d_model, bias=True)
        self.output_gate_proj = linear(d_model, d_model)
        self.out_proj = linear(d_model, d_model)

    def states(self, x):
        lam = self.lower_bound + (1 - self.lower_bound) * torch.sigmoid(self.forget_proj(x))   # (B, T, D)
        per_channel = lambda t: t.transpose(1, 2).unsqueeze(-1)        # (B, T, D) -> (B, D, T, 1)
        return EOSStates(i=per_channel(F.silu(self.input_proj(x))), e=per_channel(1 - lam),
                         o=per_channel(lam).unsqueeze(-1), s=per_channel(torch.sigmoid(self.output_gate_proj(x))),
                         layout="channels")


@register
class RWKV4(EOSLayer):
    info = VariantInfo("rwkv4", "RWKV4 (no denominator)", "linear RNN", "v_t", "exp(k_t)", "exp(−w)", "r_t",
                       "elementwise", "e, s", "channel-wise; w > 0 learned per channel",
                       oscillation_shape=channel_bank(one, one, memory=one, extra_d=6))

    MAX_KEY = 30.0   # exp(k) beyond this overflows fp32 sums; RWKV's denominator would cancel it

    def __init__(self, d_model, expand_dim, **kw):
        super().__init__(d_model, expand_dim, **kw)
        self.key_proj = linear(d_model, d_model, std=d_model ** -0.5 / 4)
        self.value_proj = linear(d_model, d_model)
        self.receptance_proj = linear(d_model, d_model)
        self.w_log = nn.Parameter(torch.linspace(-3.0, 0.5, d_model))  # w = exp(w_log): decays from fast to slow
        self.out_proj = linear(d_model, d_model)

    def states(self, x):
        per_channel = lambda t: t.transpose(1, 2).unsqueeze(-1)        # (B, T, D) -> (B, D, T, 1)
        o = torch.exp(-torch.exp(self.w_log)).to(x.dtype).reshape(-1, 1, 1, 1)   # (D, 1, 1, 1)
        return EOSStates(i=per_channel(self.value_proj(x)),
                         e=per_channel(torch.exp(self.key_proj(x).clamp(max=self.MAX_KEY))),
                         o=o, s=per_channel(torch.sigmoid(self.receptance_proj(x))), layout="channels")

"""Linear attention and its fixed-decay relatives: i = v_t, e = k_t, s = q_t."""
from __future__ import annotations

import math

import torch
from torch import nn

from ..activations import activation
from .base import EOSLayer, EOSStates, VariantInfo, linear
from .oscillation import one, qkv, rows_k
from .registry import register


class QKVLayer(EOSLayer):
    """Shared projections: q, k (expand_dim), v (d_model); q scaled by k^-1/2."""

    feature = "identity"

    def __init__(self, d_model, expand_dim, *, feature: str | None = None, **kw):
        super().__init__(d_model, expand_dim, **kw)
        self.q_proj = linear(d_model, expand_dim)
        self.k_proj = linear(d_model, expand_dim)
        self.v_proj = linear(d_model, d_model)
        self.out_proj = linear(d_model, d_model)
        self.phi = activation(feature or self.feature)

    def qkv(self, x):
        q = self.phi(self.q_proj(x)) * self.expand_dim ** -0.5
        return q, self.phi(self.k_proj(x)), self.v_proj(x)


@register
class LinearAttention(QKVLayer):
    info = VariantInfo("linear_attention", "Linear attention", "linear attention", "v_t", "k_t", "J (ones)", "q_t",
                       "elementwise", "e, s",
                       oscillation_shape=qkv(one, one, False))

    def states(self, x):
        q, k, v = self.qkv(x)
        return EOSStates(i=v, e=k, o=torch.ones(1, 1, dtype=x.dtype, device=x.device), s=q)


@register
class RetNet(QKVLayer):
    info = VariantInfo("retnet", "TNL / RetNet", "linear attention", "v_t", "k_t", "λ J, fixed λ", "q_t",
                       "elementwise", "e, s", "λ is a fixed hyper-parameter, not learned",
                       oscillation_shape=qkv(one, one, False))

    def __init__(self, d_model, expand_dim, *, decay: float = 1 - 2 ** -5, **kw):
        super().__init__(d_model, expand_dim, **kw)
        if not 0 < decay <= 1:
            raise ValueError(f"decay must be in (0, 1], got {decay}")
        self.register_buffer("decay", torch.tensor(float(decay)))

    def states(self, x):
        q, k, v = self.qkv(x)
        return EOSStates(i=v, e=k, o=self.decay.to(x.dtype).reshape(1, 1), s=q)


@register
class Cosformer(QKVLayer):
    info = VariantInfo("cosformer", "Cosformer", "linear attention", "v_t", "k_t", "exp(iθ) J, fixed θ", "q_t",
                       "elementwise", "e, s", "y = Re{m}ᵀq = Σ cos((t−s)θ) v_s k_sᵀ q_t",
                       oscillation_shape=qkv(one, one, False, complex=True))
    feature = "relu"

    def __init__(self, d_model, expand_dim, *, max_len: int = 512, **kw):
        super().__init__(d_model, expand_dim, **kw)
        self.register_buffer("theta", torch.tensor(math.pi / (2 * max_len)))

    def states(self, x):
        q, k, v = self.qkv(x)
        o = torch.polar(torch.ones((), dtype=x.dtype, device=x.device), self.theta.to(x.dtype)).reshape(1, 1)
        return EOSStates(i=v, e=k, o=o, s=q)


@register
class LRPE(QKVLayer):
    info = VariantInfo("lrpe", "LRPE", "linear attention", "v_t", "k_t", "exp(iΘ) 1ᵀ, learned Θ", "q_t",
                       "elementwise", "e, s", "y = Σ v_s k_sᵀ diag(cos((t−s)Θ)) q_t",
                       oscillation_shape=qkv(rows_k, one, False, complex=True))

    def __init__(self, d_model, expand_dim, **kw):
        super().__init__(d_model, expand_dim, **kw)
        j = torch.arange(expand_dim, dtype=torch.float32)
        self.theta = nn.Parameter(10000.0 ** (-j / expand_dim))       # rotary-style frequencies

    def states(self, x):
        q, k, v = self.qkv(x)
        theta = self.theta.to(x.dtype)
        o = torch.polar(torch.ones_like(theta), theta).unsqueeze(-1)  # (k, 1)
        return EOSStates(i=v, e=k, o=o, s=q)

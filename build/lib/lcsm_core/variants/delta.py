"""Online-learner transitions: DeltaNet / FWP, M1–M3 (LCSM Table 7), Longhorn."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from ..scan.structured import DeltaRule, Diagonal
from .attention import QKVLayer
from .base import EOSStates, VariantInfo, linear
from .oscillation import cols_d, one, qkv, rows_k
from .registry import register


@register
class DeltaNet(QKVLayer):
    info = VariantInfo("deltanet", "FWP / DeltaNet", "online learner", "v_t", "β_t k_t", "I − β_t k_t k_tᵀ", "q_t",
                       "matrix", "e, o, s",
                       "eigenvalue 1 − β‖k‖² can fall below −1 (unstable) unless keys are normalized",
                       oscillation_shape=qkv(rows_k, rows_k, True, psi="matrix", extra_k=6, structure="delta"))

    def __init__(self, d_model, expand_dim, *, normalize_keys: bool = True, **kw):
        super().__init__(d_model, expand_dim, **kw)
        self.normalize_keys = bool(normalize_keys)
        self.beta_proj = linear(d_model, 1, bias=True)

    def keys(self, x):
        q, k, v = self.qkv(x)
        if self.normalize_keys:
            k = F.normalize(k, dim=-1)
        return q, k, v, torch.sigmoid(self.beta_proj(x))               # β (B, T, 1)

    def states(self, x):
        q, k, v, beta = self.keys(x)
        return EOSStates(i=v, e=beta * k, o=DeltaRule(k, beta), s=q, psi="matrix")     # I − β k kᵀ, unexpanded


@register
class M1(QKVLayer):
    info = VariantInfo("m1", "M1", "online learner", "v_t", "k_t", "I − k_t k_tᵀ", "q_t", "matrix", "e, o, s",
                       "proposed in LCSM Table 7",
                       oscillation_shape=qkv(rows_k, rows_k, True, psi="matrix", structure="delta"))

    def states(self, x):
        q, k, v = self.qkv(x)
        return EOSStates(i=v, e=k, o=DeltaRule(k), s=q, psi="matrix")                  # I − k kᵀ


@register
class M2(QKVLayer):
    """Table 7 prints M2's oscillation as I_k − k_t k̄_tᵀ and never defines k̄_t (the Markdown rendering drops the
    bar and repeats M1). Every reading has eigenvalues 1 and 1 − k̄ᵀk, stable only while 0 ≤ k̄ᵀk ≤ 2: k̄ = k/‖k‖
    needs ‖k‖ ≤ 2, a second projection k̄ = W̄x needs a constraint and is not symmetric. Built here: the unit key
    in both places and as the expand state, FWP's delta rule with β = 1 — a projection, stable for every input.
    The errata list the ambiguity (`lcsm-table7-m2`)."""

    info = VariantInfo("m2", "M2", "online learner", "v_t", "k̂_t", "I − k̂_t k̂_tᵀ, k̂ = k/‖k‖", "q_t", "matrix",
                       "e, o, s", "Table 7 prints I − k k̄ᵀ and never defines k̄; read here with unit keys, a "
                       "projection (stable)",
                       oscillation_shape=qkv(rows_k, rows_k, True, psi="matrix", extra_k=6, structure="delta"))

    def states(self, x):
        q, k, v = self.qkv(x)
        k = F.normalize(k, dim=-1)
        return EOSStates(i=v, e=k, o=DeltaRule(k), s=q, psi="matrix")                  # I − k̂ k̂ᵀ


@register
class M3(QKVLayer):
    info = VariantInfo("m3", "M3", "online learner", "v_t", "k_t", "I − Diag{k_t}", "q_t", "matrix", "e, o, s",
                       "proposed in LCSM Table 7; k_t = sigmoid(·) keeps 1 − k in (0, 1)",
                       oscillation_shape=qkv(rows_k, one, True, built_from=1))   # diag(1 − k) runs as 1 − k
    feature = "sigmoid"

    def states(self, x):
        q, k, v = self.qkv(x)
        return EOSStates(i=v, e=k, o=Diagonal(1 - k), s=q, psi="matrix")               # I − Diag{k_t}, unexpanded


@register
class Longhorn(QKVLayer):
    info = VariantInfo("longhorn", "Longhorn", "online learner", "ε_t ⊙ x_t", "k_t", "1 − (k_t⊙k_t) ε_tᵀ", "q_t",
                       "elementwise", "e, o, s", "ε_t = β_t / (1 + β_t k_tᵀk_t), β_t = sigmoid(W x_t)",
                       oscillation_shape=qkv(rows_k, cols_d, True, built_from=2, extra_k=6, extra_d=4))

    def __init__(self, d_model, expand_dim, **kw):
        super().__init__(d_model, expand_dim, **kw)
        self.beta_proj = linear(d_model, d_model, bias=True)

    def states(self, x):
        q, k, v = self.qkv(x)
        beta = torch.sigmoid(self.beta_proj(x))                          # (B, T, d)
        k_sq = k * k                                                     # (B, T, n)
        norm_sq = k_sq.sum(-1, keepdim=True)                             # kᵀk  (B, T, 1)
        eps = beta / (1 + beta * norm_sq)                                # (B, T, d)
        # 1 − k_n² ε_c written as (1 + β_c(‖k‖² − k_n²)) / (1 + β_c‖k‖²): positive in floating point too
        num = 1 + beta.unsqueeze(-2) * (norm_sq.unsqueeze(-1) - k_sq.unsqueeze(-1))
        o = num / (1 + beta * norm_sq).unsqueeze(-2)                     # (B, T, n, d)
        return EOSStates(i=eps * v, e=k, o=o, s=q)

"""SSMs as online learners (Longhorn §3): four update rules memorize a stream of key–value pairs.

Each rule is an EOS recurrence with hand-set states (no training), run by the scan's recurrent form:

    linear attention       m_t = m_{t−1} + k_t v_tᵀ
    RetNet (fixed decay)   m_t = γ m_{t−1} + k_t v_tᵀ
    DeltaNet               m_t = (I − β k_t k_tᵀ) m_{t−1} + β k_t v_tᵀ          (ψ = ×)
    Longhorn               m_t = (1 − (k_t⊙k_t) ε_tᵀ) ⊙ m_{t−1} + k_t (ε_t⊙v_t)ᵀ,  ε = β/(1 + β k_tᵀk_t)

The fixed-decay rule is RetNet's row of Longhorn's Table 4 (objective γ‖S − S_{t−1}‖² + (1 − γ)‖S‖² − 2⟨Sk, x⟩);
GLA makes the decay data-dependent, which none of these four rules does.

After every step the memory is asked for every key seen so far (shrink s = k_j);
the recall error is the mean squared distance to the value last stored for that key. The queries share
one memory: `read_every_key` runs the recurrence once and reads every m_t with every key, where an
`eos_scan` with the N queries as a batch would run N copies of the same memory (N× the work; 0.36 s at
N = k = 64, T = 640). Both give the same y (tests/core/test_online_learning_reads.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .divergence import DIVERGENCE_BOUND
from .scan.inputs import output_real, prepare
from .scan.reference import scan_recurrent

RETNET = "RetNet (fixed decay)"
RULES = ("linear attention", RETNET, "DeltaNet", "Longhorn")


@dataclass
class RecallStudy:
    """errors (rules, T) recall error after each step; final_error (rules, N) per key; final_kept (rules, N)
    per key, ⟨final recall, value⟩ / ‖value‖²: how much of its value the memory still returns (1 all, 0 none);
    radius (rules, T) largest |eigenvalue| of each step's transition; diverged_at per rule (step or None)."""

    rules: tuple
    errors: np.ndarray
    final_error: np.ndarray
    final_kept: np.ndarray
    radius: np.ndarray
    diverged_at: dict
    key_order: np.ndarray
    n_keys: int
    key_dim: int
    deltanet_eigenvalue: float     # 1 − β‖k‖², DeltaNet's transition along the key


def key_value_stream(n_keys: int, key_dim: int, value_dim: int, repeats: int, key_scale: float, seed: int):
    """Keys (N, n) with norm `key_scale`, values (N, d), and the presentation order (T,) of the stream."""
    g = torch.Generator().manual_seed(seed)
    keys = torch.randn(n_keys, key_dim, generator=g, dtype=torch.float64)
    keys = keys / keys.norm(dim=-1, keepdim=True) * key_scale
    values = torch.randn(n_keys, value_dim, generator=g, dtype=torch.float64)
    order = torch.cat([torch.randperm(n_keys, generator=g) for _ in range(repeats)])
    return keys, values, order


def rule_states(rule: str, k: torch.Tensor, v: torch.Tensor, beta: float, decay: float):
    """(i, e, o, psi) of one rule for the stream k (T, n), v (T, d)."""
    T, n = k.shape
    if rule == "linear attention":
        return v, k, torch.ones(1, 1, dtype=k.dtype), "elementwise"
    if rule == RETNET:
        return v, k, torch.full((1, 1), decay, dtype=k.dtype), "elementwise"
    if rule == "DeltaNet":
        eye = torch.eye(n, dtype=k.dtype)
        return v, beta * k, eye - beta * k[:, :, None] * k[:, None, :], "matrix"
    if rule == "Longhorn":
        norm_sq = (k * k).sum(-1, keepdim=True)                                  # (T, 1)
        eps = beta / (1 + beta * norm_sq) * torch.ones_like(v)                   # (T, d)
        o = 1 - (k * k)[:, :, None] * eps[:, None, :]                            # (T, n, d)
        return eps * v, k, o, "elementwise"
    raise ValueError(f"rule must be one of {RULES}, got {rule!r}")


def read_every_key(i: torch.Tensor, e: torch.Tensor, o: torch.Tensor, psi: str, keys: torch.Tensor) -> torch.Tensor:
    """y (N, T, d): every step's memory read with every key, y[j, t] = m_tᵀ keys[j] — what
    `eos_scan(i, e, o, keys[:, None, :].expand(N, T, n), psi=psi)` returns, with the recurrence run once.
    i (T, d), e (T, n), o as `rule_states` gives it, keys (N, n)."""
    inp = prepare(i, e, o, e, psi)                        # the shrink is read below, from every memory
    _, _, memories = scan_recurrent(inp, None, keep_memories=True)                  # (T + 1, n, d), m_0 first
    return output_real(torch.einsum("tnd,jn->jtd", memories[1:], keys.to(memories.dtype)))


def transition_radius(o: torch.Tensor, psi: str, T: int) -> torch.Tensor:
    if psi == "matrix":      # a stream repeats its keys: one eigendecomposition per distinct transition
        distinct, inverse = torch.unique(o, dim=0, return_inverse=True)
        return torch.linalg.eigvals(distinct).abs().amax(-1)[inverse]
    return o.abs().reshape(o.shape[0] if o.shape[0] == T else 1, -1).amax(-1).expand(T)


def recall_study(n_keys: int = 8, key_dim: int = 16, value_dim: int = 8, repeats: int = 3, beta: float = 1.0,
                 decay: float = 0.9, key_scale: float = 1.0, seed: int = 0) -> RecallStudy:
    for name, value, lo, hi in (("n_keys", n_keys, 1, 64), ("key_dim", key_dim, 1, 64),
                                ("value_dim", value_dim, 1, 64), ("repeats", repeats, 1, 20)):
        if not lo <= int(value) <= hi:
            raise ValueError(f"{name} must be between {lo} and {hi}, got {value}")
    if not (beta > 0 and 0 < decay <= 1 and key_scale > 0):
        raise ValueError("need beta > 0, 0 < decay ≤ 1 and key_scale > 0")
    keys, values, order = key_value_stream(n_keys, key_dim, value_dim, repeats, key_scale, seed)
    k, v = keys[order], values[order]                                            # (T, n), (T, d)
    T = len(order)
    seen = torch.zeros(n_keys, T, dtype=torch.bool)
    first_seen = {int(j): t for t, j in reversed(list(enumerate(order.tolist())))}
    for j, t in first_seen.items():
        seen[j, t:] = True
    errors, finals, kept, radii, diverged = [], [], [], [], {}
    for rule in RULES:
        i, e, o, psi = rule_states(rule, k, v, beta, decay)
        y = read_every_key(i, e, o, psi, keys)                                   # (N, T, d): every key, every step
        sq = ((y - values[:, None, :]) ** 2).mean(-1)                            # (N, T)
        sq = torch.nan_to_num(sq, nan=DIVERGENCE_BOUND, posinf=DIVERGENCE_BOUND).clamp(max=DIVERGENCE_BOUND)
        per_step = (sq * seen).sum(0) / seen.sum(0).clamp(min=1)
        bad = per_step >= DIVERGENCE_BOUND / n_keys          # at least one key's error reached the bound
        diverged[rule] = int(bad.nonzero()[0]) if bool(bad.any()) else None
        errors.append(per_step.numpy())
        finals.append(sq[:, -1].numpy())
        last = torch.nan_to_num(y[:, -1], nan=0.0, posinf=DIVERGENCE_BOUND, neginf=-DIVERGENCE_BOUND)
        kept.append(((last * values).sum(-1) / (values * values).sum(-1)).numpy())
        radii.append(transition_radius(o, psi, T).numpy())
    return RecallStudy(RULES, np.stack(errors), np.stack(finals), np.stack(kept), np.stack(radii), diverged,
                       order.numpy(), n_keys, key_dim, 1.0 - beta * key_scale ** 2)

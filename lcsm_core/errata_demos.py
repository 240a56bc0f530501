"""Numeric demonstrations of the printed errors listed in `errata.py`, one function each.

Every function takes a seed, draws random fp64 data and returns a `Demonstration`: how far the
printed form lands from an exact computation (or why it cannot be formed at all), how far the
corrected form lands, and a few further numbers the "Check the math" page shows. The exact side is
always computed another way than the two forms it judges: a plain loop of the recurrence as the
paper writes it, the core's `eos_scan`, autograd, or the core's own LRU parameterisation.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from .codes import parse_code
from .dynamics.lru_init import lru_eigenvalues
from .scan import eos_scan
from .variants import build_layer_from_code

K, D, T = 3, 4, 6            # k ≠ d on purpose: a k×k factor where a k×d one belongs cannot hide
FAILS_ABOVE = 1e-3           # a printed form this far from the exact value is not rounding
HOLDS_BELOW = 1e-9           # a corrected form this close to it is exact in fp64


@dataclass(frozen=True)
class Demonstration:
    printed_error: float | None     # largest |printed − exact|; None when the printed form cannot be formed
    printed_failure: str            # why it cannot be formed (the error it raises); "" when it can
    corrected_error: float          # largest |corrected − exact|
    facts: tuple[tuple[str, float], ...] = ()   # further numbers worth showing, (label, value)

    @property
    def printed_fails(self) -> bool:
        return self.printed_error is None or self.printed_error > FAILS_ABOVE

    @property
    def corrected_holds(self) -> bool:
        return self.corrected_error < HOLDS_BELOW


def _draw(seed: int) -> Callable[..., torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)


def _uniform(seed: int, low: float, high: float, *shape) -> torch.Tensor:
    g = torch.Generator().manual_seed(10_000 + seed)
    return low + (high - low) * torch.rand(*shape, generator=g, dtype=torch.float64)


def _attempt(form: Callable[[], torch.Tensor]) -> tuple[torch.Tensor | None, str]:
    """The printed form's value, or None and the error it raises when its shapes do not fit."""
    try:
        return form(), ""
    except (RuntimeError, ValueError) as err:
        return None, str(err).splitlines()[0]


def _gap(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max())


def _loop(transition: Callable[[torch.Tensor], torch.Tensor], i, e, s) -> torch.Tensor:
    """y_t = m_tᵀ s_t with m_t = transition(m_{t−1}) + e_t i_tᵀ, written out step by step."""
    m = torch.zeros(e.shape[-1], i.shape[-1], dtype=torch.float64)
    ys = []
    for t in range(i.shape[0]):
        m = transition(m) + torch.outer(e[t], i[t])
        ys.append(m.T @ s[t])
    return torch.stack(ys)


# --- the MNet note --------------------------------------------------------------------------------
def new_memory_outer_product(seed: int) -> Demonstration:
    """m̄_t = e_t i_tᵀ: what step t adds to the memory of the core's recurrence."""
    r = _draw(seed)

    def added_at_step_2(i, e, o, s):
        _, m1 = eos_scan(i[:1], e[:1], o[:1], s[:1], return_state=True)
        _, m2 = eos_scan(i[:2], e[:2], o[:2], s[:2], return_state=True)
        return m2 - o[1] * m1

    i, e, o, s = r(2, D), r(2, K), r(2, K, D), r(2, K)
    added = added_at_step_2(i, e, o, s)
    printed, failure = _attempt(lambda: e[1] @ i[1])                          # e_tᵀ i_t with k ≠ d
    corrected = torch.outer(e[1], i[1])
    i_sq, e_sq, o_sq, s_sq = r(2, K), r(2, K), r(2, K, K), r(2, K)            # k = d: the product exists…
    scalar = e_sq[1] @ i_sq[1]                                               # …but is one number
    return Demonstration(None if printed is None else _gap(printed, added), failure, _gap(corrected, added),
                         (("k = d: the printed eₜᵀiₜ is a scalar; its distance from the new memory",
                           _gap(scalar, added_at_step_2(i_sq, e_sq, o_sq, s_sq))),))


# --- the LCSM paper -------------------------------------------------------------------------------
def diagonal_as_elementwise(seed: int) -> Demonstration:
    """Eq. (9): diag(ō) m = (ō 1ᵀ) ⊙ m — the ones vector must have the memory's width d."""
    r = _draw(seed)
    i, e, s, o_bar = r(T, D), r(T, K), r(T, K), _uniform(seed, 0.2, 1.0, K)
    exact = _loop(lambda m: torch.diag(o_bar) @ m, i, e, s)
    printed, failure = _attempt(lambda: eos_scan(i, e, torch.outer(o_bar, torch.ones(K, dtype=torch.float64)), s))
    corrected = eos_scan(i, e, torch.outer(o_bar, torch.ones(D, dtype=torch.float64)), s)
    i_sq = r(T, K)
    square = eos_scan(i_sq, e, torch.outer(o_bar, torch.ones(K, dtype=torch.float64)), s)
    return Demonstration(None if printed is None else _gap(printed, exact), failure, _gap(corrected, exact),
                         (("k = d: the printed form happens to agree, error",
                           _gap(square, _loop(lambda m: torch.diag(o_bar) @ m, i_sq, e, s))),
                          ("ψ = × with Diag(ō) through the core, error",
                           _gap(eos_scan(i, e, torch.diag(o_bar), s, psi="matrix"), exact))))


def retnet_oscillation_shape(seed: int) -> Demonstration:
    """Table 1, TNL/RetNet: [kv]_t = λ[kv]_{t−1} + k_t v_tᵀ needs an oscillation of the memory's shape k×d."""
    r = _draw(seed)
    v, k, q = r(T, D), r(T, K), r(T, K)
    lam = float(_uniform(seed, 0.5, 0.99, 1))
    exact = _loop(lambda m: lam * m, v, k, q)
    printed, failure = _attempt(lambda: eos_scan(v, k, lam * torch.ones(K, K, dtype=torch.float64), q))
    corrected = eos_scan(v, k, lam * torch.ones(K, D, dtype=torch.float64), q)
    return Demonstration(None if printed is None else _gap(printed, exact), failure, _gap(corrected, exact),
                         (("decay λ", lam),))


def _rotating(seed: int):
    """Data and angles for Cosformer (one fixed θ) and LRPE (learned θ_1..θ_k), and both recurrences."""
    r = _draw(seed)
    v, k, q = r(T, D), r(T, K), r(T, K)
    theta = float(_uniform(seed, 0.3, 2.8, 1))
    thetas = _uniform(seed + 1, 0.3, 2.8, K)
    one = torch.ones((), dtype=torch.float64)
    cosformer = eos_scan(v, k, torch.polar(one, torch.tensor(theta, dtype=torch.float64)), q)      # §2.3
    lrpe = eos_scan(v, k, torch.polar(torch.ones(K, dtype=torch.float64), thetas).unsqueeze(-1), q)  # Eq. (10)
    return v, k, q, theta, thetas, cosformer, lrpe


def _closed_form_14(v, k, q, thetas) -> torch.Tensor:
    """Eq. (14), last lines: y_t = Σ_s v_s k_sᵀ diag(cos((t−s)θ_1..k)) q_t."""
    return torch.stack([sum(v[s] * (k[s] * torch.cos((t - s) * thetas) * q[t]).sum() for s in range(t + 1))
                        for t in range(len(v))])


def _closed_form_15(v, k, q, theta: float) -> torch.Tensor:
    """Eq. (15), last line: y_t = Σ_s cos((t−s)θ) v_s k_sᵀ q_t."""
    return torch.stack([sum(math.cos((t - s) * theta) * v[s] * (k[s] @ q[t]) for s in range(t + 1))
                        for t in range(len(v))])


def appendix_labels(seed: int) -> Demonstration:
    """Appendix 5.3: Eq. (14) derives LRPE's recurrence and Eq. (15) Cosformer's — the labels are swapped."""
    v, k, q, theta, thetas, cosformer, lrpe = _rotating(seed)
    eq14, eq15 = _closed_form_14(v, k, q, thetas), _closed_form_15(v, k, q, theta)
    facts = (("(14) vs Cosformer's recurrence (§2.3)", _gap(eq14, cosformer)),
             ("(14) vs LRPE's recurrence (Eq. 10)", _gap(eq14, lrpe)),
             ("(15) vs LRPE's recurrence (Eq. 10)", _gap(eq15, lrpe)),
             ("(15) vs Cosformer's recurrence (§2.3)", _gap(eq15, cosformer)))
    return Demonstration(max(facts[0][1], facts[2][1]), "", max(facts[1][1], facts[3][1]), facts)


def _sum_over_past(v, k, q, thetas, term) -> torch.Tensor:
    return torch.stack([torch.real(sum(term(v[s], k[s], q[t], torch.diag(torch.polar(torch.ones_like(thetas),
                                                                                         (t - s) * thetas)))
                                       for s in range(t + 1)))
                        for t in range(len(v))])


def appendix_factor_order(seed: int) -> Demonstration:
    """Eq. (14), 3rd line: Λ^{t−s} (k×k) acts on the key side, v_s k_sᵀ Λ^{t−s} q_t, not on v_s (length d)."""
    v, k, q, _, thetas, _, lrpe = _rotating(seed)
    c = lambda x: x.to(torch.complex128)
    printed, failure = _attempt(lambda: _sum_over_past(v, k, q, thetas,
                                                       lambda vs, ks, qt, P: (P @ c(vs)) * (ks @ qt)))
    corrected = _sum_over_past(v, k, q, thetas, lambda vs, ks, qt, P: c(vs) * (c(ks) @ P @ c(qt)))
    r = _draw(seed + 1)
    v_sq = r(T, K)                                                           # k = d: the printed order runs…
    lrpe_sq = eos_scan(v_sq, k, torch.polar(torch.ones(K, dtype=torch.float64), thetas).unsqueeze(-1), q)
    square = _sum_over_past(v_sq, k, q, thetas, lambda vs, ks, qt, P: (P @ c(vs)) * (ks @ qt))
    return Demonstration(None if printed is None else _gap(printed, lrpe), failure, _gap(corrected, lrpe),
                         (("k = d: the printed order runs but misses the recurrence by", _gap(square, lrpe_sq)),))


def data_dependent_states(seed: int) -> Demonstration:
    """§3.1: in the coded layer 1-1-0-0, which of e, o, s change when the input changes?"""
    code = parse_code("1-1-0-0")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layer = build_layer_from_code(str(code), d_model=D, expand_dim=K).double()
        x = torch.randn(1, T, D, dtype=torch.float64)
        nudged = x + torch.randn(1, T, D, dtype=torch.float64)
    with torch.no_grad():
        before, after = layer.states(x), layer.states(nudged)
    change = {name: _gap(getattr(before, name).expand_as(getattr(after, name)), getattr(after, name))
              for name in ("e", "o", "s")}
    moved = {name for name, size in change.items() if size > HOLDS_BELOW}
    miss = lambda claim: float(len(set(claim) ^ moved))                       # states labelled wrongly
    return Demonstration(miss({"o", "s"}), "", miss({"e", "o"}),
                         tuple((f"change in {name} when x changes", size) for name, size in change.items())
                         + (("code field e", float(code.e)), ("code field s", float(code.s))))


# --- the Longhorn paper -----------------------------------------------------------------------------
def gla_objective_sign(seed: int) -> Demonstration:
    """Table 4, GLA: the minimiser of the objective must be GLA's update S_{t−1} diag(α_t) + x_t k_tᵀ."""
    r = _draw(seed)
    S_prev, k, x = r(D, K), r(K), r(D)
    alpha = _uniform(seed, 0.1, 1.0, K)
    gla = S_prev @ torch.diag(alpha) + torch.outer(x, k)

    def objective(S, sign):
        return ((S - S_prev @ torch.diag(alpha)) ** 2).sum() + sign * 2 * (x @ S @ k)

    def gradient(S, sign):
        S = S.clone().requires_grad_()
        return torch.autograd.grad(objective(S, sign), S)[0]

    def minimiser(sign):                     # a quadratic with Hessian 2I: one Newton step lands on its minimum
        start = r(D, K)
        return start - gradient(start, sign) / 2

    return Demonstration(_gap(minimiser(+1), gla), "", _gap(minimiser(-1), gla),
                         (("printed objective: largest gradient at GLA's update", float(gradient(gla, +1).abs().max())),
                          ("corrected objective: largest gradient at GLA's update",
                           float(gradient(gla, -1).abs().max()))))


# --- the LRU article --------------------------------------------------------------------------------
def lru_decay_sign(seed: int) -> Demonstration:
    """λ_j = e^{−ν_j + iθ_j} with ν_j = exp(ν_log) > 0, as the core parameterises the LRU."""
    radius = _uniform(seed, 0.4, 0.99, K).numpy()            # the LRU's ring: r_min = 0.4, r_max = 0.99
    nu_log = np.log(-np.log(radius))
    theta_log = _draw(seed)(K).numpy()
    nu, theta = np.exp(nu_log), np.exp(theta_log)
    core = lru_eigenvalues(nu_log, theta_log)
    printed, corrected = np.exp(nu + 1j * theta), np.exp(-nu + 1j * theta)
    return Demonstration(float(np.abs(printed - core).max()), "", float(np.abs(corrected - core).max()),
                         (("smallest |λ| as printed", float(np.abs(printed).min())),
                          ("largest |λ| corrected", float(np.abs(corrected).max())),
                          ("largest |λ|¹⁰⁰ as printed: a state after 100 steps", float(np.abs(printed).max() ** 100))))


def dss_oscillation(seed: int) -> Demonstration:
    """Table 1, DSS: m_t = Diag(a) m_{t−1} + B u_tᵀ; a 1_kᵀ with ψ = × sums the memory's rows instead."""
    r = _draw(seed)
    u, B, C = r(T, D), r(K).expand(T, K), r(K).expand(T, K)                  # B and C are fixed in time
    a = _uniform(seed, 0.2, 1.0, K)
    exact = _loop(lambda m: torch.diag(a) @ m, u, B, C)
    printed = eos_scan(u, B, torch.outer(a, torch.ones(K, dtype=torch.float64)), C, psi="matrix")
    corrected = eos_scan(u, B, torch.outer(a, torch.ones(D, dtype=torch.float64)), C)
    return Demonstration(_gap(printed, exact), "", _gap(corrected, exact),
                         (("ψ = × with Diag(a) through the core, error",
                           _gap(eos_scan(u, B, torch.diag(a), C, psi="matrix"), exact)),))

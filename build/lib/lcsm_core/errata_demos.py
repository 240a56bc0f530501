"""Numeric checks of the printed errors listed in `errata.py`, one function each.

Every function takes a seed, draws random fp64 data and returns a `Demonstration`: how far the printed form
lands from the truth (or why it cannot be formed at all), how far the corrected form lands, and a few further
numbers the "Check the math" page shows. The truth is always computed another way than the forms it judges,
and never with the code a card is about: a plain loop of the recurrence as the source writes it (numpy or
torch, step by step), an eigen-decomposition with numpy.linalg, the exact discretisation of a damped spring
(its matrix exponential as a power series), autograd, or numbers the same paper prints in another table.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from .dynamics.spring import spring_matrices
from .scan import eos_scan
from .variants import build_layer

K, D, T = 3, 4, 6            # k ≠ d on purpose: a k×k factor where a k×d one belongs cannot hide
FAILS_ABOVE = 1e-3           # a printed form this far from the truth is not rounding
HOLDS_BELOW = 1e-9           # a corrected form this close to it is exact in fp64


@dataclass(frozen=True)
class Demonstration:
    printed_error: float | None = None     # largest |printed − truth|; None when the printed form cannot be formed
    printed_failure: str = ""              # why it cannot be formed (the error it raises); "" when it can
    corrected_error: float | None = None   # largest |corrected − truth|; None when there is nothing to compute
    facts: tuple[tuple[str, float], ...] = ()   # further numbers worth showing, (label, value)
    table: tuple[dict, ...] = ()                # rows worth showing side by side (one per reading of a symbol)

    @property
    def printed_fails(self) -> bool:
        return self.printed_error is None or self.printed_error > FAILS_ABOVE

    @property
    def printed_holds(self) -> bool:
        return self.printed_error is not None and self.printed_error < HOLDS_BELOW

    @property
    def corrected_holds(self) -> bool:
        return self.corrected_error is not None and self.corrected_error < HOLDS_BELOW


def _draw(seed: int) -> Callable[..., torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)


def _uniform(seed: int, low: float, high: float, *shape) -> torch.Tensor:
    g = torch.Generator().manual_seed(10_000 + seed)
    return low + (high - low) * torch.rand(*shape, generator=g, dtype=torch.float64)


def _attempt(form: Callable[[], torch.Tensor | np.ndarray]) -> tuple[torch.Tensor | np.ndarray | None, str]:
    """The printed form's value, or None and the error torch or numpy raise when its shapes do not fit."""
    try:
        return form(), ""
    except (RuntimeError, ValueError) as err:
        return None, str(err).splitlines()[0]


def _gap(a, b) -> float:
    return float(np.abs(np.asarray(a) - np.asarray(b)).max())


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


def _rotating_data(seed: int):
    """v (T, d), k (T, k), q (T, k) as numpy arrays; Cosformer's one angle θ and LRPE's k angles θ_1..θ_k."""
    r = _draw(seed)
    v, k, q = r(T, D).numpy(), r(T, K).numpy(), r(T, K).numpy()
    theta = float(_uniform(seed, 0.3, 2.8, 1))
    thetas = _uniform(seed + 1, 0.3, 2.8, K).numpy()
    return v, k, q, theta, thetas


def _rotating_memories(k, v, angles) -> list[np.ndarray]:
    """[kv]_t = diag(e^{i·angles}) [kv]_{t−1} + k_t v_tᵀ, step by step (complex k×d memories, one per step)."""
    rotation = np.exp(1j * np.broadcast_to(angles, (k.shape[1],)))
    memory, memories = np.zeros((k.shape[1], v.shape[1]), dtype=complex), []
    for t in range(len(v)):
        memory = rotation[:, None] * memory + np.outer(k[t], v[t])
        memories.append(memory)
    return memories


def _rotating_outputs(v, k, q, angles) -> np.ndarray:
    """y_t = Rel{[kv]_t}ᵀ q_t of Cosformer (one angle, §2.3) or LRPE (k angles, Eq. 10), run as a loop."""
    return np.stack([memory.real.T @ q[t] for t, memory in enumerate(_rotating_memories(k, v, angles))])


def _closed_form_14(v, k, q, thetas) -> np.ndarray:
    """Eq. (14), last lines: y_t = Σ_s v_s k_sᵀ diag(cos((t−s)θ_1..k)) q_t."""
    return np.stack([sum(v[s] * (k[s] * np.cos((t - s) * thetas) * q[t]).sum() for s in range(t + 1))
                     for t in range(len(v))])


def _closed_form_15(v, k, q, theta: float) -> np.ndarray:
    """Eq. (15), last line: y_t = Σ_s cos((t−s)θ) v_s k_sᵀ q_t."""
    return np.stack([sum(np.cos((t - s) * theta) * v[s] * (k[s] @ q[t]) for s in range(t + 1))
                     for t in range(len(v))])


def note_real_part_of_complex_sum(seed: int) -> Demonstration:
    """The note's Cosformer proof sets Rel{[kv]_t} equal to Σ_s e^{i(t−s)θ} k_s v_sᵀ: a real matrix equal to a
    complex one. The sum is [kv]_t itself; its real part is Σ_s cos((t−s)θ) k_s v_sᵀ."""
    v, k, _, theta, thetas = _rotating_data(seed)
    memories = _rotating_memories(k, v, theta)                               # Cosformer's recurrence, as a loop

    def rotated_sum(t, rotation):
        return sum(rotation(t - s) * np.outer(k[s], v[s]) for s in range(t + 1))

    printed = [rotated_sum(t, lambda n: np.exp(1j * n * theta)) for t in range(T)]
    real_part = [rotated_sum(t, lambda n: np.cos(n * theta)) for t in range(T)]
    lrpe = _rotating_memories(k, v, thetas)
    lrpe_printed = [sum(np.exp(1j * (t - s) * thetas)[:, None] * np.outer(k[s], v[s]) for s in range(t + 1))
                    for t in range(T)]
    return Demonstration(max(_gap(p, m.real) for p, m in zip(printed, memories)), "",
                         max(max(_gap(p, m) for p, m in zip(printed, memories)),
                             max(_gap(c, m.real) for c, m in zip(real_part, memories))),
                         (("largest |imaginary part| of the printed sum",
                           max(float(np.abs(p.imag).max()) for p in printed)),
                          ("the Lrpe explanation's same line, Rel{[kv]ₜ} = Σ Λᵗ⁻ˢ kₛvₛᵀ: error",
                           max(_gap(p, m.real) for p, m in zip(lrpe_printed, lrpe)))))


def note_mamba_forget_shape(seed: int) -> Demonstration:
    """The note's Mamba row: a forget state A_t ∈ R^{k×k} with an element-wise product cannot act on the note's
    k×d memory; with A_t ∈ R^{k×d} the recurrence is d selective SSMs, one per channel, each with its own decays."""
    r = _draw(seed)
    u, B, C = r(T, D), r(T, K), r(T, K)
    A = _uniform(seed, 0.2, 0.99, T, K, D)                                   # data-dependent decays in (0, 1)
    channels = np.zeros((T, D))
    for j in range(D):                                                       # channel j: h ← a_t ⊙ h + B_t u_tj
        h = np.zeros(K)
        for t in range(T):
            h = A[t, :, j].numpy() * h + B[t].numpy() * float(u[t, j])
            channels[t, j] = C[t].numpy() @ h
    A_square = _uniform(seed + 1, 0.2, 0.99, T, K, K)                        # A_t ∈ R^{k×k}, as printed
    printed, failure = _attempt(lambda: _loop_with_forget(A_square, u, B, C))
    corrected = eos_scan(u, B, A, C)                                         # A_t ∈ R^{k×d}, ψ = ⊙, memory k×d
    return Demonstration(None if printed is None else _gap(printed, channels), failure, _gap(corrected, channels))


def _loop_with_forget(A, u, B, C) -> torch.Tensor:
    """m_t = A_t ⊙ m_{t−1} + B_t u_tᵀ, y_t = m_tᵀ C_t on the note's k×d memory, step by step."""
    m, ys = torch.zeros(B.shape[-1], u.shape[-1], dtype=torch.float64), []
    for t in range(len(u)):
        m = A[t] * m + torch.outer(B[t], u[t])
        ys.append(m.T @ C[t])
    return torch.stack(ys)


# --- the LCSM paper -------------------------------------------------------------------------------
def diagonal_as_elementwise(seed: int) -> Demonstration:
    """Eq. (9): diag(ō) m = (ō 1ᵀ) ⊙ m — the ones vector must have the memory's width d."""
    r = _draw(seed)
    i, e, s, o_bar = r(T, D), r(T, K), r(T, K), _uniform(seed, 0.2, 1.0, K)
    exact = _loop(lambda m: torch.diag(o_bar) @ m, i, e, s)
    ones_k, ones_d = torch.ones(K, dtype=torch.float64), torch.ones(D, dtype=torch.float64)
    printed, failure = _attempt(lambda: _loop(lambda m: torch.outer(o_bar, ones_k) * m, i, e, s))
    corrected = eos_scan(i, e, torch.outer(o_bar, ones_d), s)
    i_sq = r(T, K)
    square = _loop(lambda m: torch.outer(o_bar, ones_k) * m, i_sq, e, s)
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
    printed, failure = _attempt(lambda: _loop(lambda m: lam * torch.ones(K, K, dtype=torch.float64) * m, v, k, q))
    corrected = eos_scan(v, k, lam * torch.ones(K, D, dtype=torch.float64), q)
    return Demonstration(None if printed is None else _gap(printed, exact), failure, _gap(corrected, exact),
                         (("decay λ", lam),))


def appendix_labels(seed: int) -> Demonstration:
    """Appendix 5.3: a naming inconsistency, not a wrong formula. Eq. (14), headed "Cosformer", is written with
    LRPE's Λ = diag{e^{iθ_1..k}} and Eq. (15), headed "LRPE", with Cosformer's one θ; each formula still holds.

    printed_error: each formula under its own heading, with that method's parameters where the formula can take
    them — (14) with Cosformer's one angle (θ_j = θ), (15) with LRPE's angles all equal. corrected_error: the
    notation's own method — (14) with LRPE's k angles, (15) with Cosformer's θ. The truth is each method's
    recurrence run as a loop."""
    v, k, q, theta, thetas = _rotating_data(seed)
    cosformer, lrpe = _rotating_outputs(v, k, q, theta), _rotating_outputs(v, k, q, thetas)
    lrpe_one_angle = _rotating_outputs(v, k, q, np.full(K, theta))
    facts = (("(14) with Cosformer's one angle vs Cosformer's recurrence (§2.3)",
              _gap(_closed_form_14(v, k, q, np.full(K, theta)), cosformer)),
             ("(15) vs LRPE's recurrence with its k angles all equal", _gap(_closed_form_15(v, k, q, theta),
                                                                           lrpe_one_angle)),
             ("(14) with LRPE's k angles vs LRPE's recurrence (Eq. 10)", _gap(_closed_form_14(v, k, q, thetas), lrpe)),
             ("(15) vs Cosformer's recurrence (§2.3)", _gap(_closed_form_15(v, k, q, theta), cosformer)),
             ("(15)'s one θ vs LRPE with k different angles: (15) cannot carry them",
              _gap(_closed_form_15(v, k, q, theta), lrpe)))
    return Demonstration(max(facts[0][1], facts[1][1]), "", max(facts[2][1], facts[3][1]), facts)


def appendix_factor_order(seed: int) -> Demonstration:
    """Eq. (14), 3rd line: Λ^{t−s} (k×k) acts on the key side, v_s k_sᵀ Λ^{t−s} q_t, not on v_s (length d)."""
    v, k, q, _, thetas = _rotating_data(seed)

    def third_line(v, term):
        return np.stack([np.real(sum(term(v[s], k[s], q[t], np.diag(np.exp(1j * (t - s) * thetas)))
                                     for s in range(t + 1))) for t in range(len(v))])

    lrpe = _rotating_outputs(v, k, q, thetas)
    printed, failure = _attempt(lambda: third_line(v, lambda vs, ks, qt, P: (P @ vs) * (ks @ qt)))
    corrected = third_line(v, lambda vs, ks, qt, P: vs * (ks @ P @ qt))
    v_sq = _draw(seed + 1)(T, K).numpy()                                     # k = d: the printed order runs…
    square = third_line(v_sq, lambda vs, ks, qt, P: (P @ vs) * (ks @ qt))
    return Demonstration(None if printed is None else _gap(printed, lrpe), failure, _gap(corrected, lrpe),
                         (("k = d: the printed order runs but misses the recurrence by",
                           _gap(square, _rotating_outputs(v_sq, k, q, thetas))),))


# Tables 4, 5, 6 and 9 of the LCSM paper (WikiText-103), as printed: (code, valid ppl, test ppl, parameters in M)
TABLE4_DATA_DEPENDENCE = (("0-0-0-0", 29.62, 30.5, 43.45), ("0-0-0-0", 28.26, 29.1, 43.45),
                          ("0-0-1-0", 28.23, 29.07, 43.45), ("0-1-0-0", 25.89, 26.61, 44.04),
                          ("0-1-1-0", 25.36, 26.21, 44.04), ("1-0-0-0", 27.94, 28.77, 43.45),
                          ("1-0-1-0", 26.12, 26.65, 43.45), ("1-1-0-0", 24.24, 24.91, 44.04),
                          ("1-1-1-0", 24.26, 24.75, 44.04))
TABLE4_O_TYPES_1_10 = ("1-10-1-0", 29.91, 30.31, 43.45)
TABLE5_PARAMETERIZATION = (("0", 27.41, 27.99, 43.78), ("1-1-1-0", 24.26, 24.75, 44.04))
TABLE6_ACTIVATION = (("1-1-1-0", 24.26, 24.75, 44.04), ("1-1-1-0", 23.78, 24.97, 46.07),
                     ("1-1-1-1", 22.85, 23.3, 46.07), ("1-1-1-2", 23.04, 23.61, 46.07),
                     ("1-1-1-3", 22.92, 23.47, 46.07), ("1-1-1-4", 22.73, 23.22, 46.07),
                     ("1-1-1-5", 23.31, 23.7, 46.07), ("1-1-1-6", 22.8, 23.32, 46.07),
                     ("1-1-1-7", 23.77, 23.91, 46.07))
TABLE6_TAU_16 = ("1-1-1-0", 24.26, 24.75, 44.04)    # Table 6 (right): the default τ = 16 of 1-1-1-0
TABLE9_1_10_1_0 = ("1-10-1-0", 29.91, 30.31, 43.45)


def _code_fields(code: str) -> dict[str, int]:
    """A model code as §2.5 defines it, read field by field: 'e-o-s-a'."""
    return dict(zip("eosa", map(int, code.split("-"))))


def _dependent_states(code: str) -> frozenset:
    """The states of e, o, s a Table 4 (left) code makes data-dependent: the fields that are not 0."""
    return frozenset(name for name, value in _code_fields(code).items() if name != "a" and value)


def data_dependent_states(seed: int) -> Demonstration:
    """§3.1: "the combination of o and s (1-1-0-0) proves to be the most effective" of the two-state codes, in
    Table 4's own test perplexities: the best two-state code is 1-1-0-0, whose data-dependent states are e and o.
    (The seed is unused: these are the paper's numbers.)"""
    rows = {code: test for code, _, test, _ in TABLE4_DATA_DEPENDENCE}
    two_state = {code: test for code, test in rows.items() if len(_dependent_states(code)) == 2}
    best = min(two_state.values())
    by_states = {_dependent_states(code): code for code in two_state}
    printed, corrected = by_states[frozenset("os")], by_states[frozenset("eo")]
    return Demonstration(two_state[printed] - best, "", two_state[corrected] - best,
                         tuple((f"test ppl of {code} (data-dependent {', '.join(sorted(_dependent_states(code)))})",
                                test) for code, test in sorted(two_state.items()))
                         + (("test ppl of 1-1-1-0 (e, o, s: 'comparable' to the best two-state code)",
                             rows["1-1-1-0"]),))


def _row_gap(a, b) -> float:
    """Largest gap between two printed rows over valid ppl, test ppl and parameters (M)."""
    return max(abs(x - y) for x, y in zip(a[1:], b[1:]))


def table4_duplicate_code(seed: int) -> Demonstration:
    """Table 4 prints 0-0-0-0 twice with different perplexities. Wherever else the paper prints one code twice
    it prints the same numbers (1-1-1-0 in Tables 4, 5 and 6; 1-10-1-0 in Tables 4 and 9): one code, one run.
    Which model the second row is, the paper does not say: no numeric check of a correction."""
    first, second = TABLE4_DATA_DEPENDENCE[:2]
    table4_1110 = TABLE4_DATA_DEPENDENCE[-1]
    repeats = [(table4_1110, TABLE5_PARAMETERIZATION[1]), (table4_1110, TABLE6_ACTIVATION[0]),
               (table4_1110, TABLE6_TAU_16), (TABLE4_O_TYPES_1_10, TABLE9_1_10_1_0)]
    return Demonstration(facts=(("test-ppl gap between Table 4's two 0-0-0-0 rows", first[2] - second[2]),
                                ("largest gap between the other codes the paper prints twice (1-1-1-0, 1-10-1-0)",
                                 max(_row_gap(a, b) for a, b in repeats)),
                                ("§3.1 'all data-independent is worse': first minus second row (> 0)",
                                 first[2] - second[2])))


def table6_duplicate_code(seed: int) -> Demonstration:
    """Table 6 prints 1-1-1-0 twice. Which row is 1-1-1-0 the other tables decide: Tables 4 and 5 and Table 6's
    own τ = 16 row (the default τ) print 1-1-1-0 as 24.26 / 24.75 / 44.04 M. The second row is another model."""
    elsewhere = (TABLE4_DATA_DEPENDENCE[-1], TABLE5_PARAMETERIZATION[1], TABLE6_TAU_16)
    first, second = TABLE6_ACTIVATION[:2]
    activation_params = {params for _, _, _, params in TABLE6_ACTIVATION[2:]}
    return Demonstration(max(_row_gap(second, row) for row in elsewhere), "",
                         max(_row_gap(first, row) for row in elsewhere),
                         (("second row's parameters (M)", second[3]),
                          ("distinct parameter counts of the activation rows 1-1-1-1…7", float(len(activation_params))),
                          ("the activation rows' parameters (M)", activation_params.pop())))


def tnn_s5_orientation(seed: int) -> Demonstration:
    """§2.3, TNN (and S5's B, C ∈ R^{k×d}): with B ∈ R^{k×d}, "B u_tᵀ" does not conform and "m_tᵀC" with
    C = J^{(kd)} is d×d. As a bank of d channels with their own columns of B and C:
    m_t = A m_{t−1} + B ⊙ (1_k u_tᵀ), y_t = (C ⊙ m_t)ᵀ 1_k (with C = J^{(kd)}: y_t = m_tᵀ 1_k)."""
    r = _draw(seed)
    A, B, C = torch.diag(_uniform(seed, 0.2, 0.95, K)), r(K, D), torch.ones(K, D, dtype=torch.float64)
    u = r(T, D)
    exact = torch.zeros(T, D, dtype=torch.float64)
    for j in range(D):                                                      # channel j: SISO with B[:, j], C[:, j]
        x = torch.zeros(K, dtype=torch.float64)
        for t in range(T):
            x = A @ x + B[:, j] * u[t, j]
            exact[t, j] = C[:, j] @ x
    printed, failure = _attempt(lambda: B @ u[0].unsqueeze(0))               # (k×d)(1×d)
    m, corrected = torch.zeros(K, D, dtype=torch.float64), []
    for t in range(T):
        m = A @ m + B * u[t].unsqueeze(0)
        corrected.append((C * m).sum(0))
    corrected = torch.stack(corrected)
    return Demonstration(None, failure, _gap(corrected, exact),
                         (("the printed readout m_tᵀC: rows × columns", float((m.T @ C).numel())),
                          ("with C = J: (C ⊙ m_t)ᵀ1_k vs m_tᵀ1_k, error",
                           _gap((C * m).sum(0), m.T @ torch.ones(K, dtype=torch.float64)))))


def s4_sizes(seed: int) -> Demonstration:
    """§2.3, S4 with d = 1: the sizes the note and Table 1 give (B, C ∈ R^k, memory k×1) against u_t ∈ R^k.
    A statement of sizes: nothing to evaluate, only the entries each side needs."""
    return Demonstration(facts=(("entries of B u_tᵀ with u_t ∈ ℝᵏ (k = 3)", float(K * K)),
                                ("entries of S4's memory in Table 1, k × 1", float(K))))


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


def _delta_rule_operators(keys: np.ndarray, other_keys: np.ndarray) -> np.ndarray:
    """I − a bᵀ for each row a of `keys` and b of `other_keys`: (n, k, k)."""
    return np.eye(keys.shape[-1]) - keys[:, :, None] * other_keys[:, None, :]


def m2_readings(seed: int) -> Demonstration:
    """Table 7, M2: the HTML rendering prints I_k − k_t k̄_tᵀ and never defines k̄ (the Markdown rendering drops
    the bar and prints M1's I_k − k_t k_tᵀ). Each reading's eigenvalues from numpy.linalg over random keys: every
    I − k k̄ᵀ has eigenvalues 1 (k − 1 times) and 1 − k̄ᵀk, so |λ| ≤ 1 iff 0 ≤ k̄ᵀk ≤ 2.

    The reading built here, I − k̂ k̂ᵀ with the expand state k̂ as well, is checked against the core's M2 layer:
    its oscillations' eigenvalues (numpy.linalg.eigvalsh) are 1 and 0 for every input, and its output is FWP's
    delta rule (Eq. 13) with β = 1 and unit keys, run as a numpy loop."""
    rng = np.random.default_rng(seed)
    keys, second = rng.standard_normal((500, K)), rng.standard_normal((500, K))
    unit = keys / np.linalg.norm(keys, axis=-1, keepdims=True)
    readings = (("k̄ = k/‖k‖: I − k k̂ᵀ = I − ‖k‖ k̂ k̂ᵀ", keys, unit, "‖k‖ ≤ 2"),
                ("k̄ = W̄x, a second projection", keys, second, "0 ≤ k̄ᵀk ≤ 2"),
                ("k̄ = conj(k): real keys give M1, I − k kᵀ", keys, keys, "‖k‖² ≤ 2"),
                ("built here: I − k̂ k̂ᵀ, expand k̂", unit, unit, "always: λ ∈ {1, 0}"))
    table, product_radius = [], 0.0
    for label, a, b, region in readings:
        operators = _delta_rule_operators(a, b)
        eigenvalues = np.linalg.eigvals(operators)
        radius = np.abs(eigenvalues).max(-1)
        stable = radius <= 1 + 1e-12
        off_one = 1 - (a * b).sum(-1)                                       # the closed form of the eigenvalue ≠ 1
        norms = np.linalg.norm(operators[stable], 2, axis=(1, 2))
        table.append({"reading of k̄": label, "stable (|λ| ≤ 1) when": region,
                      "unstable draws": f"{1 - stable.mean():.0%}",
                      "largest ‖o‖₂ of a stable draw": round(float(norms.max()), 3),
                      "|1 − k̄ᵀk − numpy's eigenvalue|": f"{np.abs(eigenvalues - off_one[:, None]).min(-1).max():.1e}"})
        if label.startswith("k̄ = W̄x"):
            pairs = operators[stable][1:] @ operators[stable][:-1]            # two stable steps in a row
            product_radius = float(np.abs(np.linalg.eigvals(pairs)).max())

    generator = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        layer = build_layer("m2", 6, K).double()
    x = torch.randn(1, T, 6, generator=generator, dtype=torch.float64)
    with torch.no_grad():
        states, y = layer.states(x), layer.mix(x)[0].numpy()
        q, k, v = (part[0].numpy() for part in layer.qkv(x))
    eigenvalues = np.linalg.eigvalsh(states.o[0].numpy())
    k_hat = k / np.linalg.norm(k, axis=-1, keepdims=True)
    W, delta_rule = np.zeros((K, 6)), []
    for t in range(T):                                                      # W ← W + k̂ (v − Wᵀk̂)ᵀ  (Eq. 13, β = 1)
        W = W + np.outer(k_hat[t], v[t] - W.T @ k_hat[t])
        delta_rule.append(W.T @ q[t])
    corrected = max(_gap(eigenvalues, np.broadcast_to([0.0] + [1.0] * (K - 1), eigenvalues.shape)),
                    _gap(y, np.stack(delta_rule)), _gap(states.e[0].numpy(), k_hat))
    return Demonstration(None, "k̄ is never defined in the paper: the oscillation needs a reading of it",
                         corrected,
                         (("the core's M2: largest |eigenvalue − {0, 1}| (numpy eigvalsh)",
                           _gap(eigenvalues, np.broadcast_to([0.0] + [1.0] * (K - 1), eigenvalues.shape))),
                          ("the core's M2 vs FWP's delta rule (Eq. 13) with β = 1, unit keys: error",
                           _gap(y, np.stack(delta_rule))),
                          ("second projection: largest spectral radius of two stable steps in a row",
                           product_radius)),
                         tuple(table))


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


def _longhorn_minimiser(S_prev, k, x, beta):
    """Eq. (5)'s minimiser row by row, from App. C's normal equations (I + β_i k kᵀ) S_i = S_{t−1,i} + β_i k x_i."""
    eye = torch.eye(len(k), dtype=torch.float64)
    return torch.stack([torch.linalg.solve(eye + beta[i] * torch.outer(k, k), S_prev[i] + beta[i] * k * x[i])
                        for i in range(len(x))])


def longhorn_scalar_denominator(seed: int) -> Demonstration:
    """App. C: S_i = (I − β/(1 + βkᵀk) k kᵀ) S_{t−1,i} + β k x_i/(1 + βkᵀk); the printed "I + βk_tᵀk_t" adds a
    number to a matrix (read literally, to every entry)."""
    r = _draw(seed)
    S_prev, k, x, beta = r(D, K), r(K), r(D), _uniform(seed, 0.1, 2.0, D)
    exact = _longhorn_minimiser(S_prev, k, x, beta)
    eye, kk = torch.eye(K, dtype=torch.float64), torch.outer(k, k)

    def row(i, denominator):
        return (eye - beta[i] / denominator * kk) @ S_prev[i] + beta[i] * k * x[i] / denominator

    literal = [eye + beta[i] * (k @ k) for i in range(D)]                   # a number added to every entry of I
    printed = torch.stack([(eye - beta[i] * kk / literal[i]) @ S_prev[i] + beta[i] * k * x[i] / (1 + beta[i] * (k @ k))
                           for i in range(D)])                              # the forgetting term divided entrywise
    corrected = torch.stack([row(i, 1 + beta[i] * (k @ k)) for i in range(D)])
    as_inverse = torch.stack([(eye - beta[i] * torch.linalg.solve(eye * (1 + beta[i] * (k @ k)), kk)) @ S_prev[i]
                              + torch.linalg.solve(eye * (1 + beta[i] * (k @ k)), beta[i] * k * x[i])
                              for i in range(D)])
    return Demonstration(_gap(printed, exact), "", _gap(corrected, exact),
                         (("read as (I + βkᵀk)⁻¹, i.e. the scalar after all: error", _gap(as_inverse, exact)),))


def longhorn_prediction_orientation(seed: int) -> Demonstration:
    """§3: the linear model Eq. (5) fits is x_t ≈ S k_t (S ∈ R^{d×m}, k_t ∈ R^m); Sᵀk_t does not conform for
    d ≠ m. The fitted prediction's residual shrinks exactly by 1/(1 + β_i kᵀk) from the previous state's."""
    r = _draw(seed)
    S_prev, k, x, beta = r(D, K), r(K), r(D), _uniform(seed, 0.1, 2.0, D)
    S = _longhorn_minimiser(S_prev, k, x, beta)
    printed, failure = _attempt(lambda: S.T @ k)                              # (m×d)(m) with d ≠ m
    shrunk = (x - S_prev @ k) / (1 + beta * (k @ k))
    S_sq_prev, x_sq, beta_sq = r(K, K), r(K), _uniform(seed, 0.1, 2.0, K)     # d = m: Sᵀk runs, but misses
    S_sq = _longhorn_minimiser(S_sq_prev, k, x_sq, beta_sq)
    shrunk_sq = (x_sq - S_sq_prev @ k) / (1 + beta_sq * (k @ k))
    return Demonstration(None if printed is None else _gap(x - printed, shrunk), failure, _gap(x - S @ k, shrunk),
                         (("d = m: Sᵀk's residual vs the fitted one, error", _gap(x_sq - S_sq.T @ k, shrunk_sq)),))


def deltanet_eigenvalues(seed: int) -> Demonstration:
    """Related work: DeltaNet's A(x_t) = I − β_t k_t k_tᵀ "can have eigenvalues > 1". numpy.linalg.eigvalsh over
    random keys and β ∈ (0, 1): the eigenvalues are 1 (m − 1 times) and 1 − β‖k‖² ≤ 1; the one that leaves the
    unit disc leaves it below −1, when β‖k‖² > 2.

    printed_error: the smallest distance, over the draws that are unstable, from the eigenvalue outside the unit
    disc to where the quote puts it (above 1). corrected_error: largest |numpy's eigenvalues − {1, 1 − β‖k‖²}|."""
    rng = np.random.default_rng(seed)
    keys, beta = 1.5 * rng.standard_normal((1000, K)), rng.uniform(0.0, 1.0, 1000)
    load = beta * (keys ** 2).sum(-1)                                        # β‖k‖²
    eigenvalues = np.linalg.eigvalsh(np.eye(K) - beta[:, None, None] * keys[:, :, None] * keys[:, None, :])
    closed = np.stack([1 - load] + [np.ones_like(load)] * (K - 1), axis=-1)  # ascending, as eigvalsh sorts
    unstable = np.abs(eigenvalues).max(-1) > 1 + 1e-12
    escaping = eigenvalues[unstable, 0]                                      # the smallest: below −1
    return Demonstration(float((1 - escaping).min()), "", _gap(eigenvalues, closed),
                         (("largest eigenvalue over all draws, minus 1", float(eigenvalues.max() - 1)),
                          ("share of draws with an eigenvalue outside the unit disc", float(unstable.mean())),
                          ("largest eigenvalue outside the unit disc (all are below −1)", float(escaping.max())),
                          ("smallest β‖k‖² among those draws (> 2)", float(load[unstable].min()))))


def longhorn_update_shape(seed: int) -> Demonstration:
    """Table 4, Longhorn row: S_t = (1_{m×n} − ε_t ⊗ k_t^{⊙2}) ⊙ S_{t−1} + (ε_t ⊙ x_t) ⊗ k_t with S ∈ R^{d×m}:
    the ones matrix must be d×m. The truth is §3's diagonal approximation row by row,
    S_{t,i} = (1_m − ε_{t,i} k_t^{⊙2}) ⊙ S_{t−1,i} + ε_{t,i} x_{t,i} k_t, as a numpy loop over the rows i."""
    r = _draw(seed)
    S_prev, k, x, beta = r(D, K), r(K), r(D), _uniform(seed, 0.1, 2.0, D)
    eps = beta / (1 + beta * (k @ k))
    S_np, k_np, x_np, eps_np = S_prev.numpy(), k.numpy(), x.numpy(), eps.numpy()
    rows = np.stack([(1 - eps_np[i] * k_np ** 2) * S_np[i] + eps_np[i] * x_np[i] * k_np for i in range(D)])

    def update(ones, S_prev, k, x, eps):
        return (ones - torch.outer(eps, k ** 2)) * S_prev + torch.outer(eps * x, k)

    n = K                                                                    # n is never defined; any n fails
    printed, failure = _attempt(lambda: update(torch.ones(K, n, dtype=torch.float64), S_prev, k, x, eps))
    corrected = update(torch.ones(D, K, dtype=torch.float64), S_prev, k, x, eps)
    S_sq, x_sq, beta_sq = r(K, K), r(K), _uniform(seed, 0.1, 2.0, K)        # d = m = n: the printed form runs
    eps_sq = beta_sq / (1 + beta_sq * (k @ k))
    rows_sq = np.stack([(1 - float(eps_sq[i]) * k_np ** 2) * S_sq[i].numpy() + float(eps_sq[i] * x_sq[i]) * k_np
                        for i in range(K)])
    return Demonstration(None if printed is None else _gap(printed, rows), failure, _gap(corrected, rows),
                         (("d = m = n: the printed form runs and holds, error",
                           _gap(update(torch.ones(K, K, dtype=torch.float64), S_sq, k, x_sq, eps_sq), rows_sq)),))


# --- the LRU article --------------------------------------------------------------------------------
def _matrix_exponential(M: np.ndarray, terms: int = 24) -> np.ndarray:
    """e^M summed as its power series Σ Mⁿ/n!, on M/2ˢ (norm ≤ 1/2) and squared back s times."""
    squarings = max(0, int(np.ceil(np.log2(max(np.abs(M).sum(0).max(), 1e-300)))) + 1)
    scaled, term = M / 2 ** squarings, np.eye(len(M))
    total = term.copy()
    for n in range(1, terms):
        term = term @ scaled / n
        total = total + term
    for _ in range(squarings):
        total = total @ total
    return total


def _damped_springs(seed: int, count: int = K):
    """`count` damped springs (mass m, stiffness κ, damping c > 0, underdamped), each sampled every Δ seconds:
    the exact (zero-order-hold) transition e^{AΔ} of ẍ = −(κ/m)x − (c/m)ẋ, summed as a power series, and the
    damping and angle of its eigenvalue in closed form, ν = cΔ/2m and θ = ω_d Δ."""
    rng = np.random.default_rng(seed)
    mass, stiffness = rng.uniform(0.5, 2.0, count), rng.uniform(0.5, 4.0, count)
    damping = 2 * rng.uniform(0.05, 0.5, count) * np.sqrt(stiffness * mass)   # ζ = c / 2√(κm) in (0.05, 0.5)
    step = rng.uniform(0.1, 0.5)
    transitions = [_matrix_exponential(A * step) for A in spring_matrices(mass, damping, stiffness)[0]]
    nu = damping * step / (2 * mass)
    theta = np.sqrt(stiffness / mass - (damping / (2 * mass)) ** 2) * step
    return transitions, nu, theta


def _upper_eigen(transition: np.ndarray):
    """The eigenvalue of a 2×2 transition in the upper half-plane, and the eigenvectors."""
    eigenvalues, vectors = np.linalg.eig(transition)
    upper = int(np.argmax(eigenvalues.imag))
    return eigenvalues[upper], vectors, upper


def lru_decay_sign(seed: int) -> Demonstration:
    """λ_j = e^{−ν_j + iθ_j}: the article's damped spring, discretised exactly, has eigenvalues inside the unit
    circle, and its positive damping is the article's ν > 0 ("similar to c > 0")."""
    transitions, nu, theta = _damped_springs(seed)
    exact = np.array([_upper_eigen(transition)[0] for transition in transitions])
    printed, corrected = np.exp(nu + 1j * theta), np.exp(-nu + 1j * theta)
    return Demonstration(_gap(printed, exact), "", _gap(corrected, exact),
                         (("smallest |λ| as printed", float(np.abs(printed).min())),
                          ("largest |λ| of the springs' exp(AΔ)", float(np.abs(exact).max())),
                          ("smallest ν = cΔ/2m (positive damping)", float(nu.min())),
                          ("largest |λ|¹⁰⁰ as printed: a state after 100 steps", float(np.abs(printed).max() ** 100))))


def lru_power_angle(seed: int) -> Demonstration:
    """x_{k,j} = O(λ_j^k) with λ_j = e^{−ν_j + iθ_j}: the angle turns k times, e^{−kν_j} e^{ikθ_j}. The truth:
    each damped spring's state stepped k times through e^{AΔ}, read in the eigenvector's coordinate."""
    transitions, nu, theta = _damped_springs(seed)
    steps = 7
    modes = []
    for transition in transitions:
        _, vectors, upper = _upper_eigen(transition)
        state = vectors[:, upper]                                            # the mode's coordinate starts at 1
        for _ in range(steps):
            state = transition @ state
        modes.append(np.linalg.solve(vectors, state)[upper])
    modes = np.array(modes)
    printed = np.exp(-steps * nu) * np.exp(1j * theta)
    corrected = np.exp(-steps * nu) * np.exp(1j * steps * theta)
    return Demonstration(_gap(printed, modes), "", _gap(corrected, modes),
                         (("k, the steps taken", float(steps)),
                          ("|xₖ| vs e^(−kν): the modulus is right either way, error",
                           _gap(np.abs(modes), np.exp(-steps * nu)))))

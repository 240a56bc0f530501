"""Every printed error found in the source material, beyond the three backward formulas that
`backward_formulas.py` checks: where it is printed, the printed and the corrected form, why, and a
numeric demonstration (`errata_demos.py`) that the printed form fails and the corrected one holds.

Sources (the seeds the explorer is built from): the LCSM paper ("Unlocking the Secrets of Linear
Complexity Sequence Model from a Unified Perspective"), the MNet note it grew from ("Summary of
Common Sequence Mapping Methods"), the Longhorn paper ("State Space Models are Amortized Online
Learners") and the LRU spring–mass–damper article. `check_errata(seed)` runs every demonstration;
the "Check the math" page shows one card per row and the test suite asserts each verdict.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import errata_demos as demos

LCSM, NOTE, LONGHORN, LRU = "LCSM paper", "MNet note", "Longhorn paper", "LRU article"


@dataclass(frozen=True)
class Erratum:
    id: str
    source: str
    location: str         # section / equation / table, as the source numbers them
    printed: str          # LaTeX, as printed
    corrected: str        # LaTeX
    why: str              # one line
    measure: str          # what the demonstration's error counts
    demonstrate: Callable[[int], demos.Demonstration]


ERRATA: tuple[Erratum, ...] = (
    Erratum("note-expand", NOTE, "Memory-Based Sequence Mapping (New Version): the expand step",
            r"\bar{\mathbf m}_t = \mathbf e_t^{\top}\mathbf i_t",
            r"\bar{\mathbf m}_t = \mathbf e_t\,\mathbf i_t^{\top} \in \mathbb R^{k\times d}",
            r"$\mathbf e_t^\top\mathbf i_t$ is an inner product: it needs $k = d$ and is then one number, not a "
            r"$k\times d$ memory. The note's own update line adds $\mathbf e_t\mathbf i_t^\top$.",
            "largest |m̄ₜ − what step t adds to the core's memory|",
            demos.new_memory_outer_product),
    Erratum("lcsm-eq9", LCSM, "§2.2, Eq. (9)",
            r"\mathrm{diag}(\bar{\mathbf o}_t)\,\mathbf m_{t-1} = "
            r"\big(\bar{\mathbf o}_t\mathbf 1_{\{k\}}^{\top}\big)\odot\mathbf m_{t-1}",
            r"\mathrm{diag}(\bar{\mathbf o}_t)\,\mathbf m_{t-1} = "
            r"\big(\bar{\mathbf o}_t\mathbf 1_{\{d\}}^{\top}\big)\odot\mathbf m_{t-1}",
            r"$\mathbf m_{t-1}$ is $k\times d$, so the broadcast copy of $\bar{\mathbf o}_t$ must be $k\times d$ "
            r"too: the ones vector has length $d$, not $k$.",
            "largest |y − the Diag(ō) recurrence|",
            demos.diagonal_as_elementwise),
    Erratum("lcsm-table1-retnet", LCSM, "Table 1, TNL/RetNet row, oscillation column",
            r"\mathbf o = \lambda\,\mathbf J^{(k)}",
            r"\mathbf o = \lambda\,\mathbf J^{(kd)} = \lambda\,\mathbf 1^{(k)}\mathbf 1^{(d)\top}"
            r"\in\mathbb R^{k\times d}",
            r"With $\psi = \odot$ the oscillation must have the memory's shape $k\times d$; $\mathbf J^{(k)}$ "
            r"($k\times k$, by analogy with the caption's $\mathbf J^{(kd)}$) does not, and the caption never "
            r"defines it.",
            "largest |y − the TNL/RetNet recurrence|",
            demos.retnet_oscillation_shape),
    Erratum("lcsm-5.3-labels", LCSM, "Appendix 5.3, Eqs. (14) and (15), the labels “Cosformer.” and “LRPE.”",
            r"\text{Cosformer: } \textstyle\sum_{s} \Lambda^{t-s}\mathbf k_s\mathbf v_s^\top\ (14)\qquad"
            r"\text{LRPE: } \textstyle\sum_{s} e^{i(t-s)\theta}\mathbf k_s\mathbf v_s^\top\ (15)",
            r"\text{LRPE: } \textstyle\sum_{s} \Lambda^{t-s}\mathbf k_s\mathbf v_s^\top\ (14)\qquad"
            r"\text{Cosformer: } \textstyle\sum_{s} e^{i(t-s)\theta}\mathbf k_s\mathbf v_s^\top\ (15)",
            r"§2.3 gives Cosformer one fixed angle $\theta$ and LRPE the learned "
            r"$\Lambda = \mathrm{diag}\{e^{i\theta_1},\dots,e^{i\theta_k}\}$ (Eq. 10); the appendix derives each "
            r"under the other's name. The MNet note pairs them correctly.",
            "largest |closed form − the recurrence named in its label|",
            demos.appendix_labels),
    Erratum("lcsm-5.3-order", LCSM, "Appendix 5.3, Eq. (14), third line (the MNet note's LRPE explanation prints "
            "the same line)",
            r"\mathbf y_t = \mathrm{Rel}\Big\{\textstyle\sum_{s=1}^{t}\Lambda^{t-s}\,\mathbf v_s\mathbf k_s^\top"
            r"\mathbf q_t\Big\}",
            r"\mathbf y_t = \mathrm{Rel}\Big\{\textstyle\sum_{s=1}^{t}\mathbf v_s\mathbf k_s^\top\,\Lambda^{t-s}"
            r"\mathbf q_t\Big\}",
            r"Transposing $\Lambda^{t-s}\mathbf k_s\mathbf v_s^\top$ puts the $k\times k$ $\Lambda^{t-s}$ between "
            r"$\mathbf k_s^\top$ and $\mathbf q_t$; it cannot act on $\mathbf v_s$, a $d$-vector. The next line "
            r"of (14) has the right order.",
            "largest |y − LRPE's recurrence (Eq. 10)|",
            demos.appendix_factor_order),
    Erratum("lcsm-3.1-codes", LCSM, "§3.1, Data Dependence Test (Table 4, code 1-1-0-0)",
            r"\text{“the combination of } o \text{ and } s\ (1\text{-}1\text{-}0\text{-}0)\text{ proves to be the most "
            r"effective”}",
            r"\text{the combination of } e \text{ and } o\ (1\text{-}1\text{-}0\text{-}0)",
            "A code reads e-o-s-a (§2.5), so 1-1-0-0 makes e and o data-dependent. Table 4 agrees with the code, not "
            "the words: of the three two-state codes, 1-1-0-0 (e, o) has the best test perplexity, 24.91, close to "
            "1-1-1-0's 24.75; the o-and-s code 0-1-1-0 has 26.21.",
            "test-perplexity gap between the code the words name and the best two-state code of Table 4",
            demos.data_dependent_states),
    Erratum("longhorn-table4-gla", LONGHORN, "Appendix B, Table 4, GLA row",
            r"L_t(S) = \lVert S - S_{t-1}\mathrm{diag}(\alpha_t)\rVert_F^2 \;+\; 2\langle S k_t, x_t\rangle",
            r"L_t(S) = \lVert S - S_{t-1}\mathrm{diag}(\alpha_t)\rVert_F^2 \;-\; 2\langle S k_t, x_t\rangle"
            r"\ \Rightarrow\ \arg\min_S L_t = S_{t-1}\mathrm{diag}(\alpha_t) + x_t\otimes k_t",
            r"With $+2\langle Sk_t, x_t\rangle$ the minimiser is $S_{t-1}\mathrm{diag}(\alpha_t) - x_t\otimes k_t$: "
            r"it subtracts the new pair. The LA and RetNet rows of the same table carry $-2$.",
            "largest |arg min Lₜ − GLA's update|",
            demos.gla_objective_sign),
    Erratum("lru-exponent-sign", LRU, "the paragraph after Equation (5): “exponential parameterization of λ_j”",
            r"\lambda_j = e^{\nu_j + i\theta_j}",
            r"\lambda_j = e^{-\nu_j + i\theta_j},\quad \nu_j = e^{\nu_j^{\log}} > 0",
            r"With $\nu_j > 0$, the article's own stability condition, $|e^{\nu_j + i\theta_j}| > 1$: outside the "
            r"unit circle. The same sentence's $x_{k,j} = O(e^{-k\nu_j}\dots)$ and the later "
            r"$\Lambda = \mathrm{diag}(\exp(-\nu + i\theta))$ carry the minus.",
            "largest |λ − the core's exp(−exp(ν_log) + iθ)|",
            demos.lru_decay_sign),
    Erratum("lcsm-table1-dss", LCSM, "Table 1, DSS row, oscillation and ψ columns",
            r"\mathbf o = \mathbf a\mathbf 1_k^{\top},\quad \psi = \times",
            r"\mathbf o = \mathbf a\mathbf 1_d^{\top},\ \psi = \odot"
            r"\quad\text{(or } \mathbf o = \mathrm{Diag}\{\mathbf a\},\ \psi = \times\text{)}",
            r"DSS is S5 with $\mathbf A = \mathrm{Diag}\{\mathbf a\}$, but "
            r"$(\mathbf a\mathbf 1_k^\top)\mathbf m = \mathbf a(\mathbf 1_k^\top\mathbf m)$ replaces every row "
            r"of the memory by its column sums: $\mathbf a\mathbf 1^\top$ belongs with $\psi = \odot$ and has "
            r"length $d$, as in Eq. (9).",
            "largest |y − the Diag(a) recurrence|",
            demos.dss_oscillation),
)

ERRATA += (
    Erratum("lcsm-2.3-s4", LCSM, "§2.3, S4: “Note that u_t, y_t ∈ R^k”",
            r"d = 1,\quad \mathbf u_t, \mathbf y_t \in \mathbb R^{k}",
            r"d = 1,\quad u_t, y_t \in \mathbb R,\quad \mathbf m_t \in \mathbb R^{k\times 1}",
            r"With $d = 1$ each SISO SSM reads one number and writes one number; its memory is $k\times 1$. A "
            r"$k$-vector $\mathbf u_t$ makes $\mathbf B\mathbf u_t^\top$ a $k\times k$ matrix.",
            "largest |y − the SISO state space model, run as a loop|",
            demos.s4_channel_sizes),
    Erratum("lcsm-2.3-tnn", LCSM, "§2.3, TNN (with S5's B, C ∈ ℝᵏˣᵈ): the recurrence",
            r"\mathbf m_t = \mathbf A\mathbf m_{t-1} + \mathbf B\mathbf u_t^{\top},\quad "
            r"\mathbf y_t = \mathbf m_t^{\top}\mathbf C,\quad \mathbf B, \mathbf C = \mathbf J^{(kd)} \in "
            r"\mathbb R^{k\times d}",
            r"\mathbf m_t = \mathbf A\mathbf m_{t-1} + \mathbf B\odot(\mathbf 1_k\mathbf u_t^{\top}),\quad "
            r"\mathbf y_t = (\mathbf C\odot\mathbf m_t)^{\top}\mathbf 1_k",
            r"With $\mathbf B \in \mathbb R^{k\times d}$, $\mathbf B\mathbf u_t^\top$ multiplies $k\times d$ by "
            r"$1\times d$, and $\mathbf m_t^\top\mathbf C$ is $d\times d$, not an output $d$-vector. Channel $j$ "
            r"is a SISO SSM with column $j$ of $\mathbf B$ and of $\mathbf C$ (with $\mathbf C = \mathbf J$: "
            r"$\mathbf y_t = \mathbf m_t^\top\mathbf 1_k$).",
            "largest |y − d SISO state space models, one per channel, run as loops|",
            demos.tnn_s5_orientation),
    Erratum("lcsm-table4-duplicate", LCSM, "Table 4 (left), the first two rows, both coded 0-0-0-0",
            r"\text{0-0-0-0: } 29.62 / 30.5 \qquad \text{0-0-0-0: } 28.26 / 29.1",
            r"\text{0-0-0-0: } 29.62 / 30.5 \qquad \text{(o not learnable; code not printed): } 28.26 / 29.1",
            "One code is one model, but the two rows differ by 1.4 test perplexity. §3.1 names a second model: "
            "all-data-independent is “even worse than the scenario where the o state is not learnable”, so the worse "
            "row (30.5) is 0-0-0-0.",
            "largest test-perplexity gap between rows printed with the same code",
            demos.table4_duplicate_code),
    Erratum("lcsm-table6-duplicate", LCSM, "Table 6 (left), the first two rows, both coded 1-1-1-0",
            r"\text{1-1-1-0: } 24.26 / 24.75,\ 44.04\,\mathrm M \qquad \text{1-1-1-0: } 23.78 / 24.97,\ "
            r"46.07\,\mathrm M",
            r"\text{1-1-1-0: } 44.04\,\mathrm M \qquad \text{a second model (code not printed): } 46.07\,\mathrm M",
            "The same code with two parameter counts is two models. The first row is Tables 4–5's 1-1-1-0 exactly; "
            "the second has the 46.07 M of every activation row 1-1-1-1…7.",
            "largest parameter-count gap (M) between rows printed with the same code",
            demos.table6_duplicate_code),
    Erratum("lru-power-angle", LRU, "the paragraph after Equation (5): “xₖ,ⱼ := O(e^(−kνⱼ) e^(iθⱼ))”",
            r"x_{k,j} = \mathcal O\big(e^{-k\nu_j}e^{i\theta_j}\big)",
            r"x_{k,j} = \mathcal O\big(\lambda_j^k\big) = \mathcal O\big(e^{-k\nu_j}e^{ik\theta_j}\big)",
            r"$\lambda_j^k = e^{k(-\nu_j + i\theta_j)}$: the angle turns $k$ times as well. The modulus "
            r"$e^{-k\nu_j}$, which the stability argument uses, is right either way.",
            "largest |printed form − the recurrence x ← λx after k steps|",
            demos.lru_power_angle),
    Erratum("longhorn-appc-scalar", LONGHORN, "Appendix C, proof of Theorem 6: the denominators "
            "“I + βₜ,ᵢ kₜᵀkₜ”",
            r"\Big(I - \frac{\beta_{t,i}}{I + \beta_{t,i}k_t^{\top}k_t}k_tk_t^{\top}\Big)S_{t-1,i} + "
            r"\frac{\beta_{t,i}k_tx_{t,i}}{I + \beta_{t,i}k_t^{\top}k_t}",
            r"\Big(I - \frac{\beta_{t,i}}{1 + \beta_{t,i}k_t^{\top}k_t}k_tk_t^{\top}\Big)S_{t-1,i} + "
            r"\frac{\beta_{t,i}k_tx_{t,i}}{1 + \beta_{t,i}k_t^{\top}k_t}",
            r"$k_t^\top k_t$ is a number: Sherman–Morrison divides by the scalar $1 + \beta k^\top k$ (as the "
            r"theorem's own $\varepsilon_t$ does). Read literally, $I$ plus a number adds it to every entry.",
            "largest |row of S − the minimiser of Eq. (5) from its normal equations|",
            demos.longhorn_scalar_denominator),
    Erratum("longhorn-3-orientation", LONGHORN, "§3, after Eq. (5): “a linear model xₜ ≈ Sᵀkₜ”",
            r"x_t \approx S^{\top}k_t,\quad S \in \mathbb R^{d\times m},\ k_t \in \mathbb R^{m}",
            r"x_t \approx S\,k_t",
            r"$S^\top$ is $m\times d$ and cannot multiply $k_t \in \mathbb R^m$ unless $d = m$; Eq. (5)'s own term "
            r"$\lVert Sk_t - x_t\rVert$ predicts with $S k_t$.",
            "largest |x − S k| − the residual Eq. (5)'s minimiser must leave, (x − Sₜ₋₁k)/(1 + βkᵀk)",
            demos.longhorn_prediction_orientation),
)

BY_ID = {e.id: e for e in ERRATA}


def check_errata(seed: int = 0) -> list[dict]:
    """One row per erratum: where, printed vs corrected, the demonstration's numbers and the verdict."""
    rows = []
    for erratum in ERRATA:
        demo = erratum.demonstrate(seed)
        rows.append(dict(id=erratum.id, source=erratum.source, location=erratum.location, printed=erratum.printed,
                         corrected=erratum.corrected, why=erratum.why, measure=erratum.measure,
                         printed_error=demo.printed_error, printed_failure=demo.printed_failure,
                         formable=demo.printed_error is not None, corrected_error=demo.corrected_error,
                         facts=demo.facts, printed_fails=demo.printed_fails, corrected_holds=demo.corrected_holds,
                         confirmed=demo.printed_fails and demo.corrected_holds))
    return rows

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
            r"\text{1-1-0-0: data-dependent } \{\,o,\ s\,\}",
            r"\text{1-1-0-0: data-dependent } \{\,e,\ o\,\}",
            "A code reads e-o-s-a (§2.5): e = 1, o = 1, s = 0, so e and o read the input and s does not. "
            "The same paragraph's other codes (0-1-0-0: o alone) are read correctly.",
            "states of e, o, s labelled wrongly",
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

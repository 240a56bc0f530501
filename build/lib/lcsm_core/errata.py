"""Every printed error found in the source material, beyond the three backward formulas that
`backward_formulas.py` checks: where it is printed, the seed's own text, the printed and the corrected
form, why, and a numeric check (`errata_demos.py`) whose truth is computed another way than the forms it
judges, never with the code the card is about (`about`).

Four kinds of card. A wrong formula: the printed form fails (or cannot be formed) and the corrected one
holds. A naming inconsistency: the formula holds, the name over it is the other method's. An undefined
symbol: the readings are listed with their numbers and the one built here is checked. A notation error
(sizes or labels only): "no numeric check: a notation error", with the facts that show it.

Sources (the seeds the explorer is built from): the LCSM paper ("Unlocking the Secrets of Linear
Complexity Sequence Model from a Unified Perspective", in a Markdown and an HTML rendering), the MNet
note it grew from ("Summary of Common Sequence Mapping Methods"), the Longhorn paper ("State Space
Models are Amortized Online Learners") and the LRU spring–mass–damper article. `check_errata(seed)`
runs every check; the "Check the math" page shows one card per row and the test suite asserts each
verdict.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import errata_demos as demos

LCSM, NOTE, LONGHORN, LRU = "LCSM paper", "MNet note", "Longhorn paper", "LRU article"
SEED_FILES = {LCSM: "lcsm-paper.md", NOTE: "mnet-note.md", LONGHORN: "longhorn-paper.txt",
              LRU: "lru-spring-mass-damper-article.txt"}
LCSM_HTML = "lcsm-paper-html.txt"

WRONG, NAMING, UNDEFINED, NOTATION = "wrong formula", "naming inconsistency", "undefined symbol", "notation error"
KINDS = (WRONG, NAMING, UNDEFINED, NOTATION)
NO_NUMERIC_CHECK = "no numeric check: a notation error"


@dataclass(frozen=True)
class Erratum:
    id: str
    source: str
    location: str         # section / equation / table, as the source numbers them
    quote: str            # the seed's text, verbatim (its rendering's losses included)
    printed: str          # LaTeX, as printed
    corrected: str        # LaTeX
    why: str              # a few lines
    measure: str          # what the check's error counts ("" for a notation error)
    demonstrate: Callable[[int], demos.Demonstration] | None   # None: a notation error with no facts to show
    kind: str = WRONG
    about: tuple[str, ...] = ()   # dotted names of the project code the card's forms stand for: never in its proof
    detail: str = ""              # LaTeX under the two forms, e.g. an eigenvalue's stability region
    seed_file: str = ""           # the seed file the quote is from, when not the source's usual one

    @property
    def quote_file(self) -> str:
        return self.seed_file or SEED_FILES[self.source]


ROTATIONS = ("lcsm_core.scan.eos_scan", "lcsm_core.variants.attention.Cosformer",
             "lcsm_core.variants.attention.LRPE")
LRU_CODE = ("lcsm_core.dynamics.lru_init.lru_eigenvalues", "lcsm_core.variants.ssm.LRU")
LONGHORN_CODE = ("lcsm_core.variants.delta.Longhorn",)

ERRATA: tuple[Erratum, ...] = (
    Erratum("note-expand", NOTE, "Memory-Based Sequence Mapping (New Version): the expand step",
            r"calculate the new memory  $\mathbf{ar{m}}_t = \mathbf{e}_t^{ op} \mathbf{i}_t$",
            r"\bar{\mathbf m}_t = \mathbf e_t^{\top}\mathbf i_t",
            r"\bar{\mathbf m}_t = \mathbf e_t\,\mathbf i_t^{\top} \in \mathbb R^{k\times d}",
            r"$\mathbf e_t^\top\mathbf i_t$ is an inner product: it needs $k = d$ and is then one number, not a "
            r"$k\times d$ memory. The note's own update line adds $\mathbf e_t\mathbf i_t^\top$.",
            "largest |m̄ₜ − what step t adds to the core's memory|",
            demos.new_memory_outer_product),
    Erratum("lcsm-eq9", LCSM, "§2.2, Eq. (9)",
            r"&= \left(\bar{\mathbf{o}}_t \mathbf{1}_{\{k\}}^{\top} \right) \odot \mathbf{m}_{t-1}",
            r"\mathrm{diag}(\bar{\mathbf o}_t)\,\mathbf m_{t-1} = "
            r"\big(\bar{\mathbf o}_t\mathbf 1_{\{k\}}^{\top}\big)\odot\mathbf m_{t-1}",
            r"\mathrm{diag}(\bar{\mathbf o}_t)\,\mathbf m_{t-1} = "
            r"\big(\bar{\mathbf o}_t\mathbf 1_{\{d\}}^{\top}\big)\odot\mathbf m_{t-1}",
            r"$\mathbf m_{t-1}$ is $k\times d$, so the broadcast copy of $\bar{\mathbf o}_t$ must be $k\times d$ "
            r"too: the ones vector has length $d$, not $k$.",
            "largest |y − the Diag(ō) recurrence, run as a loop|",
            demos.diagonal_as_elementwise),
    Erratum("lcsm-table1-retnet", LCSM, "Table 1, TNL/RetNet row, oscillation column",
            "TNL/RetNet\t\\mathbf{v}_t\t\\mathbf{k}_t\t$\\lambda\\mathbf{J}^{(k)}$",
            r"\mathbf o = \lambda\,\mathbf J^{(k)}",
            r"\mathbf o = \lambda\,\mathbf J^{(kd)} = \lambda\,\mathbf 1^{(k)}\mathbf 1^{(d)\top}"
            r"\in\mathbb R^{k\times d}",
            r"With $\psi = \odot$ the oscillation must have the memory's shape $k\times d$; $\mathbf J^{(k)}$ "
            r"($k\times k$, by analogy with the caption's $\mathbf J^{(kd)}$) does not, and the caption never "
            r"defines it.",
            "largest |y − the TNL/RetNet recurrence, run as a loop|",
            demos.retnet_oscillation_shape, about=("lcsm_core.variants.attention.RetNet",)),
    Erratum("lcsm-5.3-labels", LCSM, "Appendix 5.3, Eqs. (14) and (15), the labels “Cosformer.” and “LRPE.”",
            "Cosformer.\n\n$$\\begin{aligned} [\\mathbf{k}\\mathbf{v}]_t &= \\sum_{s=1}^t \\Lambda^{t-s} "
            "\\mathbf{k}_s \\mathbf{v}_s^\\top",
            r"\text{Cosformer: } \textstyle\sum_{s} \Lambda^{t-s}\mathbf k_s\mathbf v_s^\top\ (14)\qquad"
            r"\text{LRPE: } \textstyle\sum_{s} e^{i(t-s)\theta}\mathbf k_s\mathbf v_s^\top\ (15)",
            r"\text{LRPE: } \textstyle\sum_{s} \Lambda^{t-s}\mathbf k_s\mathbf v_s^\top\ (14)\qquad"
            r"\text{Cosformer: } \textstyle\sum_{s} e^{i(t-s)\theta}\mathbf k_s\mathbf v_s^\top\ (15)",
            r"Not a wrong formula: a naming inconsistency. Each formula holds: (14) reproduces Cosformer with its one "
            r"angle ($\theta_j = \theta$) and LRPE with its $k$ angles, (15) reproduces Cosformer. But (14) is "
            r"written in LRPE's notation, $\Lambda = \mathrm{diag}\{e^{i\theta_1},\dots,e^{i\theta_k}\}$ (Eq. 10), "
            r"under the heading “Cosformer.”, and (15) in Cosformer's, one fixed $\theta$ (§2.3), under “LRPE.”, "
            r"where it covers LRPE only when all its angles are equal. The MNet note pairs them correctly.",
            "largest |closed form − the method's recurrence, run as a loop|",
            demos.appendix_labels, kind=NAMING, about=ROTATIONS),
    Erratum("lcsm-5.3-order", LCSM, "Appendix 5.3, Eq. (14), third line (the MNet note's LRPE explanation prints "
            "the same line)",
            r"&= \text{Rel}\left\{\sum_{s=1}^t \Lambda^{t-s} \mathbf{v}_s \mathbf{k}_s^\top \mathbf{q}_t\right\}",
            r"\mathbf y_t = \mathrm{Rel}\Big\{\textstyle\sum_{s=1}^{t}\Lambda^{t-s}\,\mathbf v_s\mathbf k_s^\top"
            r"\mathbf q_t\Big\}",
            r"\mathbf y_t = \mathrm{Rel}\Big\{\textstyle\sum_{s=1}^{t}\mathbf v_s\mathbf k_s^\top\,\Lambda^{t-s}"
            r"\mathbf q_t\Big\}",
            r"Transposing $\Lambda^{t-s}\mathbf k_s\mathbf v_s^\top$ puts the $k\times k$ $\Lambda^{t-s}$ between "
            r"$\mathbf k_s^\top$ and $\mathbf q_t$; it cannot act on $\mathbf v_s$, a $d$-vector. The next line "
            r"of (14) has the right order.",
            "largest |y − LRPE's recurrence (Eq. 10), run as a loop|",
            demos.appendix_factor_order, about=ROTATIONS),
    Erratum("lcsm-3.1-codes", LCSM, "§3.1, Data Dependence Test (Table 4, code 1-1-0-0)",
            "When data dependence is introduced on two elements, the combination of o and s ($1-1-0-0$) proves to "
            "be the most effective",
            r"\text{“the combination of } o \text{ and } s\ (1\text{-}1\text{-}0\text{-}0)\text{ proves to be the most "
            r"effective”}",
            r"\text{the combination of } e \text{ and } o\ (1\text{-}1\text{-}0\text{-}0)",
            "A code reads e-o-s-a (§2.5), so 1-1-0-0 makes e and o data-dependent. Table 4 agrees with the code, not "
            "the words: of the three two-state codes, 1-1-0-0 (e, o) has the best test perplexity, 24.91, close to "
            "1-1-1-0's 24.75; the o-and-s code 0-1-1-0 has 26.21.",
            "test-perplexity gap between the code the words name and the best two-state code of Table 4",
            demos.data_dependent_states, about=("lcsm_core.codes.parse_code",)),
    Erratum("longhorn-table4-gla", LONGHORN, "Appendix B, Table 4, GLA row",
            r"\left\lVert S-S_{t-1}\mathrm{diag}(\alpha_{t})\right\rVert^{2}_{\text{F}}+2% \langle Sk_{t},x_{t}\rangle",
            r"L_t(S) = \lVert S - S_{t-1}\mathrm{diag}(\alpha_t)\rVert_F^2 \;+\; 2\langle S k_t, x_t\rangle",
            r"L_t(S) = \lVert S - S_{t-1}\mathrm{diag}(\alpha_t)\rVert_F^2 \;-\; 2\langle S k_t, x_t\rangle"
            r"\ \Rightarrow\ \arg\min_S L_t = S_{t-1}\mathrm{diag}(\alpha_t) + x_t\otimes k_t",
            r"With $+2\langle Sk_t, x_t\rangle$ the minimiser is $S_{t-1}\mathrm{diag}(\alpha_t) - x_t\otimes k_t$: "
            r"it subtracts the new pair. The LA and RetNet rows of the same table carry $-2$.",
            "largest |arg min Lₜ (a Newton step with autograd's gradient) − GLA's update|",
            demos.gla_objective_sign, about=("lcsm_core.variants.gated.GLA",)),
    Erratum("lru-exponent-sign", LRU, "the paragraph after Equation (5): “exponential parameterization of λ_j”",
            r"We can use exponential parameterization of $$\lambda_j = e^{\nu_j+i\theta_j}$$",
            r"\lambda_j = e^{\nu_j + i\theta_j}",
            r"\lambda_j = e^{-\nu_j + i\theta_j},\quad \nu_j = e^{\nu_j^{\log}} > 0",
            r"With $\nu_j > 0$, the article's own stability condition (“positive damping similar to $c > 0$”), "
            r"$|e^{\nu_j + i\theta_j}| = e^{\nu_j} > 1$: outside the unit circle. A damped spring sampled every "
            r"$\Delta$ has eigenvalues $e^{(-c/2m \pm i\omega_d)\Delta} = e^{-\nu \pm i\theta}$ with "
            r"$\nu = c\Delta/2m > 0$: the minus is the damping. The same sentence's $\mathcal O(e^{-k\nu_j}\dots)$ and "
            r"the later $\Lambda = \mathrm{diag}(\exp(-\nu + i\theta))$ carry it.",
            "largest |λ − the eigenvalue of a damped spring's exact discretisation exp(AΔ) (a power series), "
            "ν = cΔ/2m, θ = ω_dΔ|",
            demos.lru_decay_sign, about=LRU_CODE),
    Erratum("lcsm-table1-dss", LCSM, "Table 1, DSS row, oscillation and ψ columns",
            "DSS\t\\mathbf{u}_t\t\\mathbf{B}\t$\\mathbf{a}\\mathbf{1}_k^\\top$\t\\mathbf{C}\t$k \\times d$\t\\times",
            r"\mathbf o = \mathbf a\mathbf 1_k^{\top},\quad \psi = \times",
            r"\mathbf o = \mathbf a\mathbf 1_d^{\top},\ \psi = \odot"
            r"\quad\text{(or } \mathbf o = \mathrm{Diag}\{\mathbf a\},\ \psi = \times\text{)}",
            r"DSS is S5 with $\mathbf A = \mathrm{Diag}\{\mathbf a\}$, but "
            r"$(\mathbf a\mathbf 1_k^\top)\mathbf m = \mathbf a(\mathbf 1_k^\top\mathbf m)$ replaces every row "
            r"of the memory by its column sums: $\mathbf a\mathbf 1^\top$ belongs with $\psi = \odot$ and has "
            r"length $d$, as in Eq. (9).",
            "largest |y − the Diag(a) recurrence, run as a loop|",
            demos.dss_oscillation, about=("lcsm_core.variants.ssm.DSS",)),
    Erratum("lcsm-2.3-s4", LCSM, "§2.3, S4: “Note that u_t, y_t ∈ R^k”",
            r"(Note that $\mathbf{u}_t, \mathbf{y}_t \in \mathbb{R}^k$.",
            r"d = 1,\quad \mathbf u_t, \mathbf y_t \in \mathbb R^{k}",
            r"d = 1,\quad u_t, y_t \in \mathbb R,\quad \mathbf m_t \in \mathbb R^{k\times 1}",
            r"With $d = 1$ each SISO SSM reads one number and writes one number; its memory is $k\times 1$ (Table 1; "
            r"the MNet note gives $u_t \in \mathbb R^1$). A $k$-vector $\mathbf u_t$ would make "
            r"$\mathbf B\mathbf u_t^\top$ a $k\times k$ matrix. A statement of sizes, with nothing to evaluate.",
            "", demos.s4_sizes, kind=NOTATION),
    Erratum("lcsm-2.3-tnn", LCSM, "§2.3, TNN (with S5's B, C ∈ ℝᵏˣᵈ): the recurrence",
            r"$$\mathbf{m}_t = \mathbf{A} \mathbf{m}_{t-1} + \mathbf{B} \mathbf{u}_t^{\top}, \quad \mathbf{y}_t = "
            r"\mathbf{m}_t^{\top} \mathbf{C}.$$",
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
            demos.tnn_s5_orientation, about=("lcsm_core.variants.ssm.TNN",)),
    Erratum("lcsm-table4-duplicate", LCSM, "Table 4 (left), the first two rows, both coded 0-0-0-0",
            "0 - 0 - 0 - 0\t29.62\t30.5\t43.45\n0 - 0 - 0 - 0\t28.26\t29.1\t43.45",
            r"\text{0-0-0-0: } 29.62 / 30.5 \qquad \text{0-0-0-0: } 28.26 / 29.1",
            r"\text{0-0-0-0: } 29.62 / 30.5 \qquad \text{(another model; code not printed): } 28.26 / 29.1",
            "One code is one model: wherever else the paper prints a code twice (1-1-1-0 in Tables 4, 5 and 6; "
            "1-10-1-0 in Tables 4 and 9) the numbers are identical, but these two rows differ by 1.4 test perplexity. "
            "§3.1 hints at the second — all-data-independent is “even worse than the scenario where the o state is "
            "not learnable”, so the worse row (30.5) is 0-0-0-0 — but prints no code for it: there is nothing to "
            "check a correction against.",
            "", demos.table4_duplicate_code, kind=NOTATION),
    Erratum("lcsm-table6-duplicate", LCSM, "Table 6 (left), the first two rows, both coded 1-1-1-0",
            "1-1-1-0\t24.26\t24.75\t44.04\t1\t25.77\t26.24\t44.04\n1-1-1-0\t23.78\t24.97\t46.07",
            r"\text{1-1-1-0: } 24.26 / 24.75,\ 44.04\,\mathrm M \qquad \text{1-1-1-0: } 23.78 / 24.97,\ "
            r"46.07\,\mathrm M",
            r"\text{1-1-1-0: } 24.26 / 24.75,\ 44.04\,\mathrm M \qquad \text{a second model (code not printed): } "
            r"46.07\,\mathrm M",
            "The same code with two parameter counts is two models. Which one is 1-1-1-0 the paper's other tables "
            "decide: Tables 4 and 5, and Table 6's own τ = 16 row (the default τ of 1-1-1-0), all print "
            "24.26 / 24.75 / 44.04 M — the first row. The second has the 46.07 M of every activation row 1-1-1-1…7.",
            "largest gap (valid ppl, test ppl, M parameters) from the 1-1-1-0 of Tables 4, 5 and 6 (τ = 16)",
            demos.table6_duplicate_code),
    Erratum("lru-power-angle", LRU, "the paragraph after Equation (5): “xₖ,ⱼ := O(e^(−kνⱼ) e^(iθⱼ))”",
            r"$$x_{k,j} := \mathcal{O}(e^{-k\nu_j}e^{i\theta_j})$$",
            r"x_{k,j} = \mathcal O\big(e^{-k\nu_j}e^{i\theta_j}\big)",
            r"x_{k,j} = \mathcal O\big(\lambda_j^k\big) = \mathcal O\big(e^{-k\nu_j}e^{ik\theta_j}\big)",
            r"$\lambda_j^k = e^{k(-\nu_j + i\theta_j)}$: the angle turns $k$ times as well. The modulus "
            r"$e^{-k\nu_j}$, which the stability argument uses, is right either way.",
            "largest |printed form − a damped spring's mode, stepped k times through exp(AΔ)|",
            demos.lru_power_angle, about=LRU_CODE),
    Erratum("longhorn-appc-scalar", LONGHORN, "Appendix C, proof of Theorem 6: the denominators "
            "“I + βₜ,ᵢ kₜᵀkₜ”",
            r"\frac{\beta_{t,i}}{I+\beta_{t,i}k_{t}^{\top}k_{t}}",
            r"\Big(I - \frac{\beta_{t,i}}{I + \beta_{t,i}k_t^{\top}k_t}k_tk_t^{\top}\Big)S_{t-1,i} + "
            r"\frac{\beta_{t,i}k_tx_{t,i}}{I + \beta_{t,i}k_t^{\top}k_t}",
            r"\Big(I - \frac{\beta_{t,i}}{1 + \beta_{t,i}k_t^{\top}k_t}k_tk_t^{\top}\Big)S_{t-1,i} + "
            r"\frac{\beta_{t,i}k_tx_{t,i}}{1 + \beta_{t,i}k_t^{\top}k_t}",
            r"$k_t^\top k_t$ is a number: Sherman–Morrison divides by the scalar $1 + \beta k^\top k$ (as the "
            r"theorem's own $\varepsilon_t$ does). Read literally, $I$ plus a number adds it to every entry.",
            "largest |row of S − the minimiser of Eq. (5) from its normal equations (torch.linalg.solve)|",
            demos.longhorn_scalar_denominator, about=LONGHORN_CODE),
    Erratum("longhorn-3-orientation", LONGHORN, "§3, after Eq. (5): “a linear model xₜ ≈ Sᵀkₜ”",
            r"x_{t}\approx S^{\top}k_{t}",
            r"x_t \approx S^{\top}k_t,\quad S \in \mathbb R^{d\times m},\ k_t \in \mathbb R^{m}",
            r"x_t \approx S\,k_t",
            r"$S^\top$ is $m\times d$ and cannot multiply $k_t \in \mathbb R^m$ unless $d = m$; Eq. (5)'s own term "
            r"$\lVert Sk_t - x_t\rVert$ predicts with $S k_t$.",
            "largest |x − S k| − the residual Eq. (5)'s minimiser must leave, (x − Sₜ₋₁k)/(1 + βkᵀk)",
            demos.longhorn_prediction_orientation, about=LONGHORN_CODE),
    Erratum("longhorn-4-deltanet-eigenvalues", LONGHORN, "§4 Related Work: DeltaNet's state transition matrix "
            "A(xₜ) = I − βₜkₜkₜᵀ",
            "which can have eigenvalues >>>1, leading to instability",
            r"A(x_t) = I - \beta_t k_t k_t^{\top}\ \text{“can have eigenvalues} > 1\text{”}",
            r"\lambda\big(I - \beta_t k_t k_t^{\top}\big) = \{1,\ 1 - \beta_t\lVert k_t\rVert^2\} \le 1,\quad "
            r"\text{unstable when } \beta_t\lVert k_t\rVert^2 > 2\text{: an eigenvalue} < -1",
            r"With $\beta_t \ge 0$ the eigenvalues of $I - \beta_t k_t k_t^\top$ are 1 (on every direction orthogonal "
            r"to $k_t$) and $1 - \beta_t\lVert k_t\rVert^2$ (on $k_t$): none exceeds 1. The instability is the last "
            r"one falling below $-1$ once $\beta_t\lVert k_t\rVert^2 > 2$, which a unit key with "
            r"$\beta_t \in (0, 1)$ rules out. (The seed renders the comparison as “>>>1”.)",
            "eigenvalues of I − βkkᵀ by numpy eigvalsh, 1000 draws: printed, how far the one outside the unit disc is "
            "from > 1; corrected, largest |eigenvalue − {1, 1 − β‖k‖²}|",
            demos.deltanet_eigenvalues,
            about=("lcsm_core.scan.structured.DeltaRule", "lcsm_core.variants.delta.DeltaNet"),
            detail=r"|\lambda| \le 1 \iff 0 \le \beta_t\lVert k_t\rVert^2 \le 2"),
    Erratum("longhorn-table4-longhorn", LONGHORN, "Appendix B, Table 4, Longhorn row: the ones matrix 1 of size m×n",
            r"S_{t}=(1_{m\times n}-\varepsilon_{t}\otimes k_{t}^{\odot 2})\odot S_{t-1}+",
            r"S_t = (1_{m\times n} - \varepsilon_t\otimes k_t^{\odot 2})\odot S_{t-1} + "
            r"(\varepsilon_t\odot x_t)\otimes k_t",
            r"S_t = (1_{d\times m} - \varepsilon_t\otimes k_t^{\odot 2})\odot S_{t-1} + "
            r"(\varepsilon_t\odot x_t)\otimes k_t,\quad S_t \in \mathbb R^{d\times m}",
            r"$S \in \mathbb R^{d\times m}$ and $\varepsilon_t\otimes k_t^{\odot 2}$ ($\varepsilon_t \in \mathbb R^d$, "
            r"$k_t \in \mathbb R^m$) is $d\times m$, so the ones matrix is $d\times m$; $n$ names no size of the "
            r"state. §3 writes the same update row by row with $1_m$.",
            "largest |Sₜ − §3's row-by-row update (1ₘ − εₜ,ᵢ kₜ^⊙2) ⊙ Sₜ₋₁,ᵢ + εₜ,ᵢ xₜ,ᵢ kₜ, run as a loop|",
            demos.longhorn_update_shape, about=LONGHORN_CODE),
    Erratum("note-cosformer-real-part", NOTE, "Cosformer, Proof, first line (the Lrpe Explanation's first line "
            "prints the same with Λ)",
            r"\operatorname{Rel}\{[\mathbf{k}\mathbf{v}_t]\} &= \sum_{s=1}^t \exp{(i(t-s)\theta)} \mathbf{k}_s "
            r"\mathbf{v}_s^\top",
            r"\mathrm{Rel}\{[\mathbf k\mathbf v]_t\} = \textstyle\sum_{s=1}^{t} e^{i(t-s)\theta}\,"
            r"\mathbf k_s\mathbf v_s^{\top}",
            r"[\mathbf k\mathbf v]_t = \textstyle\sum_{s=1}^{t} e^{i(t-s)\theta}\,\mathbf k_s\mathbf v_s^{\top},"
            r"\quad \mathrm{Rel}\{[\mathbf k\mathbf v]_t\} = \textstyle\sum_{s=1}^{t}\cos((t-s)\theta)\,"
            r"\mathbf k_s\mathbf v_s^{\top}",
            "The left side is a real matrix, the right side a complex one: the sum is the memory [kv]ₜ itself, "
            "unrolled. Its real part is the sum of cosines, which the proof's last line goes on to use. (The LCSM "
            "paper's Eqs. (14)–(15) write the first line without Rel.)",
            "largest |formula − Cosformer's memory [kv]ₜ, or its real part, run as a loop|",
            demos.note_real_part_of_complex_sum, about=ROTATIONS),
    Erratum("note-mamba-shapes", NOTE, "the Example table, Mamba row: forget state and memory size",
            "Mamba\t$\\mathbf{C}_t \\in \\mathbb{R}^k$\t$\\mathbf{A}_t \\in \\mathbb{R}^{k  imes k}$\t"
            "$\\mathbf{B}_t \\in \\mathbb{R}^k$\t$\\mathbf{u}_t \\in \\mathbb{R}^d$\t$k \\times e$\t"
            "Element-wise Production",
            r"\mathbf A_t \in \mathbb R^{k\times k},\quad \text{element-wise},\quad \text{memory } k\times e",
            r"\mathbf A_t \in \mathbb R^{k\times d},\quad \mathbf m_t = \mathbf A_t\odot\mathbf m_{t-1} + "
            r"\mathbf B_t\mathbf u_t^{\top},\quad \text{memory } k\times d",
            r"An element-wise product needs the forget state in the memory's shape, and with "
            r"$\mathbf u_t \in \mathbb R^d$ the note's memory is $k\times d$; $e$ is none of its sizes. "
            r"$\mathbf A_t \in \mathbb R^{k\times k}$ is the shape for a matrix product (the S4 and S5 rows); with "
            r"$\odot$ it is $k\times d$, as LCSM's Table 1 has it: $d$ selective SSMs, one per channel, each with "
            r"its own decays.",
            "largest |y − d selective SSMs, one per channel, run as numpy loops|",
            demos.note_mamba_forget_shape, about=("lcsm_core.variants.gated.Mamba",)),
    Erratum("lcsm-table1-caption", LCSM, "Table 1, caption: the subscript of a data-dependent state",
            "If the state is directly linked to the input sequence, the subscript i is emphasized.",
            r"\text{“If the state is directly linked to the input sequence, the subscript } i "
            r"\text{ is emphasized.”}",
            r"\text{the subscript } t\!:\ \mathbf e_t,\ \mathbf o_t,\ \mathbf s_t",
            "§2.3 marks a data-dependent state with the subscript t (“Notationally, this is represented using the "
            "subscript t”), and every such entry of Table 1 carries t (k_t, B_t, A_t, g_t…); none carries i, which "
            "names the input state. A label, with nothing to evaluate.",
            "", None, kind=NOTATION),
    Erratum("lcsm-3.2-codes", LCSM, "§3.2, Data Dependence Test (Fig. 4): the codes “1-0-1 and 1-1-1”",
            "with the exception of the $1-0-1$ and $1-1-1$ configurations",
            r"\text{“the } 1\text{-}0\text{-}1 \text{ and } 1\text{-}1\text{-}1 \text{ configurations”}",
            r"1\text{-}0\text{-}1\text{-}0 \text{ and } 1\text{-}1\text{-}1\text{-}0",
            "A model code has four fields, e-o-s-a (§2.5); these have three. The data dependence test holds the "
            "activation at 0 (all its codes are e-o-s-0, as in Table 4), and the next sentence names the four-field "
            "1-0-1-0. A label, with nothing to evaluate.",
            "", None, kind=NOTATION),
    Erratum("lcsm-table7-m2", LCSM, "Appendix, Table 7, M2 row, oscillation column (the HTML rendering; the "
            "Markdown rendering prints M1's I − k kᵀ)",
            r"\mathbf{I}_{k}-\mathbf{k}_{t}\bar{\mathbf{k}}_{t}^{\top}",
            r"\mathbf o_t = \mathbf I_k - \mathbf k_t\bar{\mathbf k}_t^{\top}\quad"
            r"(\bar{\mathbf k}_t\ \text{undefined})",
            r"\mathbf o_t = \mathbf I_k - \hat{\mathbf k}_t\hat{\mathbf k}_t^{\top},\quad "
            r"\mathbf e_t = \hat{\mathbf k}_t = \mathbf k_t/\lVert\mathbf k_t\rVert",
            r"$\bar{\mathbf k}_t$ is never defined. Its readings: $\bar{\mathbf k} = \mathbf k/\lVert\mathbf k\rVert$ "
            r"gives $I - \lVert\mathbf k\rVert\hat{\mathbf k}\hat{\mathbf k}^\top$, stable only while "
            r"$\lVert\mathbf k\rVert \le 2$; a second projection $\bar{\mathbf k} = \bar W x$ is stable only while "
            r"$0 \le \bar{\mathbf k}^\top\mathbf k \le 2$ and is not symmetric, so two steps that are each stable can "
            r"grow together; a complex conjugate gives M1 again for real keys. Built here: the unit key in both "
            r"places, FWP's delta rule (Eq. 13) with $\beta = 1$ — a projection, eigenvalues 1 and 0 for every input. "
            r"The choice is this project's; the ambiguity is the paper's.",
            "the core's M2: largest of |eigenvalues − {0, 1}| (numpy eigvalsh), |y − FWP's delta rule with β = 1 and "
            "unit keys, run as a numpy loop| and |e − k̂|",
            demos.m2_readings, kind=UNDEFINED, seed_file=LCSM_HTML,
            detail=r"\lambda\big(\mathbf I_k - \mathbf k_t\bar{\mathbf k}_t^{\top}\big) = \{1\ (k-1\text{ times}),\ "
                   r"1 - \bar{\mathbf k}_t^{\top}\mathbf k_t\},\qquad |\lambda| \le 1 \iff "
                   r"0 \le \bar{\mathbf k}_t^{\top}\mathbf k_t \le 2"),
)

BY_ID = {e.id: e for e in ERRATA}


def verdict(kind: str, demo: demos.Demonstration | None) -> bool | None:
    """Whether a card's numeric check confirms it; None for a notation error, which has none."""
    if kind == NOTATION or demo is None:
        return None
    if kind == NAMING:
        return demo.printed_holds and demo.corrected_holds
    if kind == UNDEFINED:
        return demo.corrected_holds
    return demo.printed_fails and demo.corrected_holds


def check_errata(seed: int = 0) -> list[dict]:
    """One row per erratum: where, the seed's text, printed vs corrected, the check's numbers and the verdict."""
    rows = []
    for erratum in ERRATA:
        demo = erratum.demonstrate(seed) if erratum.demonstrate is not None else demos.Demonstration()
        rows.append(dict(id=erratum.id, kind=erratum.kind, source=erratum.source, location=erratum.location,
                         quote=erratum.quote, quote_file=erratum.quote_file, printed=erratum.printed,
                         corrected=erratum.corrected, why=erratum.why, measure=erratum.measure,
                         detail=erratum.detail, numeric=erratum.kind != NOTATION,
                         printed_error=demo.printed_error, printed_failure=demo.printed_failure,
                         unformable=erratum.kind == WRONG and demo.printed_error is None,
                         corrected_error=demo.corrected_error, facts=demo.facts, table=demo.table,
                         printed_fails=demo.printed_fails, printed_holds=demo.printed_holds,
                         corrected_holds=demo.corrected_holds, confirmed=verdict(erratum.kind, demo)))
    return rows

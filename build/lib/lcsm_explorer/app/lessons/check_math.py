"""Lesson 10 · Check the math: the paper's printed backward formulas against autograd, and every other
printed error found in the sources.

Prose and exercises: lessons/10-check-math.md. Three core calls: `check_all` evaluates every printed
backward line (and its corrected form) on random fp64 data; `compare_backward` runs the core's
hand-written backward of `eos_scan` against autograd and gradcheck on the learner's problem;
`check_errata` checks each erratum in the sources against a truth computed another way (or says it is a
notation error with no numeric check).
"""
from __future__ import annotations

from dataclasses import dataclass

from lcsm_core.backward_check import compare_backward
from lcsm_core.backward_formulas import check_all
from lcsm_core.errata import ERRATA, NAMING, NO_NUMERIC_CHECK, NOTATION, UNDEFINED, check_errata
from lcsm_explorer.app.kit.blocks import Callout, Columns, Group, Table, Text
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Notice, Snippet
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings

CHECKED = sum(e.kind != NOTATION for e in ERRATA)     # errata with a numeric check

PSI_NAMES = {"elementwise": "⊙ elementwise (Type 1)", "matrix": "× matrix (Type 2)"}

SETTINGS = Settings("check_math", (
    Setting.number("seed", "random problem (seed)", 0, 0, 10_000, step=1,
                   help="The random states every check on this page is evaluated on."),
    Setting.choice("psi", "ψ", "elementwise", tuple(PSI_NAMES), option_labels=PSI_NAMES, group="Live check",
                   help="How the oscillation acts on the memory: ⊙ elementwise, or × a k×k matrix."),
    Setting.slider("T", "T", 8, 1, 64, group="Live check", help="sequence length"),
    Setting.slider("k", "k", 4, 1, 16, group="Live check", help="expand size: the memory is k × d"),
    Setting.slider("d", "d", 3, 1, 16, group="Live check", help="model width"),
    Setting.toggle("complex", "complex o", False, group="Live check",
                   help="A complex oscillation: every multiplier in the backward is conjugated."),
))


def _problem(**changes) -> dict:
    """A preset's full problem, the seed included."""
    return dict(dict(seed=0, psi="elementwise", T=8, k=4, d=3, complex=False), **changes)


PRESETS = (
    Preset("🔁 Type 2, complex", _problem(psi="matrix", complex=True, T=16),
           r"ψ = × with a complex $\mathbf f_t$: the gradient goes back through the conjugate transpose "
           r"$\mathbf f_t^{\mathsf H}$ — the printed $\mathbf f_t\,\mathbf{dm}_t$ would be wrong twice; the "
           "hand-written backward still matches autograd to rounding.",
           claim=("psi_is_matrix = 1", "is_complex = 1", "t2_dm_printed_error > 1", "relative_error < 1e-12",
                  "gradcheck_passed = 1")),
    Preset("1️⃣ One step, T = 1", _problem(T=1),
           r"A single step starts from $\mathbf m_0 = 0$, so the true "
           r"$\mathbf{df}_1 = \mathbf{dm}_1 \odot \mathbf m_0$ is zero — the printed $\mathbf{dm}_t \odot \mathbf m_t$ "
           "would not be.",
           claim=("T = 1", "psi_is_matrix = 0", "df_max = 0 ± 0", "t1_df_printed_error > 1", "relative_error < 1e-12")),
    Preset("🧱 Wide memory", _problem(T=32, k=16, d=16),
           "A 16 × 16 memory over 32 steps: the same corrected formulas, 256 entries a step, still exact in fp64.",
           claim=("k = 16", "d = 16", "T = 32", "worst_corrected_error < 1e-9", "relative_error < 1e-12",
                  "gradcheck_passed = 1")),
    Preset("🎲 Another random problem", _problem(seed=7),
           "New random data (seed 7): the same three printed lines fail, by errors from 2.2 to 11 — not rounding; "
           f"and the numeric checks of all {CHECKED} errata that have one confirm them again.",
           claim=("seed = 7", "n_wrong = 3", "n_unexpected = 0", "least_wrong_error between 2 and 2.5",
                  "worst_printed_error between 10.5 and 11.5", "worst_corrected_error < 1e-9",
                  f"n_errata = {len(ERRATA)}", f"errata_confirmed = {CHECKED}")),
)


@dataclass(frozen=True)
class MathCheck:
    formulas: list[dict]      # one row per printed formula (check_all)
    live: dict                # compare_backward on the learner's problem
    errata: list[dict]        # one row per other printed error in the sources (check_errata)


def compute(v: dict) -> MathCheck:
    # check_all and check_errata depend on the seed only, but take ~40 and ~80 ms: not worth a cache of their own
    return MathCheck(formulas=check_all(seed=v["seed"]),
                     live=compare_backward(v["psi"], v["T"], v["k"], v["d"], v["complex"], v["seed"]),
                     errata=check_errata(seed=v["seed"]))


def largest_error(check: MathCheck) -> float:
    return max(check.live["errors"].values())


def metrics(v: dict, check: MathCheck) -> list:
    wrong = sum(not row["printed_holds"] for row in check.formulas)
    items = [Metric("printed formulas that fail", f"{wrong} of {len(check.formulas)}",
                    help="evaluated on random fp64 data and compared with autograd"),
             Metric("largest |manual − autograd|", f"{largest_error(check):.1e}",
                    help=f"largest gradient entry: {check.live['scale']:.3g}"),
             Metric("gradcheck", "passes" if check.live["gradcheck"] else "fails"),
             Metric("errata in the sources confirmed", f"{errata_confirmed(check)} of {errata_checked(check)}",
                    help=f"numeric checks on random fp64 data that confirm their erratum; {len(check.errata)} errata "
                         f"in all, {len(check.errata) - errata_checked(check)} of them notation errors with no "
                         "numeric check")]
    if not all(row["corrected_error"] < 1e-9 for row in check.formulas):
        items.append(Notice("A corrected formula does not match autograd on this problem.", level="error"))
    if errata_confirmed(check) < errata_checked(check):
        items.append(Notice("An erratum is not confirmed on this problem (see its card).", level="error"))
    return items


def errata_confirmed(check: MathCheck) -> int:
    return sum(row["confirmed"] is True for row in check.errata)


def errata_checked(check: MathCheck) -> int:
    return sum(row["numeric"] for row in check.errata)


def formula_panel(v: dict, check: MathCheck) -> list:
    """The printed formulas, each with its verdict and correction; the live comparison table; the errata."""
    return [Text(
        "The LCSM paper (appendix 5.1, eqs. 11–12) prints the backward pass of the EOS recurrence, and the note it "
        "grew from marks the same lines *(need check)*. Here every printed line is evaluated on random data and "
        "compared with PyTorch's autograd. Three of the ten do not hold; the corrected forms are what the core's "
        "hand-written backward uses."),
        Text(r"\text{Type 1: } \mathbf m_t = \mathbf f_t \odot \mathbf m_{t-1} + \mathbf e_t\mathbf i_t^\top"
             r"\qquad \text{Type 2: } \mathbf m_t = \mathbf f_t\,\mathbf m_{t-1} + \mathbf e_t\mathbf i_t^\top"
             r"\qquad \mathbf y_t = \mathbf m_t^\top \mathbf s_t", "latex"),
        *map(formula_card, check.formulas), *live_check(v, check.live), *errata_section(check.errata)]


def formula_card(row: dict) -> Group:
    """One printed backward line: its verdict, as printed, its correction when wrong, the why."""
    kind = "Type 1 (ψ = ⊙)" if row["psi"] == "elementwise" else "Type 2 (ψ = ×)"
    verdict = (Callout(f"holds · error {row['printed_error']:.1e}", "success") if row["printed_holds"] else
               Callout(f"wrong · error {row['printed_error']:.2g}", "error"))
    corrected = [] if row["printed_holds"] else [Text(f"corrected (error {row['corrected_error']:.1e})", "caption"),
                                                 Text(row["corrected"], "latex")]
    return Group([Columns([[Text(f"**{kind} — ${row['quantity']}$**")], [verdict]], widths=(4, 1)),
                  Text("as printed", "caption"), Text(row["printed"], "latex"), *corrected,
                  Text(row["note"], "caption")], border=True)


def live_check(v: dict, live: dict) -> list:
    """The core's hand-written backward against autograd on the learner's problem."""
    gradcheck = (Callout(f"torch.autograd.gradcheck passes (fp64). Largest gradient entry: {live['scale']:.3g}.",
                         "success") if live["gradcheck"] else
                 Callout("gradcheck failed: the hand-written backward disagrees with finite differences.", "error"))
    return [Text("Run it yourself: the core's hand-written backward vs autograd", "heading"),
            Text(f"ψ = {PSI_NAMES[v['psi']]}, T = {v['T']}, k = {v['k']}, d = {v['d']}"
                 + (", complex o" if v["complex"] else "") + " (change them in the sidebar). For complex oscillations "
                 "every multiplier in the backward is conjugated (PyTorch's convention: the gradient of a real loss "
                 "is taken with respect to the conjugate)."),
            Table([{"state": f"d{name}", "max |manual − autograd|": error} for name, error in live["errors"].items()]),
            gradcheck]


def errata_section(rows: list[dict]) -> list:
    """One card per printed error in the sources: where, printed vs corrected, the numbers, the verdict."""
    return [Text("Errata in the sources", "heading"), Text(
        "Beyond the backward pass, the sources print a few more things that do not hold. Each card quotes the seed, "
        "then evaluates the printed form and the corrected one on the same random fp64 data (the seed in the "
        "sidebar) against a truth computed another way, never with the code the card is about — the recurrence "
        "written out step by step, an eigen-decomposition, a damped spring's exact discretisation, autograd, or the "
        "numbers of another table. Where the printed form mixes up shapes it cannot even be formed (here k = 3, "
        "d = 4). A formula that holds under the wrong name is a naming inconsistency; a wrong size or label with "
        f"nothing to evaluate says so: {NO_NUMERIC_CHECK}."),
        *map(erratum_card, rows)]


def erratum_card(row: dict) -> Group:
    """One erratum: where, the seed's text, printed vs corrected with the check's verdict on each, the facts."""
    printed, corrected = erratum_verdicts(row)
    detail = [Text(row["detail"], "latex")] if row["detail"] else []
    table = [Table(list(row["table"]))] if row["table"] else []
    facts = [Text("\n".join(f"- {label}: {value:.3g}" for label, value in row["facts"]))] if row["facts"] else []
    return Group([Text(f"**{row['source']} · {row['location']}**"),
                  Text(f"as the seed ({row['quote_file']}) prints it", "caption"), Text(row["quote"], "code"),
                  Columns([[Text("as printed", "caption"), Text(row["printed"], "latex"), printed],
                           [Text("corrected", "caption"), Text(row["corrected"], "latex"), corrected]]),
                  *detail, *table, *facts, Text(row["why"], "caption")], border=True)


def erratum_verdicts(row: dict) -> tuple[Callout, Callout]:
    """The verdict boxes under the printed and the corrected form, by the kind of erratum."""
    measure = row["measure"]
    if row["kind"] == NOTATION:
        return (Callout(f"printed notation is wrong · {NO_NUMERIC_CHECK}", "error"),
                Callout(f"corrected form · {NO_NUMERIC_CHECK}", "info"))
    if row["kind"] == NAMING:
        printed = (Callout(f"printed formula holds · a naming inconsistency, not a wrong formula · {measure}: "
                           f"{row['printed_error']:.1e}", "warning") if row["printed_holds"] else
                   Callout(f"printed formula does not hold here · {measure}: {row['printed_error']:.3g}", "error"))
    elif row["kind"] == UNDEFINED:
        printed = Callout(f"printed form is ambiguous · {row['printed_failure']}", "warning")
    elif row["printed_error"] is None:
        printed = Callout(f"printed form fails · cannot be formed: {row['printed_failure']}", "error")
    elif row["printed_fails"]:
        printed = Callout(f"printed form fails · {measure}: {row['printed_error']:.3g}", "error")
    else:
        printed = Callout(f"printed form holds here · {measure}: {row['printed_error']:.1e}", "warning")
    corrected = (Callout(f"corrected form holds · {measure}: {row['corrected_error']:.1e}", "success")
                 if row["corrected_holds"] else
                 Callout(f"corrected form does not hold here · {measure}: {row['corrected_error']:.3g}", "warning"))
    return printed, corrected


def quantities(v: dict, check: MathCheck) -> dict[str, float]:
    rows = check.formulas
    wrong = [row for row in rows if not row["printed_holds"]]
    error = largest_error(check)
    printed = {row["id"]: row["printed_error"] for row in rows}
    return dict(n_formulas=len(rows), n_wrong=len(wrong),
                n_wrong_matrix=sum(row["psi"] == "matrix" for row in wrong),
                n_wrong_elementwise=sum(row["psi"] == "elementwise" for row in wrong),
                n_unexpected=sum(row["printed_holds"] != row["recorded_holds"] for row in rows),
                worst_printed_error=max(row["printed_error"] for row in rows),
                least_wrong_error=min((row["printed_error"] for row in wrong), default=0.0),
                t1_df_printed_error=printed["t1-df"], t2_dm_printed_error=printed["t2-dm"],
                df_max=check.live["grad_max"]["o"],
                worst_corrected_error=max(row["corrected_error"] for row in rows),
                max_error=error, grad_scale=check.live["scale"],
                relative_error=error / max(check.live["scale"], 1e-300),
                gradcheck_passed=float(bool(check.live["gradcheck"])), psi_is_matrix=float(v["psi"] == "matrix"),
                n_errata=len(check.errata), errata_confirmed=errata_confirmed(check),
                errata_checked=errata_checked(check), errata_unformable=sum(row["unformable"] for row in check.errata),
                is_complex=float(v["complex"]), T=v["T"], k=v["k"], d=v["d"], seed=v["seed"])


LESSON = Lesson(
    page="check_math", number=10, title="Check the math", icon="✅", section="Sequence models",
    summary="Hand-written backward vs autograd, formula by formula; every printed error in the sources.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="✅ Problem",
    compute=compute, metrics=metrics, quantities=quantities, panel=formula_panel,
    chart_controls=("psi", "complex", "T"),
    snippet=Snippet(
        imports="from lcsm_core.backward_formulas import check_all",
        call="check_all(seed={seed})   # every printed backward formula against autograd",
        prints=dict(n_formulas="len(result)", n_wrong="sum(not row['printed_holds'] for row in result)")),
)

"""The lesson's "What was measured" section, written from the shipped results files: one source, so the
lesson's numbers (accuracies, verdicts, which runs stayed on the plateau, how long a grid took) cannot drift
from the JSON the page reads. tests/training/test_paper_lab_report.py fails when they differ.

    python -m lcsm_core.paper_lab.report           # print the section
    python -m lcsm_core.paper_lab.report --write   # replace it in lessons/09-paper-lab.md
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path

from .ablations import ABLATIONS, SELECTIVE_SSM
from .evidence import MARGIN, RULE
from .results import best_per_seed, load_shipped, lr_note, spreads, verdict
from .search import (
    CONFIRM_ROUNDS,
    CONFIRM_SEEDS,
    EVIDENCE_PLANS,
    RUNNING,
    STAGE1_RATES,
    STAGE1_SEEDS,
    STAGE2_SEEDS,
    STAGE3_SEEDS,
    EvidenceVerdict,
    evidence_path,
    evidence_verdict,
    load_evidence,
    stage_costs,
)
from .spread import SEPARATION

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "09-paper-lab.md"
HEADING = "### What was measured"
ORDER = ("data_dependence", "parameterization", "tau", "activation", "oscillation")
LEFT_PLATEAU_BY = 0.1            # "left the plateau": above 1/pairs (a value the model has seen) by this much

# What each entry is, where the bare numbers do not say it (no numbers here: they come from the files)
NOTES = {
    "parameterization": "Code \"0\" is read two ways, side by side: a DSS bank (one SSM per channel with its own "
                        "fixed Δ, B and C: its expand and shrink never read the input) and a Mamba-style selective "
                        f"SSM (`{SELECTIVE_SSM}`: Δ_t, B_t and C_t computed from the input). The paper's code 0 "
                        "covers \"SSM parameterization methods like Mamba, and S4\" and does not say which it trained.",
    "oscillation": "1-10-1-0 has no decay at all (linear attention).",
}


def _numbers(spec, results) -> list[tuple[str, str, float]]:
    """(label, "0.87" or "0.80 [0.70–0.90]", mean) per entry and length, best first."""
    rows = []
    for label, row in spreads(spec, results).items():
        for T, s in row.items():
            if s is not None:
                name = label if len(spec.seq_lens) == 1 else f"{label} (T={T})"
                rows.append((name, f"{s.mean:.2f}" if s.n == 1 else str(s), s.mean))
    return sorted(rows, key=lambda r: -r[2])


def plateau_said(spec, results, plateau: float) -> str:
    """Which entries' seeds ended below `plateau` (still on MQAR's plateau), grouped: "all 3 seeds of a, b; 1 of 3
    seeds of c"; "none" when every seed left it. Counted per seed, because a mean over seeds hides the lottery."""
    counts = {}
    for label in ABLATIONS[spec.ablation].labels:
        finals = [r.best_acc for T in spec.seq_lens for r in best_per_seed(spec, results, label, T).values()]
        counts[label] = (sum(a < plateau for a in finals), len(finals))
    groups = {}
    for label, (stuck, n) in counts.items():
        if stuck:
            groups.setdefault((stuck, n), []).append(label)
    if not groups:
        return "none"
    said = []
    for (stuck, n), labels in sorted(groups.items(), key=lambda g: (-g[0][0] / g[0][1], -g[0][0])):
        share = (f"all {n} seeds" if n > 1 else "the one seed") if stuck == n else f"{stuck} of {n} seeds"
        said.append(f"{share} of {', '.join(labels)}")
    return "; ".join(said)


def ablation_paragraph(name: str) -> str:
    shipped = load_shipped(name)
    ablation = ABLATIONS[name]
    if shipped is None:
        return f"- **{ablation.title}: no shipped results.**"
    spec, results = shipped.spec, shipped.results
    found = verdict(spec, results)
    outcome = "incomplete" if found is None else found.outcome
    plateau = 1 / spec.kv_pairs + LEFT_PLATEAU_BY
    numbers = ", ".join(f"{name_} {text}" for name_, text, _ in _numbers(spec, results))
    said = "no verdict" if outcome == "incomplete" else f"its ranges alone read “{outcome}”, a demo is no verdict"
    parts = [f"- **{ablation.title.split(' (')[0]} — demo ({said}).** {numbers}.",
             f"Below {plateau:.2f} (still on the plateau) after {spec.steps} steps: "
             f"{plateau_said(spec, results, plateau)}."]
    if name in NOTES:
        parts.append(NOTES[name])
    if found is not None:
        parts.append(f"The check: {found.detail}.")
    note = lr_note(spec, results)
    if note:
        parts.append(f"Learning rates: {note}.")
    parts.append(f"Time: {shipped.time_said()}.")
    return " ".join(parts)


EVIDENCE_INTRO = (
    "A verdict rests on each claim's **evidence grid** (`lcsm_core/paper_lab/results/evidence/`, run from the "
    "command line: `python -m lcsm_serving.paper_lab --evidence NAME --ship`), never on the demo grid. Each entry gets "
    f"its own learning rate: stage 1 tries {len(STAGE1_RATES)} rates over 1.5 decades "
    f"({', '.join(f'{r:g}' for r in STAGE1_RATES)}) × {len(STAGE1_SEEDS)} seeds; a best rate at an edge gets one more "
    f"rate beyond it, and if it is still at the edge the entry is withheld; stage 2 runs {len(STAGE2_SEEDS)} seeds "
    "at the best rate and its neighbours, each seed keeping its best; when seeds 0–4 leave the claim undecided, "
    f"stage 3 gives the entries of its open comparisons {len(STAGE3_SEEDS)} more seeds at the same rates, once "
    "(this stage joined the rule after the activation, parameterization and τ grids had run their first five "
    "seeds: their stage 3 is a second look the rule did not plan before those seeds were seen), and it stops as "
    "soon as no outcome of its unfinished runs could change the verdict (each seed still to come counted both as "
    "leaving the plateau and as staying on it). "
    "When stages 1–3 leave a claim inconclusive, a **confirmation** asks one question on fresh seeds: the open "
    "comparison that would decide the claim alone if it ended the way seeds 0–9 lean (the one leaning furthest; "
    "read from the seeds stages 1–3 ran, those of a stage 3 that stopped early included) "
    f"gets {len(CONFIRM_SEEDS)} fresh seeds ({CONFIRM_SEEDS[0]}–{CONFIRM_SEEDS[-1]}) per entry, each at the entry's "
    "best rate, read by the same rule on those seeds alone (the claim's other comparisons keep their reading), "
    f"and there the rule also reads a **margin**: a lead in the share off the plateau of less than {MARGIN:g} is no "
    "finding, so when the winner's lead is, with 95 % confidence, below it (the upper end of its Newcombe "
    "interval), the comparison goes against the claim. Only fresh seeds at a rate fixed before they ran give that "
    "interval fairly: stages 1–3 pick each entry's rate on the seeds they read, which flatters every share. A "
    f"round the rule leaves open gets a second one, the same question on {len(CONFIRM_ROUNDS[1])} more fresh seeds "
    f"({CONFIRM_ROUNDS[1][0]}–{CONFIRM_ROUNDS[1][-1]}), read alone (two looks at 95 % each). A round runs only when "
    "all of it fits in what is left of the budget, and stops as stage 3 does. (The confirmation joined the rule "
    "after the oscillation and τ grids had run stages 1–3, fixed with its forty seeds before any of them ran; the "
    "margin and the second round joined it after oscillation's first round had been read, so that round keeps the "
    "reading it had, without the margin, and the oscillation and τ budgets were raised to pay for the rounds.) "
    "Stages 1–2 stop early the same way: once one comparison must end against the claim (below, or no better) "
    "whatever their unfinished runs show — or every comparison for it — the claim is decided on seeds 0–4, which "
    "would give it no stage 3, so the rest would change nothing; the driver runs first the entries of the "
    "comparison that costs least to finish, one whose stage-1 seeds lean against the claim before the others, and "
    "the entries the verdict did not need are listed as not run (this stop joined the rule while the "
    "data-dependence grid was in stage 1; it changes which runs are spent, never the verdict the whole search "
    "would give). "
    "Each grid has a CPU budget (the cost model's, "
    "printed before it runs, with what it takes on the machine at hand: the model's seconds times that machine's "
    "measured factor, its time for one reference step over the model's); what lies beyond it is *not tested at "
    "this scale*. Data dependence also runs T = 128 "
    "and 256, where the paper states its finding per length; the other claims run T = 32. " + RULE)
DEMO_INTRO = (
    "#### The demo grids\n\nThe page's own buttons run a small demo grid (one learning rate, 1e-2, and three seeds: "
    "minutes on a 2-core CPU); its shipped results are below. A cell is the best test accuracy over the sweep: a "
    "mean with its [min–max] over seeds. One rate and three seeds decide no claim.")


def entry_said(found: EvidenceVerdict, label: str, T: int) -> str:
    """One entry's evidence in words: its best rate (and the rates stage 2 kept), then the statistic."""
    search = next(e for e in found.entries if e.label == label and e.seq_len == T)
    arm = found.arms.get((label, T))
    if search.best is None:
        return f"{label}: {'not run (the verdict did not need it)' if found.decided else 'stage 1 not finished'}"
    rates = f"best rate {search.best:g}" + (f" ({search.withheld})" if search.withheld else "")
    if arm is None or arm.n == 0:
        return f"{label}: {rates}, stage-1 mean {search.means[search.best]:.2f}"
    lo, hi = arm.interval
    return f"{label}: {arm.left}/{arm.n} left (95 % CI {lo:.2f}–{hi:.2f}), median {arm.median:.2f}, {rates}"


def shipped_verdict(name: str):
    """(plan, shipped evidence or None, its verdict or None) of a claim: read again only when its evidence file
    changes (a page reruns its script at every widget move; the verdict takes seconds to read)."""
    path = evidence_path(name)
    stamp = (path.stat().st_mtime_ns, path.stat().st_size) if path.exists() else None
    return _shipped_verdict(name, stamp, load_evidence)


@functools.lru_cache(maxsize=16)
def _shipped_verdict(name: str, stamp, loader):
    """(the loader is part of the key: one stood in for, as the tests do, is not answered from the file's cache)"""
    plan, shipped = EVIDENCE_PLANS[name], loader(name)
    if shipped is None or shipped.plan.base != plan.base:
        return plan, None, None
    return plan, shipped, evidence_verdict(plan, shipped.results)


def evidence_words(name: str) -> tuple[str, str, str]:
    """(outcome, the numbers, what ran and why undecided) of a claim's evidence grid, in words."""
    plan, shipped, found = shipped_verdict(name)
    budget = plan.budget_cpu_s / 3600
    resume = f"`python -m lcsm_serving.paper_lab --evidence {name} --ship`"
    if found is None:
        costs = ", ".join(f"{stage} {cost / 3600:.2f}" for stage, cost in stage_costs(plan).items())
        return ("not tested at this scale", "",
                f"The evidence grid has not run yet: budget {budget:.2f} CPU-hours (stages, CPU-hours: {costs}); "
                f"{resume} runs it.")
    outcome = f"not decided yet ({found.why})" if found.outcome == RUNNING else found.outcome
    lengths = plan.base.seq_lens
    numbers = " · ".join((f"T = {T}: " if len(lengths) > 1 else "")
                         + "; ".join(entry_said(found, label, T) for label in ABLATIONS[name].labels)
                         for T in lengths)
    ran = (f"The grid: {len(shipped.results)} runs of {plan.base.steps} steps at d = k = {plan.base.d_model}, "
           f"T = {', '.join(map(str, plan.base.seq_lens))}, measured on {shipped.device} ({shipped.measured_on}); "
           f"{found.spent_s / 3600:.2f} of {budget:.2f} budgeted CPU-hours spent (cost model).")
    if found.outcome == RUNNING:
        ran += f" {resume} resumes it."
    elif found.why:
        ran += f" Undecided because {found.why}."
    else:
        ran += f" The comparisons: {found.detail}."
    if found.readings:
        ran += " Per reading: " + "; ".join(f"{r}: {o}" for r, o in found.readings) + "."
    return outcome, numbers, ran


def evidence_rows(name: str) -> list[dict]:
    """Per entry and length of the shipped evidence grid: its best rate, the rates stage 2 kept, and the statistic
    ([] when none has run)."""
    plan, shipped, found = shipped_verdict(name)
    if found is None:
        return []
    rows = []
    for search in found.entries:
        arm = found.arms.get((search.label, search.seq_len))
        lo, hi = arm.interval if arm is not None and arm.n else (None, None)
        rows.append({"entry": search.label, "seeds from": "stages 1–3", "T": search.seq_len,
                     "best rate": None if search.best is None else f"{search.best:g}",
                     "rates kept": ", ".join(f"{r:g}" for r in search.window) or search.withheld
                     or ("not run: the verdict did not need it" if found.decided and search.best is None else "—"),
                     "seeds left / run": f"{arm.left}/{arm.n}" if arm is not None and arm.n else "—",
                     "95 % interval": "—" if lo is None else f"{lo:.2f}–{hi:.2f}",
                     "median": None if arm is None or not arm.n else f"{arm.median:.3f}"})
    return rows + confirmation_rows(found.confirmation)


def confirmation_rows(confirmed) -> list[dict]:
    """Each confirmation round's two sides, as the entries' rows are (none where none ran); the round has a column
    of its own, so that a side's entries ("τ = 16 + τ = 32 + τ = 64") are not cut short by its name."""
    if confirmed is None:
        return []
    rows = []
    for round_ in confirmed.rounds():
        q, c = round_.question, round_.comparison
        for labels, arm in ((q.winners, c.winner), (q.others, c.other)):
            lo, hi = arm.interval if arm.n else (None, None)
            rows.append({"entry": " + ".join(labels), "seeds from": round_.name, "T": q.seq_len,
                         "best rate": ", ".join(f"{q.rates[label]:g}" for label in labels),
                         "rates kept": f"the best rate only; fresh seeds {round_.seeds[0]}–{round_.seeds[-1]}",
                         "seeds left / run": f"{arm.left}/{arm.n}" if arm.n else "—",
                         "95 % interval": "—" if lo is None else f"{lo:.2f}–{hi:.2f}",
                         "median": f"{arm.median:.3f}" if arm.n else None})
    return rows


def evidence_paragraph(name: str) -> str:
    outcome, numbers, ran = evidence_words(name)
    title = ABLATIONS[name].title.split(" (")[0]
    return " ".join(p for p in (f"- **{title} — {outcome}.**", f"{numbers}." if numbers else "", ran) if p)


def measured_section() -> str:
    """The section, heading included, as the lesson holds it."""
    intro = ("Every number below is written from the results files the page opens with "
             "(`lcsm_core/paper_lab/results/`, by `python -m lcsm_core.paper_lab.report --write`). " + EVIDENCE_INTRO)
    demo = [ablation_paragraph(name) for name in ORDER]
    demo_intro = DEMO_INTRO + (f" (Ranges closer than {SEPARATION:g}, about two standard errors of one evaluation "
                               "on 1024 test answers, are not told apart.)")
    return "\n\n".join([HEADING, intro, *(evidence_paragraph(name) for name in ORDER), demo_intro, *demo]) + "\n"


def section_span(text: str) -> tuple[int, int]:
    """Where the section lies in the lesson: from its heading to the next heading of level 2 or 3."""
    start = text.index(HEADING)
    ends = [i for marker in ("\n## ", "\n### ") if (i := text.find(marker, start + len(HEADING))) != -1]
    return start, (min(ends) + 1 if ends else len(text))


def lesson_section(path: Path = LESSON) -> str:
    text = path.read_text()
    start, end = section_span(text)
    return text[start:end]


def write(path: Path = LESSON) -> bool:
    """Replace the section in the lesson; True when it changed."""
    text = path.read_text()
    start, end = section_span(text)
    new = text[:start] + measured_section() + "\n" + text[end:].lstrip("\n")
    if new == text:
        return False
    path.write_text(new)
    return True


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--write" in argv:
        print(f"{LESSON}: {'rewritten' if write() else 'already up to date'}")
    else:
        print(measured_section())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

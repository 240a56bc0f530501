"""The lesson's "What was measured" section, written from the shipped results files: one source, so the
lesson's numbers (accuracies, verdicts, which runs stayed on the plateau, how long a grid took) cannot drift
from the JSON the page reads. tests/training/test_paper_lab_report.py fails when they differ.

    python -m lcsm_core.paper_lab.report           # print the section
    python -m lcsm_core.paper_lab.report --write   # replace it in lessons/09-paper-lab.md
"""
from __future__ import annotations

import sys
from pathlib import Path

from .ablations import ABLATIONS, SELECTIVE_SSM
from .results import best_per_seed, load_shipped, lr_note, spreads, verdict
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
    parts = [f"- **{ablation.title.split(' (')[0]} — {outcome}.** {numbers}.",
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


def measured_section() -> str:
    """The section, heading included, as the lesson holds it."""
    intro = ("Every number below is written from the results files the page opens with "
             "(`lcsm_core/paper_lab/results/`, by `python -m lcsm_core.paper_lab.report --write`). A cell is the "
             "best test accuracy over the learning-rate sweep: a mean with its [min–max] over seeds when there is "
             "more than one. A verdict is *held* or *did not hold* only when the seed ranges lie apart by more than "
             f"{SEPARATION:g} (about two standard errors of one evaluation on 1024 test answers) and "
             "every cell has at least 3 seeds; otherwise it is *inconclusive*.")
    return "\n\n".join([HEADING, intro, *(ablation_paragraph(name) for name in ORDER)]) + "\n"


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

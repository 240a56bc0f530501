"""The lesson's "What was measured" is written from the shipped results files (one source): the test fails as soon
as a results file and the lesson differ, and it pins the two numbers the hand-written text once got wrong."""
import dataclasses
import re

from lcsm_core.paper_lab import ABLATIONS, CellResult, GridSpec, cells, report
from lcsm_core.paper_lab.results import load_shipped


def test_the_lesson_section_is_what_the_results_files_say():
    assert report.lesson_section() == report.measured_section() + "\n", (
        "lessons/09-paper-lab.md drifted from the shipped results: run python -m lcsm_core.paper_lab.report --write")


def test_the_two_old_mismatches_are_gone():
    section = report.measured_section()
    wall = load_shipped("data_dependence").wall_s
    assert f"{wall / 60:.1f} min ({wall:.1f} s)" in section                   # 488.7 s is 8.1 min, not 8.2
    tau = next(line for line in section.splitlines() if line.startswith("- **τ") and "— demo" in line)
    said = tau.split("still on the plateau) after 1000 steps: ")[1].split(". ")[0]
    shipped = load_shipped("tau")
    stuck = {r.label for r in shipped.results if r.best_acc < 1 / shipped.spec.kv_pairs + report.LEFT_PLATEAU_BY}
    named = {label for label in ABLATIONS["tau"].labels if re.search(rf"{re.escape(label)}(?![0-9])", said)}
    assert named == stuck, said                     # every τ with a seed left on the plateau, and no other (τ = 1 once)


def test_the_section_says_the_statistic_the_rule_and_each_evidence_grid():
    from lcsm_core.paper_lab.search import EVIDENCE_PLANS
    section = report.measured_section()
    assert "share of seeds that left" in section and "Wilson" in section and "not tested at this scale" in section
    evidence = section.split("#### The demo grids")[0]
    for name in EVIDENCE_PLANS:                     # each claim's evidence: the grid that ran, or how to run it
        title = ABLATIONS[name].title.split(" (")[0]
        line = next(line for line in evidence.splitlines() if line.startswith(f"- **{title} — "))
        assert f"--evidence {name} --ship" in line or re.search(r"The grid: \d+ runs of", line), line
    assert "a demo is no verdict" in section and "did not hold.**" not in section.split("#### The demo grids")[1]


def test_the_plateau_is_counted_per_seed():
    spec = GridSpec(ablation="parameterization", seeds=(0, 1, 2), lrs=(1e-2,))
    level = {"0 as DSS": (0.26, 0.27, 0.25), "0 as selective SSM": (0.9, 0.27, 0.8), "1-1-1-0": (0.9, 0.8, 0.7)}
    results = [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 1000, level[c.label][c.seed],
                          10.0, "shipped") for c in cells(spec)]
    assert report.plateau_said(spec, results, 0.35) == "all 3 seeds of 0 as DSS; 1 of 3 seeds of 0 as selective SSM"
    assert report.plateau_said(spec, results, 0.2) == "none"


def test_a_changed_results_file_changes_the_section(monkeypatch):
    before = report.measured_section()
    real = report.load_shipped

    def slower(name):
        shipped = real(name)
        return dataclasses.replace(shipped, wall_s=shipped.wall_s + 60) if name == "tau" else shipped
    monkeypatch.setattr(report, "load_shipped", slower)
    assert report.measured_section() != before


def test_writing_is_idempotent(tmp_path):
    lesson = tmp_path / "lesson.md"
    lesson.write_text("# x\n\n### What was measured\nold numbers\n\n## Exercise: next\nkeep\n")
    assert report.write(lesson) and not report.write(lesson)
    text = lesson.read_text()
    assert "old numbers" not in text and text.endswith("## Exercise: next\nkeep\n")
    assert report.lesson_section(lesson) == report.measured_section() + "\n"


def test_an_evidence_file_gives_the_verdict_its_rows_and_why(monkeypatch):
    """A complete synthetic evidence grid: sigmoid leaves the plateau in every seed, the others in none → held,
    with the statistic per entry; a lottery (3 of 5) → inconclusive, and the paragraph says why."""
    from lcsm_core.paper_lab.search import EVIDENCE_PLANS, ShippedEvidence
    from tests.training.test_paper_lab_search import LEARNED, STUCK, learns_at, run
    plan = EVIDENCE_PLANS["activation"]

    def shipped(acc):
        evidence = ShippedEvidence(plan, run(plan, acc), "a test CPU", "2026-01-01")
        monkeypatch.setattr(report, "load_evidence", lambda name: evidence if name == "activation" else None)

    shipped(learns_at({"1-1-1-2"}, good=(1e-2,)))
    assert report.evidence_words("activation")[0] == "held"
    rows = {r["entry"]: r for r in report.evidence_rows("activation")}
    assert rows["1-1-1-2"]["seeds left / run"] == "5/5" and rows["1-1-1-0"]["seeds left / run"] == "0/5"
    assert rows["1-1-1-2"]["rates kept"] == "0.0032, 0.01, 0.032"
    assert "Activations — held.**" in report.evidence_paragraph("activation")

    shipped(lambda label, T, lr, seed: LEARNED if label == "1-1-1-2" and seed % 2 == 0 else STUCK)
    said = report.evidence_paragraph("activation")
    assert "— inconclusive.**" in said and "Undecided because" in said and "more seeds" in said


def test_a_claim_settled_before_stage_one_ended_says_so_and_lists_what_it_did_not_run(monkeypatch):
    """Data dependence settled by its T = 256 pair alone: "did not hold", the comparison that decides it, and the
    entries it never ran listed as not needed (not as "stage 1 not finished")."""
    from lcsm_core.paper_lab import CellResult
    from lcsm_core.paper_lab.search import EVIDENCE_PLANS, ShippedEvidence, next_stage
    from tests.training.test_paper_lab_search import LEARNED, STUCK, run_in_chunks
    plan = EVIDENCE_PLANS["data_dependence"]

    def acc(label, T, lr, seed):
        return LEARNED + 0.01 * seed if label == "1-1-1-0" and T == 256 and lr >= 3.2e-3 else STUCK
    stage_1 = [c for c in next_stage(plan, []).cells if c.seq_len == 256 and c.label in ("1-0-1-0", "1-1-1-0")]
    first = [CellResult(c.label, c.code, c.tau, c.seq_len, c.lr, c.seed, "completed", 10,
                        acc(c.label, c.seq_len, c.lr, c.seed), 1.0, "live") for c in stage_1]
    evidence = ShippedEvidence(plan, run_in_chunks(plan, acc, first), "a test CPU", "2026-01-01")
    monkeypatch.setattr(report, "load_evidence", lambda name: evidence if name == "data_dependence" else None)
    outcome, numbers, ran = report.evidence_words("data_dependence")
    assert outcome == "did not hold" and "the search stopped" in ran and "1-0-1-0 below 1-1-1-0" in ran
    assert "not run (the verdict did not need it)" in numbers and "stage 1 not finished" not in numbers
    rows = {(r["entry"], r["T"]): r for r in report.evidence_rows("data_dependence")}
    assert rows["1-1-1-0", 256]["seeds left / run"] == "5/5" and rows["1-0-1-0", 256]["seeds left / run"] == "0/5"
    assert rows["0-1-1-0", 32]["rates kept"] == "not run: the verdict did not need it"


def test_a_confirmation_rounds_rows_name_their_round_in_a_column_of_their_own():
    """τ's shipped confirmation: each side's entries, and the round whose fresh seeds it read, side by side (the
    entries alone in their column, the search's rows "stages 1–3")."""
    rows = report.evidence_rows("tau")
    rounds = [r for r in rows if r["seeds from"] != "stages 1–3"]
    assert [r["seeds from"] for r in rounds] == ["confirmation", "confirmation"]
    assert [r["entry"] for r in rounds] == ["τ = 16 + τ = 32 + τ = 64", "τ = 1 + τ = 2 + τ = 4"]
    assert all("(" not in r["entry"] for r in rows) and len({tuple(r) for r in rows}) == 1

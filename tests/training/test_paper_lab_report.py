"""The lesson's "What was measured" is written from the shipped results files (one source): the test fails as soon
as a results file and the lesson differ, and it pins the two numbers the hand-written text once got wrong."""
import dataclasses

from lcsm_core.paper_lab import report
from lcsm_core.paper_lab.results import load_shipped


def test_the_lesson_section_is_what_the_results_files_say():
    assert report.lesson_section() == report.measured_section() + "\n", (
        "lessons/09-paper-lab.md drifted from the shipped results: run python -m lcsm_core.paper_lab.report --write")


def test_the_two_old_mismatches_are_gone():
    section = report.measured_section()
    wall = load_shipped("data_dependence").wall_s
    assert f"{wall / 60:.1f} min ({wall:.1f} s)" in section                   # 488.7 s is 8.1 min, not 8.2
    tau = next(line for line in section.splitlines() if line.startswith("- **τ"))
    plateau = tau.split("still on the plateau): ")[1].split(".")[0]
    assert all(f"τ = {t}" in plateau for t in (1, 8, 64))                    # τ = 1 (0.28) stayed there too


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

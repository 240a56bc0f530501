"""Lesson files parse, each has ≥ 2 exercises, and the checker grades as documented."""
import pytest

from app.ui import lesson_content as lc
from app.ui.lesson_content import Exercise, LessonFormatError, check_answer, check_settings, holds

PAGES = ["spring", "discretize", "rings", "lru_stability", "propagation"]


@pytest.mark.parametrize("page", PAGES)
def test_lesson_file_parses_with_objectives_body_and_two_exercises(page):
    lesson = lc.load_lesson(page)
    assert lesson.title and lesson.objectives and len(lesson.body) > 200
    assert len(lesson.exercises) >= 2
    assert all(ex.prompt for ex in lesson.exercises)


def test_every_lesson_file_has_a_page():
    pages = {lc.parse_lesson(p.read_text()).page for p in lc.lesson_files()}
    assert set(PAGES) <= pages


@pytest.mark.parametrize("check, ok", [
    ("zeta = 1 ± 0.02", True), ("zeta = 1.04 ± 5%", True), ("zeta = 1.1 ± 5%", False), ("zeta = 2 ± 0.5", False),
    ("zeta < 1", True),
    ("c >= zeta", False), ("c between 0 and zeta", True), ("zeta > 1.5", False), ("c = 0.5", True)])
def test_check_lines(check, ok):
    assert holds(check, {"zeta": 0.99, "c": 0.5}) is ok


def test_feedback_for_settings_answers_and_unknown_names():
    ex = Exercise("t", "p", checks=("zeta = 1 ± 0.02",), hint="raise c", explain="nice")
    assert check_settings(ex, {"zeta": 1.01}).correct
    bad = check_settings(ex, {"zeta": 0.5})
    assert not bad.correct and "raise c" in bad.message
    assert "does not provide" in check_settings(ex, {}).message
    ans = Exercise("t", "p", answer="half_life ± 2%")
    assert check_answer(ans, 6.9, {"half_life": 6.93}).correct
    assert not check_answer(ans, 7.5, {"half_life": 6.93}).correct
    assert not check_answer(ans, None, {"half_life": 6.93}).correct


@pytest.mark.parametrize("text", [
    "no front matter", "---\npage: x\n---\n## Exercise: a\nno check or answer\n",
    "---\npage: x\ntitle: t\n---\n## Exercise: a\ncheck: zeta ~ 1\n", "---\ntitle: t\n---\n"])
def test_malformed_lessons_are_reported(text):
    with pytest.raises(LessonFormatError):
        lc.parse_lesson(text)

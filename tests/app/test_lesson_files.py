"""Every lesson file parses and belongs to a page (and every page has one); the checker grades as documented."""
import pytest

from app.kit import lesson_text as lc
from app.kit.lesson_text import Exercise, LessonFormatError, check_answer, check_settings, holds
from app.lessons import PAGES


def test_every_lesson_file_parses_and_pages_and_files_match_one_to_one():
    files = lc.lesson_files()
    pages = [lc.parse_lesson(p.read_text(encoding="utf-8")).page for p in files]
    assert sorted(pages) == sorted(PAGES), [p.name for p in files]
    numbers = [int(p.name.split("-")[0]) for p in files]
    assert numbers == list(range(1, len(PAGES) + 1))


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


def test_feedback_names_the_condition_that_fails_and_its_value_now():
    ex = Exercise("t", "p", checks=("zeta = 1 ± 0.02", "c > 0"), hint="raise c")
    message = check_settings(ex, {"zeta": 0.1, "c": 0.2}).message
    assert "`zeta = 1 ± 0.02` does not hold (now zeta = 0.1)" in message and "c > 0" not in message
    assert message.endswith("raise c")

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


BREAKS = {"a bad check line": lambda text: text.replace("check: zeta = 1 ± 0.02", "check: zeta ~ 1"),
          "no front matter": lambda text: text.replace("---", "", 1)}


@pytest.mark.parametrize("how", BREAKS)
def test_a_broken_lesson_file_breaks_only_its_own_page(tmp_path, monkeypatch, how):
    """Each page parses only its own file: a mistake in 01-spring.md shows on the spring page alone."""
    import shutil

    from tests.app.pages import assert_clean, open_page
    for path in lc.lesson_files():
        shutil.copy(path, tmp_path / path.name)
    spring = tmp_path / "01-spring.md"
    broken = BREAKS[how](spring.read_text(encoding="utf-8"))
    assert broken != spring.read_text(encoding="utf-8")
    spring.write_text(broken, encoding="utf-8")
    monkeypatch.setattr(lc, "LESSONS_DIR", tmp_path)

    assert [lc.load_lesson(page).page for page in PAGES[1:]] == list(PAGES[1:])
    with pytest.raises(LessonFormatError):
        lc.load_lesson("spring")
    assert lc.lesson_pages() == list(PAGES)
    for page in ("rings", "propagation"):
        at = open_page(page)
        assert_clean(at, page)
        assert not [e.value for e in at.error if "could not be read" in e.value], page
        assert at.title[0].value == lc.load_lesson(page).title
    at = open_page("spring")
    assert_clean(at, "spring")
    assert [e.value for e in at.error if "The lesson text for this page could not be read" in e.value]

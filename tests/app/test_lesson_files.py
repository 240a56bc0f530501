"""Every lesson file parses and belongs to a page (and every page has one); the checker grades as documented."""
import pytest

from lcsm_explorer.app.kit import lesson_text as lc
from lcsm_explorer.app.kit.lesson_text import Exercise, LessonFormatError, check_answer, check_settings, holds
from lcsm_explorer.app.lessons import PAGES


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


def test_feedback_names_the_condition_that_fails_and_its_value_now_in_the_pages_words():
    ex = Exercise("t", "p", checks=("zeta = 1 ± 0.02", "c > 0"), hint="raise c")
    words = {"zeta": lc.Word("damping ratio ζ"), "c": lc.Word("damping c", "kg/s")}
    message = check_settings(ex, {"zeta": 0.1, "c": 0.2}, words).message
    assert "damping ratio ζ must be 1 ± 0.02 (now 0.1)" in message and "damping c" not in message
    assert message.endswith("raise c")
    assert "zeta" not in message


@pytest.mark.parametrize("check, values, words, said", [
    ("half_life < 1", {"half_life": float("inf")}, {"half_life": lc.Word("envelope half-life t½", "s")},
     "envelope half-life t½ must be below 1 s (now ∞ s)"),
    ("lru_exploded = 1", {"lru_exploded": 0.0}, {"lru_exploded": lc.Word("the LRU's state exploded", "yes/no")},
     "“the LRU's state exploded” must be yes (now no)"),
    ("claim_held = 0", {"claim_held": -1.0}, {"claim_held": lc.Word("the claim held", "yes/no")},
     "“the claim held” must be no (now not known yet)"),
    ("err < 1e-12", {"err": 3.2e-9}, {"err": lc.Word("relative error")},
     "relative error must be below 10⁻¹² (now 3.2×10⁻⁹)"),
    ("dt = limit ± 1%", {"dt": 0.5, "limit": 0.2}, {"dt": lc.Word("Δ", "s"), "limit": lc.Word("Euler's limit", "s")},
     "Δ must be within 1 % of Euler's limit (0.2 s) (now 0.5 s)"),
    ("h between 0.1 and 0.2", {"h": -1500.0}, {"h": lc.Word("distance")}, "distance must be between 0.1 and 0.2 "
                                                                           "(now −1,500)"),
    ("n > 1000", {"n": float("nan")}, {"n": lc.Word("horizon", "steps")}, "horizon must be above 1,000 steps "
                                                                          "(now undefined)"),
])
def test_a_failing_condition_is_said_with_labels_units_and_readable_numbers(check, values, words, said):
    assert lc.what_fails(check, values, words) == said


def test_quantities_section_gives_words_and_stays_out_of_the_notes():
    text = ("---\npage: x\ntitle: t\n---\n## Exercise: e\nq\ncheck: a > 1\n"
            "## Quantities\nA note for the teacher.\n- a: the length a [m]\n- f: a flag [yes/no]\n- b: plain\n")
    lesson = lc.parse_lesson(text)
    assert lesson.words == {"a": lc.Word("the length a", "m"), "f": lc.Word("a flag", "yes/no"), "b": lc.Word("plain")}
    assert lesson.words["f"].is_flag and "Quantities" not in lesson.extra
    with pytest.raises(LessonFormatError, match="cannot read"):
        lc.parse_lesson(text + "- 2bad label\n")


def test_hint_and_explain_go_on_over_several_lines_and_never_reach_the_question():
    text = ("---\npage: x\ntitle: t\n---\n## Exercise: e\nThe question,\non two lines.\n\ncheck: a > 1\n"
            "hint: first line of the hint\nand its second line.\nexplain: it works — set m = 2 and\n"
            "the metric agrees.\n")
    [ex] = lc.parse_lesson(text).exercises
    assert ex.prompt == "The question,\non two lines."
    assert ex.hint == "first line of the hint and its second line."
    assert ex.explain == "it works — set m = 2 and the metric agrees."
    with pytest.raises(LessonFormatError, match="follows the check lines"):
        lc.parse_lesson(text.replace("hint: first", "stray text\nhint: first"))
    with pytest.raises(LessonFormatError, match="follows the"):
        lc.parse_lesson(text + "\nText after a blank line.\n")


def test_display_math_over_several_lines_becomes_a_math_block():
    text = "Intro:\n\n$$a = b,\n\\qquad c = d.$$\n\nInline $x$ and $$y$$ stay.\n  $$p =\n  q$$ after"
    assert lc.markdown(text) == ("Intro:\n\n$$\na = b,\n\\qquad c = d.\n$$\n\nInline $x$ and $$y$$ stay.\n"
                                 "  $$\n  p =\n  q\n  $$\n  after")
    assert lc.markdown("$$\nalready\n$$") == "$$\nalready\n$$"
    assert lc.markdown("$$ unclosed\ntext") == "$$ unclosed\ntext"
    # an equation alone on its line is shown as a display (on a line with text, Streamlit draws $$…$$ inline)
    assert lc.markdown("Text:\n\n$$m\\ddot x = f.$$\n  $$p$$,\nand $$q$$ here") == (
        "Text:\n\n$$\nm\\ddot x = f.\n$$\n  $$\n  p,\n  $$\nand $$q$$ here")


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

"""A guided reading order (issue 21, item 2): every lesson opens with its story open, gives 3–5 "try this" steps
each under the chart it names (numbered top to bottom), and ends with a link to the next lesson that carries
nothing but the page. The parser's rules on small made-up texts, the shipped files, and the pages in AppTest."""
from __future__ import annotations

import pytest

from lcsm_explorer.app.kit import lesson_text as lt
from lcsm_explorer.app.kit.lesson_text import LessonFormatError, Step, check_steps, parse_lesson
from lcsm_explorer.app.lessons import PAGES, lesson
from tests.app.pages import instrument, open_page

HEAD = "---\npage: spring\ntitle: t\n---\n## Lesson\nA story.\n\n### Details\nMore.\n"
LESSONS = {path.name: parse_lesson(path.read_text(encoding="utf-8")) for path in lt.lesson_files()}


def steps_of(section: str):
    return parse_lesson(HEAD + "## Try this\n" + section).steps


def test_a_step_names_its_chart_says_what_to_do_and_what_to_look_for_and_may_go_on_over_lines():
    steps = steps_of("- [chart: response] Drag c below 0.\n  Look for: the swings\n  growing.\n"
                     "- Press a preset. Look for: the poles.\n")
    assert steps == (Step("Drag c below 0.", "the swings growing.", "response"),
                     Step("Press a preset.", "the poles.", ""))


@pytest.mark.parametrize("section, says", [
    ("- [chart: response] Drag c below 0.\n", "Look for"),                 # nothing to look for
    ("- Look for: nothing to do first.\n", "Look for"),                    # nothing to do
    ("Some prose before the steps.\n- Drag. Look for: x.\n", "not a step"),
])
def test_a_malformed_step_is_a_format_error(section, says):
    with pytest.raises(LessonFormatError, match=says):
        steps_of(section)


def test_a_step_naming_a_chart_the_page_does_not_draw_is_a_format_error():
    text = parse_lesson(HEAD + "## Try this\n- [chart: time] Drag. Look for: x.\n")
    with pytest.raises(LessonFormatError, match="'time'.*response, poles"):
        check_steps(text, ["response", "poles"])
    check_steps(text, ["time"])


def test_the_story_is_the_prose_before_its_first_subsection_and_the_rest_is_folded():
    text = parse_lesson(HEAD + "## Aside\nA note.\n")
    assert lt.story(text) == "A story."
    assert lt.more_notes(text) == ["## Details\nMore.", "## Aside\n\nA note."]   # h2: next under the title


def chart_order(page: str) -> list[str]:
    return lesson(page).chart_names()


@pytest.mark.parametrize("name", LESSONS)
def test_every_lesson_has_three_to_five_steps_in_page_order_on_charts_it_draws(name):
    text = LESSONS[name]
    charts = chart_order(text.page)
    assert 3 <= len(text.steps) <= 5, (name, len(text.steps))
    check_steps(text, charts)
    assert all(step.look_for and step.do for step in text.steps)
    if charts:                        # a chart page: every step under a chart, numbered top to bottom
        places = [charts.index(step.chart) for step in text.steps]
        assert all(step.chart for step in text.steps), name
        assert places == sorted(places), (name, [s.chart for s in text.steps])


def test_every_lesson_file_is_a_page_and_every_page_has_a_next_but_the_last():
    assert [LESSONS[name].page for name in sorted(LESSONS)] == list(PAGES)


STORY_FOLD = "📖 What this lesson is about: objectives and story"     # a dynamics lesson's, above its instrument


def test_the_spring_page_opens_with_its_story_draws_each_step_under_its_chart_and_links_to_the_next():
    at = open_page("spring")
    assert not at.exception
    [story] = [e for e in at.expander if e.label == STORY_FOLD]      # folded above the instrument: one screen
    assert any(m.value.startswith("A mass $m$ on a spring") for m in story.markdown)
    assert not [e for e in at.expander if "Lesson notes" in e.label]
    tries = [i.value for i in at.info if i.value.startswith("**Try ")]
    assert len(tries) == 4 and all("👀 **Look for:**" in t for t in tries)
    assert "damping c slider" in tries[0]                              # in reading order: the main chart's first
    [link] = at.get("page_link")
    assert link.proto.page == "discretize" and link.proto.label.startswith("Next: ") and "2" in link.proto.label
    assert "?" not in link.proto.page and "learner" not in link.proto.page


def test_the_last_lesson_points_home():
    at = open_page(PAGES[-1])
    assert not at.exception
    [link] = at.get("page_link")
    assert link.proto.page == "home"


def test_a_live_page_draws_its_steps_at_the_top():
    at = open_page("check_math")
    assert not at.exception
    tries = [i.value for i in at.info if i.value.startswith("**Try ")]
    assert len(tries) == len(LESSONS["10-check-math.md"].steps)


def test_the_presenter_view_folds_the_story_for_the_charts():
    at = open_page("spring", {"present": "1"})
    assert not at.exception
    [notes] = [e for e in at.expander if e.label == STORY_FOLD]
    def told(part) -> int:
        return sum(m.value.startswith("A mass $m$ on a spring") for m in part.markdown)
    assert told(notes) == 1 and told(at.main) == 1                       # in the fold, nowhere open
    assert instrument(at, "spring")["present"] and instrument(at, "spring")["figures"]


def test_the_presenter_view_keeps_a_live_pages_steps_open_under_its_live_part():
    at = open_page("check_math", {"present": "1"})
    assert not at.exception
    [notes] = [e for e in at.expander if "Lesson notes" in e.label]
    tries = [i.value for i in at.info if i.value.startswith("**Try ")]
    assert len(tries) == len(LESSONS["10-check-math.md"].steps)
    assert not [i for i in notes.info if i.value.startswith("**Try ")]


def test_a_step_naming_an_unknown_chart_is_told_on_its_page_only(tmp_path, monkeypatch):
    for path in lt.lesson_files():
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    spring = tmp_path / "01-spring.md"
    spring.write_text(spring.read_text(encoding="utf-8").replace("[chart: poles]", "[chart: time]"), encoding="utf-8")
    monkeypatch.setattr(lt, "LESSONS_DIR", tmp_path)
    at = open_page("spring")
    assert not at.exception
    assert any("'time'" in e.value and "does not draw" in e.value for e in at.error)
    assert instrument(at, "spring")["figures"] and at.get("page_link")    # the page runs on
    other = open_page("discretize")
    assert not other.exception and not [e for e in other.error if "does not draw" in e.value]


def test_the_prose_headings_go_one_level_up_but_not_in_code():
    prose = "### A\ntext\n#### B\n```\n### a comment\n```\n##### C"
    assert lt.prose_headings(prose) == "## A\ntext\n### B\n```\n### a comment\n```\n#### C"

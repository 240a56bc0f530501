"""lessons/course.md, the class path: the shipped file parses into steps whose links open their page with their
settings; each kind of mistake is named with its line."""
from urllib.parse import parse_qs

import pytest

from lcsm_explorer.app.kit.class_course import CourseFormatError, load_course, parse_course
from lcsm_explorer.app.lessons import lesson


def test_the_shipped_course_parses_and_every_step_link_reads_back_without_notes():
    course = load_course()
    assert course.title and 3 <= len(course.steps) <= 12
    for step in course.steps:
        assert step.prompt, step.title
        query = parse_qs(step.query(present=True))
        assert query["present"] == ["1"] and "learner" not in query and "teacher" not in query
        values, notes = lesson(step.page).settings.read({k: v for k, v in query.items()})
        assert values == step.values and not notes, (step.title, notes)
        learners = parse_qs(step.query(class_code="ABCDEF"))
        assert learners["class"] == ["ABCDEF"] and "present" not in learners


def test_a_step_reads_its_page_settings_challenge_and_prompt():
    course = parse_course("# Course: Springs\nFor the teacher.\n\n## Ring\npage: spring\nsettings: c=0.5, m=2\n"
                          "challenge: 1\nLower c.\nWatch the poles.\n")
    assert course.title == "Springs" and course.intro == "For the teacher."
    [step] = course.steps
    assert (step.title, step.page, step.challenge, step.prompt) == ("Ring", "spring", 0, "Lower c.\nWatch the poles.")
    assert step.values == {**lesson("spring").settings.defaults, "c": 0.5, "m": 2.0}


@pytest.mark.parametrize("text, message", [
    ("# Course: none\n", "no steps"),
    ("## A\nsettings: c=1\n", "line 1: step 'A' needs a 'page:' line"),
    ("## A\npage: nowhere\n", "line 2: 'nowhere' is not a lesson page"),
    ("## A\npage: spring\nsettings: mass=2\n", "line 3: 'mass=2' is not name=value"),
    ("## A\npage: spring\nsettings: c\n", "line 3: 'c' is not name=value"),
    ("## A\npage: spring\nsettings: c=99\n", "line 3: "),
    ("## A\npage: spring\nchallenge: 7\n", "line 3: challenge '7' is not a challenge of spring"),
    ("## A\npage: spring\nchallenge: one\n", "line 3: challenge 'one'"),
    ("##  \npage: spring\n", "line 1: a step needs a title"),
])
def test_mistakes_are_named_with_their_line(text, message):
    with pytest.raises(CourseFormatError, match=message.replace("(", r"\(")):
        parse_course(text)

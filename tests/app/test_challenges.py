"""Challenges: every lesson has one that is solvable and not already solved at the page's defaults; they parse and
grade like exercises; the session's score shows on every lesson page and on Home; a teacher link `?challenge=N`
opens one at the top (a bad N falls back with a note, the value shown as literal code).

A challenge's solution (its `solution:` line, a link's query) is a page state under which every target holds,
computed the way the page computes it (compute → quantities). Train live's needs a training run: its grading is
checked on the quantities of a run record as the page builds them (`run_quantities`), with the step count measured
in benchmarks/results/train_speed-cpu.md. Paper lab's is checked on the shipped grid results the page opens with.
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qsl

import pytest
from streamlit.testing.v1 import AppTest

from lcsm_core.paper_lab import shipped_grid
from lcsm_explorer.app.kit.classroom import read_view, share_query
from lcsm_explorer.app.kit.lesson_text import LessonFormatError, check_settings, load_lesson, parse_lesson
from lcsm_explorer.app.lessons import PAGES, lesson
from lcsm_explorer.app.lessons.paper_lab import GridView, grid_quantities, grid_spec
from lcsm_explorer.app.lessons.train_live import config_of, run_quantities
from tests.app.pages import assert_clean, open_page
from tests.app.test_classroom import send_commit

ROOT = Path(__file__).resolve().parents[2]

def solution(page: str, challenge) -> dict:
    """The settings a challenge's `solution:` line names (a link's query), read as the page reads a link."""
    query = dict(parse_qsl(challenge.solution, keep_blank_values=True))
    settings = lesson(page).settings
    assert query and set(query) <= {p.name for p in settings.params}, (page, challenge.title, challenge.solution)
    values, notes = settings.read(query)
    assert not notes, (page, challenge.title, notes)
    return {name: values[name] for name in query}


STATIC = [p for p in PAGES if lesson(p).compute is not None]


def page_quantities(page: str, changes: dict) -> dict:
    """The quantities the page checks at its defaults with `changes` (for Train live: of a run of these settings
    that reached 99 % at step 340 — seed 1's measured run)."""
    spec = lesson(page)
    values = {**spec.settings.defaults, **changes}
    if page in STATIC:
        return spec.quantities(values, spec.compute(values))
    if page == "paper_lab":
        grid = grid_spec(values)
        shipped = shipped_grid(grid)
        results = shipped.results if shipped else []
        return grid_quantities(values, GridView(grid, [], shipped, [], results))
    return train_quantities(values, best_acc=0.9902, steps=340)


def train_quantities(values: dict, best_acc: float, steps: int, active: bool = False) -> dict:
    """Train live's quantities for a run of these settings, as the page builds them from the run's record."""
    run = SimpleNamespace(config=config_of(values).to_dict(), best_test_acc=best_acc, active=active, steps=steps)
    return run_quantities(run)


def test_every_lesson_has_a_challenge_and_a_solution_for_each():
    for page in PAGES:
        challenges = load_lesson(page).challenges
        assert challenges, f"{page} has no challenge"
        assert all(c.solution for c in challenges), f"{page}: give every challenge a solution: line"
        assert all(c.prompt and c.explain and c.hint for c in challenges), page


@pytest.mark.parametrize("page", PAGES)
def test_every_challenge_is_solved_by_its_solution_and_not_at_the_defaults(page):
    challenges = load_lesson(page).challenges
    defaults = page_quantities(page, {}) if page != "train_live" else run_quantities(None)
    for challenge in challenges:
        assert challenge.kind == "check"
        assert challenge.names() <= set(defaults), (challenge.title, challenge.names() - set(defaults))
        assert not check_settings(challenge, defaults).correct, (challenge.title, "passes at the defaults")
        feedback = check_settings(challenge, page_quantities(page, solution(page, challenge)))
        assert feedback.correct, (challenge.title, feedback.message)


def test_train_live_challenge_grades_the_run_it_is_shown():
    [challenge] = load_lesson("train_live").challenges
    defaults = lesson("train_live").settings.defaults
    words = load_lesson("train_live").words
    slow = check_settings(challenge, train_quantities(defaults, best_acc=0.9902, steps=680), words)   # seed 0
    assert not slow.correct and "step budget of the run shown must be at most 400 (now 680)" in slow.message
    running = check_settings(challenge, train_quantities(defaults, best_acc=0.4, steps=200, active=True), words)
    assert not running.correct and "best test accuracy of the run shown must be at least 0.99 (now 0.4)" \
        in running.message
    copying = train_quantities({**defaults, "task": "selective_copying"}, best_acc=0.995, steps=300)
    assert not check_settings(challenge, copying).correct


def test_challenges_parse_with_target_lines_and_keep_exercises_apart():
    text = ("---\npage: x\ntitle: t\n---\n## Exercise: e\nq\ncheck: a > 1\n"
            "## Challenge: c\ngoal\ntarget: a > 2\ntarget: b between 0 and a\nhint: h\nexplain: x\nsolution: a=3&b=1\n"
            "## Challenge: typed\nhow many?\nanswer: 4\n")
    lesson_text = parse_lesson(text)
    assert [e.title for e in lesson_text.exercises] == ["e"]
    assert [(c.title, c.checks, c.answer, c.solution) for c in lesson_text.challenges] == [
        ("c", ("a > 2", "b between 0 and a"), None, "a=3&b=1"), ("typed", (), "4", "")]
    assert lesson_text.challenges[0].explain == "x"                    # the solution line ends the explanation
    assert "Challenge: c" not in lesson_text.extra
    failing = check_settings(lesson_text.challenges[0], {"a": 1.5, "b": 1.0})
    assert not failing.correct and "a must be above 2 (now 1.5)" in failing.message


@pytest.mark.parametrize("section, message", [
    ("## Challenge: c\ngoal\ncheck: a > 1\n", "use target: lines"),
    ("## Exercise: e\nq\ntarget: a > 1\n", "use check: lines"),
    ("## Challenge: c\ngoal\n", "needs either target: lines or one answer: line"),
    ("## Challenge: c\ngoal\ntarget: a ~ 1\n", "cannot read target 'a ~ 1'"),
    ("## Challenge: c\ngoal\ntarget: a > 1\nsolution: a=2\nsolution: a=3\n", "one solution: line at most"),
])
def test_malformed_challenges_are_reported(section, message):
    with pytest.raises(LessonFormatError, match=message):
        parse_lesson("---\npage: x\ntitle: t\n---\n" + section)


# --- teacher links: ?challenge=N ----------------------------------------------------------------------
SPRING = lesson("spring").settings


def view_notes(at) -> list[str]:
    return [w.value for w in at.warning if "classroom settings could not" in w.value]


def test_a_challenge_link_reads_strictly():
    assert read_view(SPRING, {"challenge": ["2"]}, challenges=3).challenge == 1
    assert read_view(SPRING, {}, challenges=3).challenge is None
    for bad in ("0", "4", "01", "+1", " 1", "1.0", "-1", "1e0", "", "١", "[x](https://evil.example)"):
        view = read_view(SPRING, {"challenge": [bad]}, challenges=3)
        assert view.challenge is None and len(view.notes) == 1, bad
        assert view.notes[0].startswith("challenge: ") and "a number from 1 to 3" in view.notes[0], view.notes
        assert view.notes[0].startswith(("challenge: `", "challenge: (empty)")), view.notes    # literal, never markup
    assert "no challenges" in read_view(SPRING, {"challenge": ["1"]}, challenges=0).notes[0]
    assert "challenge=2" in share_query(SPRING, SPRING.defaults, challenge=1)


def test_a_challenge_link_opens_it_at_the_top_and_solves_there():
    at = open_page("spring", {"challenge": "1"})
    assert_clean(at, "challenge link")
    assert not view_notes(at)
    [title] = load_lesson("spring").challenges[:1]
    headings = [h.value for h in at.header]
    assert headings[0] == f"🎯 Challenge 1 of 1: {title.title}", headings
    assert any(title.prompt.split("\n")[0] in m.value for m in at.markdown)
    at.button(key="spring.challenge.0.check").click().run()
    assert any("envelope half-life t½ must be below 1 s (now 6.93 s)" in e.value for e in at.error)  # in its words
    for name, value in solution("spring", load_lesson("spring").challenges[0]).items():
        send_commit(at, "spring", {name: SPRING[name].encode(value)})     # each move in the instrument
    at.button(key="spring.challenge.0.check").click().run()
    assert any(s.value.startswith("Correct.") for s in at.success)      # the ✅ becomes its icon
    assert "🏆 Challenges · 1 of 1 solved" in [h.value for h in at.header]


@pytest.mark.parametrize("bad", ["2", "one", "[x](https://evil.example)"])
def test_a_bad_challenge_link_falls_back_with_a_literal_note(bad):
    at = open_page("spring", {"challenge": bad})
    assert_clean(at, bad)
    [note] = view_notes(at)
    assert f"challenge: `{bad}` is not a challenge of this page" in note
    assert not [h for h in at.header if h.value.startswith("🎯")]
    assert "🏆 Challenges · 0 of 1 solved" in [h.value for h in at.header]      # still in its block


def test_the_share_panel_adds_a_challenge():
    at = open_page("spring")
    at.radio(key="spring.share.challenge").set_value(1).run()
    assert [c.value for c in at.code if "challenge=1" in c.value]


# --- the session's score ------------------------------------------------------------------------------
def totals() -> tuple[int, int]:
    texts = [load_lesson(p) for p in PAGES]
    return sum(len(t.challenges) for t in texts), sum(len(t.exercises) for t in texts)


def test_the_score_counts_across_lessons_in_the_sidebar_and_the_presenter_view():
    challenges, exercises = totals()
    at = open_page("spring", {"k": "2", "c": "1.5"})
    assert any(f"🏆 0 of {challenges} challenges · 0 of {exercises} exercises" in m.value for m in at.sidebar.markdown)
    at.button(key="spring.challenge.0.check").click().run()
    at.session_state["rings.exercises.solved"] = {load_lesson("rings").exercises[0].title}    # solved on another page
    at.run()
    score = [m.value for m in at.sidebar.markdown if "Your score" in m.value]
    assert score and f"🏆 1 of {challenges} challenges · 1 of {exercises} exercises" in score[0], score
    assert "This lesson: 1 of 1 challenges · 0 of" in score[0]
    shown = open_page("spring", {"present": "1"})
    assert any(c.value.startswith("🏆 0 of") for c in shown.caption)


def test_home_shows_the_progress_of_every_lesson():
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120)
    at.session_state["spring.challenges.solved"] = {load_lesson("spring").challenges[0].title}
    at.session_state["spring.exercises.solved"] = {"no longer in the file"}
    at.run()
    assert not at.exception
    challenges, exercises = totals()
    assert any(m.value == f"🏆 1 of {challenges} challenges · 0 of {exercises} exercises" for m in at.markdown)
    [table] = [d.value for d in at.dataframe if "challenges" in d.value.columns]
    assert list(table["lesson"]) == [load_lesson(p).title for p in PAGES]
    assert table["challenges"].iloc[0] == "1 of 1" and table["exercises"].iloc[0].startswith("0 of")


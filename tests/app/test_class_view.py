"""The class view: a teacher creates a class (code + secret, only the secret's hash stored), learners join with
`?class=CODE`, the view counts their right answers; a wrong secret opens nothing; the class path steps through
lessons/course.md."""
from urllib.parse import parse_qs

import pytest
from streamlit.testing.v1 import AppTest

from lcsm_serving.class_store import ClassStore
from tests.app.pages import assert_clean, click, open_page, press_preset, url_value

SCRIPT = """
from lcsm_explorer.app.class_view import render_class_view
render_class_view()
"""


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return tmp_path


def class_view(query: dict | None = None) -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    for name, value in (query or {}).items():
        at.query_params[name] = value
    return at.run()


def text_of(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.code]
                     + [str(t.value) for t in at.table])


def create(at) -> tuple[str, str]:
    at.button(key="class_view.create").click().run()
    assert not at.exception
    secret = url_value(at, "teacher")
    code = ClassStore(None).class_of_teacher(secret)
    assert code is not None
    return code, secret


def test_a_teacher_creates_a_class_and_sees_learners_answers(data_dir):
    at = class_view()
    assert not at.exception and at.button(key="class_view.create")
    code, secret = create(at)
    assert f"?class={code}" in text_of(at) and "0 learners have joined" in text_of(at)
    learner_links = [c.value for c in at.code if "class=" in c.value]
    assert learner_links and not any(secret in link for link in learner_links)        # the secret stays here
    for _ in range(2):                                                                 # two learners' tabs
        tab = open_page("spring", {"class": code})
        assert url_value(tab, "class") == code
        assert any(f"👥 class {code}" in m.value for m in tab.sidebar.markdown)          # the learner sees it
        press_preset(tab, "spring", "Critically damped")       # ⚖️ pressed in the instrument
        assert_clean(tab, "preset")
        click(tab, "spring.exercise.0.check")
        assert any("Correct" in s.value for s in tab.success)
    again = class_view({"teacher": secret})                                           # the teacher's address
    assert "2 learners have joined" in text_of(again) and "2 right answers" in text_of(again)
    step, every = again.table                          # the step's page first (spring), then every lesson folded
    assert "This step: 🪀 1 · The spring–mass–damper" in [c.value for c in again.caption]
    for table in (step, every):
        rows = table.value.reset_index()
        critically = rows[rows["item"].str.contains("Critically damped")]
        assert list(critically["solved"]) == ["2 of 2"]
    assert len(step.value) < len(every.value) and "Every lesson" in [e.label for e in again.expander]


def test_a_wrong_secret_or_class_code_opens_nothing(data_dir):
    at = class_view({"teacher": "f" * 32})
    assert not at.exception and any("opens no class" in e.value for e in at.error)
    assert at.button(key="class_view.create")
    odd = class_view({"teacher": "<script>"})
    assert not odd.exception and any("opens no class" in e.value for e in odd.error)
    tab = open_page("spring", {"class": "NOPE99"})
    assert not tab.exception and any("is not a class on this server" in w.value for w in tab.warning)
    assert "class" not in tab.query_params


def test_the_class_path_steps_one_screen_at_a_time_with_links_that_open_each_step(data_dir):
    at = class_view()
    code, secret = create(at)
    assert url_value(at, "step") == "1"
    assert at.button(key="class_view.previous").disabled
    [projector] = [b for b in at.get("link_button")]
    query = parse_qs(projector.proto.url.split("?", 1)[1])
    assert projector.proto.url.split("?")[0].endswith("/spring")
    assert query["present"] == ["1"] and query["challenge"] == ["1"] and "teacher" not in query
    at.button(key="class_view.next").click().run()
    assert url_value(at, "step") == "2" and "/discretize?" in at.get("link_button")[0].proto.url
    projected = class_view({"teacher": secret, "present": "1"})      # the room joins by the link it reads
    [link] = [c.value for c in projected.code]
    assert f"class={code}" in link and secret not in link and "/spring?" in link
    [counts] = projected.table                                       # the step's page only, beside the step
    assert [t.value for t in projected.title] == ["1 · A spring rings, then settles"] and not projected.header  # one h1
    assert not projected.expander and len(counts.value) == 4         # spring: 1 challenge, 3 exercises
    far = class_view({"teacher": secret, "step": "99"})
    assert not far.exception and any("is not a step" in w.value for w in far.warning)
    assert url_value(far, "step") == "1"


def test_a_course_file_with_a_mistake_is_named_and_the_counts_still_show(data_dir, tmp_path, monkeypatch):
    from lcsm_explorer.app.kit import lesson_text
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    for path in lesson_text.lesson_files():
        (lessons / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (lessons / "course.md").write_text("# Course: x\n\n## One\npage: spring\nsettings: mass=3\n", encoding="utf-8")
    monkeypatch.setattr(lesson_text, "LESSONS_DIR", lessons)
    at = class_view()
    create(at)
    assert any("lessons/course.md could not be read: line 5" in e.value for e in at.error)
    assert "0 learners have joined" in text_of(at) and at.table
    (lessons / "course.md").unlink()
    at.run()
    assert not at.exception and any("No class path yet" in i.value for i in at.info)


def test_a_visitor_over_the_class_quota_is_told_so_on_the_page(data_dir, monkeypatch):
    monkeypatch.setenv("LCSM_VISITOR_MAX_CLASSES", "1")
    monkeypatch.setattr("lcsm_explorer.app.class_view.visitor_key", lambda: "203.0.113.7")
    ClassStore(None).create_class(visitor="203.0.113.7")          # the address's one class of the day
    at = class_view()
    at.button(key="class_view.create").click().run()
    assert not at.exception and "teacher" not in at.query_params
    assert any("classes in the last 24 hours" in e.value for e in at.error), [e.value for e in at.error]


def test_the_summary_line_counts_in_words():
    from lcsm_explorer.app.kit.class_counts import summary_line
    from lcsm_serving.class_store import ClassResults
    one = summary_line(ClassResults("ABC123", 1, {("spring", "exercise", "Half-life"): 1}))
    assert one == "**Class ABC123** · 1 learner has joined · 1 right answer so far"
    many = summary_line(ClassResults("ABC123", 3, {("spring", "exercise", "a"): 2, ("rings", "challenge", "b"): 1}))
    assert many == "**Class ABC123** · 3 learners have joined · 3 right answers so far"


@pytest.fixture
def broken_spring(data_dir, tmp_path, monkeypatch):
    """The lessons folder with 01-spring.md (the class path's first step) no longer UTF-8: one byte 0xff."""
    from lcsm_explorer.app.kit import lesson_text
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    for path in list(lesson_text.lesson_files()) + [lesson_text.LESSONS_DIR / "course.md"]:
        (lessons / path.name).write_bytes(path.read_bytes())
    spring = lessons / "01-spring.md"
    spring.write_bytes(spring.read_bytes() + b"\ncaf\xff\n")
    monkeypatch.setattr(lesson_text, "LESSONS_DIR", lessons)
    return lessons


def said_about_spring(at) -> list[str]:
    return [e.value for e in at.error if "01-spring.md" in e.value and "not UTF-8" in e.value]


def test_a_lesson_file_that_is_not_utf8_is_named_and_the_class_view_goes_on(broken_spring):
    at = class_view()
    code, secret = create(at)                                        # created: no traceback
    assert said_about_spring(at) and "0 learners have joined" in text_of(at), [e.value for e in at.error]
    for query in ({}, {"present": "1"}, {"step": "3"}):
        view = class_view({"teacher": secret, **query})
        assert not view.exception, (query, [e.value for e in view.exception])
        assert said_about_spring(view), (query, [e.value for e in view.error])
        assert not any("Traceback" in e.value or "LessonFormatError" in e.value for e in view.error), query
        assert f"**Class {code}**" in text_of(view), query                  # the live counts still show
        counts = [t.value.reset_index() for t in view.table]
        assert counts and not any(rows.astype(str).apply(lambda c: c.str.contains("spring–mass")).any().any()
                                  for rows in counts), query               # the unreadable lesson counts nothing
    third = class_view({"teacher": secret, "step": "3"})
    assert url_value(third, "step") == "3" and "/rings?" in third.get("link_button")[0].proto.url


def test_a_course_file_that_is_not_utf8_is_named_and_the_counts_still_show(broken_spring):
    course = broken_spring / "course.md"
    course.write_bytes(course.read_bytes() + b"\n\xff\n")
    at = class_view()
    create(at)
    assert any("lessons/course.md could not be read: it is not UTF-8 text (byte 0xff" in e.value for e in at.error), \
        [e.value for e in at.error]
    assert "0 learners have joined" in text_of(at) and said_about_spring(at)


def test_a_class_made_with_its_seats_lists_them_and_frees_one_for_another_learner(data_dir):
    at = class_view()
    at.number_input(key="class_view.seats").set_value(2).run()
    code, secret = create(at)
    assert ClassStore(None).seat_count(code) == 2
    for _ in range(2):
        assert not open_page("spring", {"class": code}).warning                        # a seat each
    full = open_page("spring", {"class": code})
    assert any("is full (2 of 2 seats taken)" in w.value for w in full.warning)
    assert "class" not in full.query_params                                            # they go on alone
    teacher = class_view({"teacher": secret})
    assert any("Seats: 2 of 2 taken" in e.label for e in teacher.expander)
    assert [m.value.split(" · ")[0] for m in teacher.markdown if m.value.startswith("Learner ")] == \
        ["Learner 1", "Learner 2"]
    [button for button in teacher.button if button.key.startswith("class_view.free.")][0].click().run()
    assert any("Seats: 1 of 2 taken" in e.label for e in teacher.expander)
    assert url_value(open_page("spring", {"class": code}), "class") == code            # the freed seat is taken

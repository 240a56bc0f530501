"""A tab's solved exercises and challenges last: kept in the run store's file under the tab's learner token
(hashed), read back by a reload or a typed link with the token, never shared between tabs; a teacher's link
starts a fresh learner."""
import sqlite3

import pytest

from lcsm_serving import tokens
from lcsm_serving.class_store import CLASS_CODE, ClassStore
from lcsm_serving.progress_store import ProgressStore, StoreFile
from lcsm_serving.store import owner_hash
from tests.app.pages import assert_clean, click, open_page, press_preset, url_value

TOKEN, OTHER = "a" * 32, "b" * 32


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return tmp_path


def test_the_store_keeps_what_a_learner_solved_once_and_only_its_hash(tmp_path):
    store = ProgressStore(tmp_path / "runs.sqlite")
    store.record_solved(TOKEN, "spring", "exercise", "Critical damping")
    store.record_solved(TOKEN, "spring", "exercise", "Critical damping")          # a second Check: no second row
    store.record_solved(TOKEN, "rings", "challenge", "Long memory")
    assert store.solved(TOKEN) == {("spring", "exercise"): {"Critical damping"},
                                   ("rings", "challenge"): {"Long memory"}}
    assert store.solved(OTHER) == {}
    again = ProgressStore(tmp_path / "runs.sqlite")                                  # another process, same file
    assert again.solved(TOKEN) == store.solved(TOKEN)
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        learners = {row[0] for row in db.execute("SELECT learner FROM progress")}
    assert learners == {owner_hash(TOKEN)}
    with pytest.raises(ValueError, match="kind"):
        store.record_solved(TOKEN, "spring", "quiz", "x")


def test_the_store_file_is_the_run_store_in_wal_mode(tmp_path):
    file = StoreFile(tmp_path / "runs.sqlite")
    assert file.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_class_counts_its_learners_once_per_item_and_keeps_only_the_secrets_hash(tmp_path):
    file = StoreFile(tmp_path / "runs.sqlite")
    classes, progress = ClassStore(file), ProgressStore(file)
    code, secret = classes.create_class()
    assert CLASS_CODE.fullmatch(code) and classes.exists(code) and classes.class_of_teacher(secret) == code
    assert classes.class_of_teacher(OTHER) is None and not classes.exists("AAAAAA")
    for token in (TOKEN, OTHER):
        progress.join_class(token, code)
        progress.record_solved(token, "spring", "exercise", "Critical damping")
    progress.record_solved(TOKEN, "spring", "challenge", "Ring down")
    progress.record_solved("c" * 32, "spring", "exercise", "Critical damping")       # not in the class
    results = classes.results(code)
    assert results.learners == 2
    assert results.solved == {("spring", "exercise", "Critical damping"): 2, ("spring", "challenge", "Ring down"): 1}
    dump = "\n".join(file.db.iterdump())
    assert secret not in dump and TOKEN not in dump


# --- in the app --------------------------------------------------------------------------------------------
def solve_spring_exercise(at) -> None:
    """The ⚖️ critically damped preset, then Check on the first exercise: right."""
    press_preset(at, "spring", "Critically damped")       # ⚖️ pressed in the instrument
    assert_clean(at, "preset")
    click(at, "spring.exercise.0.check")
    assert any("Correct" in s.value for s in at.success)


def exercises_heading(at) -> str:
    return next(h.value for h in at.header if h.value.startswith("✏️ Exercises"))


def test_a_reload_or_a_typed_link_with_the_token_keeps_what_was_solved(data_dir):
    at = open_page("spring")
    token = url_value(at, "learner")
    assert tokens.verify(token, "learner") and "0 of 3 solved" in exercises_heading(at)
    solve_spring_exercise(at)
    assert "1 of 3 solved" in exercises_heading(at)
    reloaded = open_page("spring", {"learner": token, "m": "2"})                # a fresh session, the tab's URL
    assert "1 of 3 solved" in exercises_heading(reloaded)
    assert [c.value for c in reloaded.caption].count("✅ Solved in this tab. Check again any time.") == 1  # its card
    assert url_value(reloaded, "learner") == token
    elsewhere = open_page("rings", {"learner": token})                          # the score across lessons
    assert any("1 of" in m.value and "exercises" in m.value for m in elsewhere.sidebar.markdown)


def test_two_tabs_and_a_teacher_link_do_not_share_a_score(data_dir):
    first = open_page("spring")
    solve_spring_exercise(first)
    second = open_page("spring", {"c": "0.2"})                                   # a teacher's link: no token
    assert url_value(second, "learner") != url_value(first, "learner")
    assert "0 of 3 solved" in exercises_heading(second)
    forged = open_page("spring", {"learner": "not-a-token"})                      # a bad token: a fresh one
    assert url_value(forged, "learner") != "not-a-token" and "0 of 3 solved" in exercises_heading(forged)


def test_no_setting_is_named_like_a_parameter_the_tab_keeps_in_its_url():
    from lcsm_explorer.app.lessons import all_lessons
    kept = {"learner", "class", "teacher", "step", "owner", "run", "show", "lock", "present", "challenge"}
    assert not kept & {p.name for page in all_lessons() for p in page.settings.params}


def test_a_visitor_creates_a_bounded_number_of_classes_a_day_and_the_operator_any(tmp_path, monkeypatch):
    """Issue 24: anyone may press "Create a class"; a fresh token does not reset the count (it is per address)."""
    monkeypatch.setenv("LCSM_VISITOR_MAX_CLASSES", "2")
    classes, now = ClassStore(StoreFile(tmp_path / "runs.sqlite")), 1_000_000.0
    for _ in range(2):
        classes.create_class(visitor="203.0.113.7", now=now)
    with pytest.raises(ValueError, match="2 classes in the last 24 hours"):
        classes.create_class(visitor="203.0.113.7", now=now + 60)
    assert CLASS_CODE.fullmatch(classes.create_class(visitor="198.51.100.4", now=now + 60)[0])   # another address
    assert classes.create_class(visitor="203.0.113.7", now=now + 25 * 3600)                    # a day later
    for _ in range(3):
        classes.create_class(visitor="127.0.0.1", now=now)                                     # the operator
        classes.create_class(now=now)
    rows = classes.file.db.execute("SELECT visitor FROM classes").fetchall()
    assert not any(v and "203.0.113.7" in v for (v,) in rows)                                  # only hashes kept


def test_an_older_store_file_gets_the_visitor_column(tmp_path):
    path = tmp_path / "runs.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE classes (code TEXT PRIMARY KEY, teacher TEXT NOT NULL UNIQUE, created_at REAL NOT NULL)")
    db.execute("INSERT INTO classes VALUES ('ABCDEF', 'x', 1.0)")
    db.commit()
    db.close()
    classes = ClassStore(StoreFile(path))
    assert classes.exists("ABCDEF") and classes.create_class(visitor="203.0.113.7")

"""Issue 24, items 6 and 7 on the pages: each run-store fault shows its words on Train live and Paper lab (and a
lesson's score, the class view and a class link), never a traceback, SQLite's own text or the server's path. The
faults themselves: tests/training/test_store_faults.py."""
import os
import sqlite3
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lcsm_serving import RunStore, client
from lcsm_serving.class_store import ClassStore
from tests.app.pages import open_page

PAGES = ("train_live", "paper_lab")


def garbage(data_dir):
    (data_dir / "runs.sqlite").write_bytes(os.urandom(8192))
    return data_dir, "damaged"


def half_truncated(data_dir):
    store = RunStore(data_dir / "runs.sqlite")
    run_id = store.create_run({}, "kept")
    store.write(run_id, [(i, 2.5, 0.25, None, 1e-2, 0.1) for i in range(3000)], [], "completed", 3000, 1.0, 0.5)
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    path = data_dir / "runs.sqlite"
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    return data_dir, "damaged"


def not_a_folder(data_dir):
    (data_dir / "a-file").write_text("not a folder")
    return data_dir / "a-file" / "data", "cannot write its run store"


FAULTS = {"garbage": garbage, "half truncated": half_truncated, "not a folder": not_a_folder}


def shown(at) -> list[str]:
    return [e.value for e in at.error] + [w.value for w in at.warning]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_store_is_said_in_words_on_the_live_pages(tmp_path, monkeypatch, page, fault):
    data_dir, words = FAULTS[fault](tmp_path)
    monkeypatch.setenv("LCSM_DATA_DIR", str(data_dir))
    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    said = shown(at)
    assert any(words in s for s in said), said
    assert not any("Traceback" in s or "sqlite3." in s for s in said)
    errors = [e.value for e in at.error]
    assert len(errors) == len(set(errors)), errors                # every part reads the same store: said once


def test_a_store_deleted_while_the_server_runs_is_said_and_not_recreated_by_train_live(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    at = open_page("train_live")
    assert not at.exception and not at.error
    for name in ("runs.sqlite", "runs.sqlite-wal", "runs.sqlite-shm"):
        if (tmp_path / name).exists():
            (tmp_path / name).unlink()
    try:
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert any("deleted or replaced" in s for s in shown(at)), shown(at)
    finally:                                  # the page's trainer service thread: not left polling a ghost
        service = client._SERVICES.pop((tmp_path / "runs.sqlite").resolve(), None)
        if service is not None:
            service.stop()


# --- the class view: the class store lives in the same file --------------------------------------------------
CLASS_VIEW = """
from lcsm_explorer.app.class_view import render_class_view
render_class_view()
"""


def class_view(query: dict | None = None) -> AppTest:
    at = AppTest.from_string(CLASS_VIEW, default_timeout=120)
    for name, value in (query or {}).items():
        at.query_params[name] = value
    return at.run()


def assert_in_words(said: list[str], store: Path) -> None:
    """No SQLite text, no exception name, no server path: what a visitor may read."""
    for text in said:
        assert "sqlite" not in text.lower() and "Error" not in text, text
        assert str(store) not in text and str(store.parent) not in text, text


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_store_is_said_in_words_on_the_class_view(tmp_path, monkeypatch, fault):
    data_dir, words = FAULTS[fault](tmp_path)
    monkeypatch.setenv("LCSM_DATA_DIR", str(data_dir))
    create = class_view()
    create.button(key="class_view.create").click().run()               # a teacher creates a class: refused
    teacher = class_view({"teacher": "f" * 32})                          # a teacher comes back: cannot be read
    for at in (create, teacher):
        assert not at.exception, [e.value for e in at.exception]
        assert any(words in s for s in shown(at)), shown(at)
        assert_in_words(shown(at), data_dir / "runs.sqlite")


def test_a_class_s_answers_that_cannot_be_read_are_said_in_words(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    at = class_view()
    at.button(key="class_view.create").click().run()
    assert not at.exception and "teacher" in at.query_params

    def failing(self, code):
        raise sqlite3.OperationalError(f"disk I/O error reading {tmp_path / 'runs.sqlite'}")
    monkeypatch.setattr(ClassStore, "results", failing)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    said = [w.value for w in at.warning if "answers could not be read" in w.value]
    assert said and "damaged" in said[0], shown(at)
    assert_in_words(shown(at), tmp_path / "runs.sqlite")


def test_joining_a_class_on_a_broken_store_is_said_in_words(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    code, _ = ClassStore(None).create_class(visitor="203.0.113.7")

    def failing(self, token, code, visitor=None, now=None):
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(ClassStore, "join", failing)
    tab = open_page("spring", {"class": code})
    assert not tab.exception, [e.value for e in tab.exception]
    said = [w.value for w in tab.warning if "could not be joined" in w.value]
    assert said and "disk is full" in said[0] and "database or disk" not in said[0], shown(tab)

"""Issue 24, items 6 and 7 on the pages: each run-store fault shows its words on Train live and Paper lab (and a
lesson's score), never a traceback. The faults themselves: tests/training/test_store_faults.py."""
import os

import pytest

from lcsm_core.training import RunStore, client
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

"""Issue 24, items 6 and 7: store faults told in words, logged once, the run's true status kept, and a deleted or
replaced store file noticed instead of written to as a ghost. A full disk is SQLite's own "database or disk is
full", made with PRAGMA max_page_count on the connection (the same error path as a full file system)."""
import errno
import logging
import os
import sqlite3
import threading

import pytest

from lcsm_serving import RunStore, record_run, store_faults
from lcsm_serving.progress_store import ProgressStore, StoreFile
from lcsm_serving.store_faults import StoreMoved, fault_kind, log_store_fault, run_fault_reason, store_fault_message
from lcsm_serving.worker import end_when_writable
from tests.training.tiny import tiny_config

ROW = (1, 2.5, 0.25, None, 1e-2, 0.1)


def fill_disk(store: RunStore) -> None:
    """The store's connection can grow the file no more: its next new page is "database or disk is full"."""
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages}")


def free_disk(store: RunStore) -> None:
    store._db.execute("PRAGMA max_page_count=1073741823")


def many_rows(n: int = 400) -> list[tuple]:
    return [(i, 2.5, 0.25, None, 1e-2, 0.1) for i in range(n)]


# --- each fault in words ---------------------------------------------------------------------------------------
def test_an_unwritable_data_folder_is_said_in_words(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    with pytest.raises(OSError) as raised:
        RunStore(blocked / "data" / "runs.sqlite")
    assert "cannot write its run store" in store_fault_message(raised.value)
    for code in (errno.EROFS, errno.EACCES):
        assert "LCSM_DATA_DIR" in store_fault_message(OSError(code, os.strerror(code)))
    assert fault_kind(sqlite3.OperationalError("attempt to write a readonly database")) == "unwritable"
    assert store_fault_message(OSError(errno.ECONNRESET, "reset")) is None         # not the store's
    assert store_fault_message(ValueError("x")) is None


def test_a_garbage_or_half_truncated_store_file_is_said_damaged(tmp_path):
    garbage = tmp_path / "garbage" / "runs.sqlite"
    garbage.parent.mkdir()
    garbage.write_bytes(os.urandom(8192))
    with pytest.raises(sqlite3.DatabaseError) as raised:
        RunStore(garbage)
    assert "damaged" in store_fault_message(raised.value)

    half = tmp_path / "half" / "runs.sqlite"
    store = RunStore(half)
    run_id = store.create_run({}, "full")
    store.write(run_id, many_rows(3000), [], "completed", 3000, 1.0, 0.5)
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    with open(half, "r+b") as f:
        f.truncate(os.path.getsize(half) // 2)
    with pytest.raises(sqlite3.DatabaseError) as raised:
        RunStore(half).list_runs()
    assert fault_kind(raised.value) == "damaged" and "move it aside" in store_fault_message(raised.value)


def test_a_full_disk_refuses_writes_in_words_keeps_reads_and_everything_stored(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({}, "tiny")
    store.start_run(run_id, device="cpu")
    store.write(run_id, [ROW], [], "running", 1, 0.1, None)
    fill_disk(store)
    with pytest.raises(sqlite3.OperationalError) as raised:
        store.write(run_id, many_rows(), [], "running", 400, 1.0, None)
    assert "disk is full" in store_fault_message(raised.value)
    assert [r.id for r in store.list_runs()] == [run_id]                           # a poll still reads
    assert store.metrics(run_id)["step"].tolist() == [1]                           # nothing stored was lost
    free_disk(store)
    store.write(run_id, many_rows(), [], "completed", 400, 1.0, 0.5)               # space back: saved again
    assert store.get_run(run_id).status == "completed" and store.integrity_ok()


def test_a_full_disk_at_commit_does_not_leave_the_connection_stuck_in_its_transaction(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({}, "tiny")
    fill_disk(store)
    for _ in range(3):                                  # every 1 s poll of a writer: the same words, no other error
        with pytest.raises(sqlite3.OperationalError, match="full"):
            store.write(run_id, many_rows(), [], "running", 400, 1.0, None)
        assert not store._db.in_transaction
    free_disk(store)
    store.set_status(run_id, "stopped", "by hand")
    assert store.get_run(run_id).status == "stopped"


def test_a_poll_marking_dead_runs_on_a_full_disk_reads_instead_of_raising(tmp_path, monkeypatch):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({}, "orphan", status="running")
    monkeypatch.setattr("lcsm_serving.store.owner_alive", lambda owner: False)
    monkeypatch.setattr(store_faults, "_LOGGED", {})

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")
    store._tx = full
    assert [r.status for r in store.list_runs()] == ["running"]                   # read, marked later
    del store._tx                                                                  # space back
    assert store.list_runs()[0].status == "interrupted"
    assert run_id == store.list_runs()[0].id


def test_each_fault_is_logged_once_not_per_poll(caplog, monkeypatch):
    monkeypatch.setattr(store_faults, "_LOGGED", {})
    full = sqlite3.OperationalError("database or disk is full")
    with caplog.at_level(logging.WARNING, logger="lcsm.store"):
        for second in range(60):                        # a minute of 1 s polls
            assert "disk is full" in log_store_fault(full, "train_live poll", now=float(second))
        log_store_fault(sqlite3.DatabaseError("file is not a database"), now=60.0)   # another fault: its own line
        log_store_fault(full, now=60.0 + store_faults.REPEAT_S)                       # still there much later
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3 and sum("disk is full" in line for line in lines) == 2
    assert "train_live poll" in lines[0]


# --- the run's true status: a worker whose store filled up --------------------------------------------------
class FillingStore:
    """A RunStore whose writes fail as on a full disk while `full` is set."""

    def __init__(self, store: RunStore):
        self.store, self.full, self.refused = store, threading.Event(), 0

    def __getattr__(self, name):
        method = getattr(self.store, name)
        if name not in ("write", "set_status", "start_run"):
            return method

        def refusing(*args, **kwargs):
            if self.full.is_set():
                self.refused += 1
                raise sqlite3.OperationalError("database or disk is full")
            return method(*args, **kwargs)
        return refusing


def test_a_run_whose_disk_filled_ends_failed_with_the_reason_once_space_returns(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    config = tiny_config(max_steps=4000, eval_every=4, snapshot_every=4)
    run_id = store.create_run(config.to_dict(), label="tiny")
    filling = FillingStore(store)
    seen: list[int] = []

    def on_record(record):
        seen.append(record.step)
        if record.step == 30:
            filling.full.set()                          # the disk fills mid-run
            threading.Timer(0.3, filling.full.clear).start()   # and the operator frees space

    with pytest.raises(sqlite3.OperationalError):
        record_run(filling, run_id, config, flush_s=0.0, on_record=on_record)
    assert store.get_run(run_id).status == "running"                             # what the file says meanwhile
    assert end_when_writable(filling, run_id, sqlite3.OperationalError("database or disk is full"),
                             server_alive=lambda: True, retry_s=0.05)
    row = store.get_run(run_id)
    assert row.status == "failed" and "the server's disk is full" in row.reason and "kept" in row.reason
    assert "database or disk" not in row.reason and "Error" not in row.reason            # in words, not SQLite's
    assert 0 < len(store.metrics(run_id)["step"]) <= 31 and filling.refused >= 2


class FullForRows(FillingStore):
    """A full disk that refuses the recorder's rows but still takes the small update ending the run."""

    def __getattr__(self, name):
        if name != "write":
            return getattr(self.store, name)
        return super().__getattr__(name)


def test_a_run_whose_rows_the_full_disk_refused_ends_with_the_reason_in_words(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    config = tiny_config(max_steps=4000, eval_every=4, snapshot_every=4)
    run_id = store.create_run(config.to_dict(), label="tiny")
    filling = FullForRows(store)

    def on_record(record):
        if record.step == 30:
            filling.full.set()
    assert record_run(filling, run_id, config, flush_s=0.0, on_record=on_record) is None
    row = store.get_run(run_id)
    assert row.status == "failed" and row.reason == ("the run store could not save it: the server's disk is full; "
                                                     "the steps saved before are kept")


def test_a_fault_of_no_known_kind_is_said_without_sqlite_s_text(tmp_path):
    odd = sqlite3.OperationalError(f"no such table: runs in {tmp_path / 'runs.sqlite'}")
    for words in (store_fault_message(odd), run_fault_reason(odd)):
        assert "no such table" not in words and str(tmp_path) not in words and "could not be" in words


def test_a_store_that_cannot_come_back_is_not_retried(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({}, "tiny", status="running")
    (tmp_path / "runs.sqlite").unlink()
    assert not end_when_writable(store, run_id, StoreMoved(str(tmp_path), "deleted"), lambda: True, retry_s=0)
    assert not end_when_writable(store, run_id, sqlite3.OperationalError("full"), lambda: False, retry_s=0)


# --- a deleted or replaced store file (item 7) -----------------------------------------------------------------
def test_a_deleted_store_file_is_noticed_and_never_written_as_a_ghost(tmp_path):
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    run_id = store.create_run({}, "tiny", status="running")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(f"{path}{suffix}"):
            os.unlink(f"{path}{suffix}")
    for act in (lambda: store.write(run_id, [ROW], [], "running", 1, 0.1, None), store.list_runs,
                lambda: store.get_run(run_id)):
        with pytest.raises(StoreMoved) as raised:
            act()
        assert raised.value.how == "deleted" and "deleted or replaced" in store_fault_message(raised.value)
    store.close()                                                                  # still closes
    assert not path.exists()                                                       # nothing recreated it


def test_a_replaced_store_file_is_noticed_by_runs_and_progress(tmp_path):
    path = tmp_path / "runs.sqlite"
    store, progress = RunStore(path), ProgressStore(StoreFile(path))
    run_id = store.create_run({}, "tiny", status="running")
    progress.record_solved("t" * 64, "spring", "exercise", "one")
    fresh = RunStore(tmp_path / "other.sqlite")
    fresh.close()
    os.replace(tmp_path / "other.sqlite", path)
    with pytest.raises(StoreMoved, match="replaced"):
        store.set_status(run_id, "stopped")
    with pytest.raises(StoreMoved, match="replaced"):
        progress.record_solved("t" * 64, "spring", "exercise", "two")
    store.close()
    progress.file.close()


def test_the_trainer_service_logs_a_store_fault_once_instead_of_a_traceback_per_poll(tmp_path, monkeypatch, capfd,
                                                                                  caplog):
    from lcsm_serving import service as service_module
    monkeypatch.setattr(store_faults, "_LOGGED", {})
    monkeypatch.setattr(service_module, "POLL_S", 0.01)
    trainer = service_module.TrainerService(tmp_path / "runs.sqlite")
    polls = []

    def full_disk_tick():
        polls.append(1)
        if len(polls) >= 20:
            trainer.stop()
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(trainer, "tick", full_disk_tick)
    with caplog.at_level(logging.WARNING, logger="lcsm.store"):
        trainer.serve()
    assert len(polls) >= 20
    assert "Traceback" not in capfd.readouterr().err
    assert sum("disk is full" in r.getMessage() for r in caplog.records) == 1

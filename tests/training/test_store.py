"""The SQLite run store: round-trip, interrupted runs, data-dir resolution, an old file's migration, the
incremental metric read, the trainer service's jobs, commands and lease."""
import sqlite3
import threading
import time

import numpy as np
import pytest

from lcsm_serving import RunStore, default_db_path, owner_hash, record_run
from lcsm_serving.store import PlaceTaken, QueueFull, open_store_file, process_owner
from tests.training.tiny import tiny_config


def test_round_trip_of_runs_metrics_and_snapshots(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    config = tiny_config()
    run_id = store.create_run(config.to_dict(), label="tiny", session="s")
    store.start_run(run_id, device="cpu")
    eig = np.array([0.5 + 0.1j, -0.2j, 0.9])
    store.write(run_id, [(1, 2.5, 0.25, None, 1e-2, 0.1), (2, 2.0, 0.5, 0.75, 1e-2, 0.2)],
                [(2, 0, eig), (2, 1, eig * 0.5)], status="completed", steps=2, wall_s=0.2, test_acc=0.75,
                reason="done")
    store.close()

    again = RunStore(tmp_path / "runs.sqlite")
    [row] = again.list_runs()
    assert (row.id, row.label, row.status, row.steps, row.test_acc, row.best_test_acc, row.reason) == \
        (run_id, "tiny", "completed", 2, 0.75, 0.75, "done")
    assert type(config).from_dict(row.config) == config
    m = again.metrics(run_id)
    assert m["step"].tolist() == [1, 2] and m["loss"].tolist() == [2.5, 2.0] and np.isnan(m["test_acc"][0])
    [(step, layers)] = again.snapshots(run_id)
    assert step == 2 and np.allclose(layers[0], eig) and np.allclose(layers[1], eig * 0.5)
    assert again.integrity_ok()


def test_eight_processes_opening_a_fresh_file_at_once_all_get_it_in_wal_mode(tmp_path):
    """SQLite refuses a journal-mode change at once (no busy wait) to all but one of the connections racing on a
    new file; opening the store retries, or a web process's first page would fail on "database is locked"."""
    def open_it(path, barrier, modes):
        barrier.wait()
        try:
            modes.append(open_store_file(path)[1].execute("PRAGMA journal_mode").fetchone()[0])
        except sqlite3.OperationalError as err:
            modes.append(str(err))

    for trial in range(30):
        path, barrier, modes = tmp_path / f"race{trial}.sqlite", threading.Barrier(8), []
        threads = [threading.Thread(target=open_it, args=(path, barrier, modes)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert modes == ["wal"] * 8, f"fresh file {trial}: {modes}"


def test_recorded_run_keeps_every_step(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    config = tiny_config(max_steps=12, eval_every=4, snapshot_every=4)
    run_id = store.create_run(config.to_dict(), label="tiny")
    last = record_run(store, run_id, config, flush_s=0.0)
    row = store.get_run(run_id)
    assert last.status == row.status == "completed" and row.steps == 12 and row.device == "cpu"
    assert store.metrics(run_id)["step"].tolist() == list(range(13)) + [12]
    snapshots = store.snapshots(run_id)
    assert [s for s, _ in snapshots] == [0, 4, 8, 12]
    assert all(len(layers) == config.model.n_layers for _, layers in snapshots)   # step 12 is stored twice


def test_a_run_whose_owner_died_shows_interrupted_on_open(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({}, label="ghost")
    store.start_run(run_id, device="cpu")
    alive_id = store.create_run({}, label="alive")
    store._db.execute("UPDATE runs SET owner=? WHERE id=?", (process_owner().rsplit(":", 1)[0] + ":1", run_id))
    store.close()
    reopened = RunStore(tmp_path / "runs.sqlite")
    assert reopened.get_run(run_id).status == "interrupted"
    assert reopened.get_run(alive_id).status == "queued"          # its owner (this process) lives


def test_failed_build_ends_the_run_failed_with_its_message(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    config = tiny_config()
    config.model.variant = "no-such-variant"
    run_id = store.create_run({}, label="bad")
    assert record_run(store, run_id, config) is None
    row = store.get_run(run_id)
    assert row.status == "failed" and "no-such-variant" in row.reason


def test_data_dir_option_then_env_then_repo_default(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path / "env"))
    assert default_db_path(tmp_path / "opt") == tmp_path / "opt" / "runs.sqlite"
    assert default_db_path() == tmp_path / "env" / "runs.sqlite"
    monkeypatch.delenv("LCSM_DATA_DIR")
    assert default_db_path().parent.name == "data" and (default_db_path().parents[1] / "lcsm_core").is_dir()


def test_an_old_file_opens_with_the_new_tables_and_owner_tokens_become_hashes(tmp_path):
    """A store written before the trainer service: plain tokens in runs.session, no jobs/commands/service."""
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        db.execute("INSERT INTO runs (label, config, status, session, owner, created_at) "
                   "VALUES ('old', '{}', 'completed', 'tab-token', 'h:1:1', 0)")
    store = RunStore(path)
    [row] = store.session_runs("tab-token")
    assert row.session == owner_hash("tab-token") and row.owned_by("tab-token") and not row.owned_by("other")
    store.close()
    again = RunStore(path)                                       # idempotent: hashed once, not twice
    assert [r.id for r in again.session_runs("tab-token")] == [row.id]
    assert again.pending_commands() == [] and again.live_service() is None


def test_a_poll_reads_only_the_metric_rows_written_since_the_last(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({}, label="poll")
    store.write(run_id, [(1, 2.0, 0.1, None, 1e-3, 0.1), (2, 1.5, 0.2, 0.3, 1e-3, 0.2)], [], "running", 2, 0.2, 0.3)
    first, last = store.metrics_since(run_id)
    assert first["step"].tolist() == [1, 2] and np.isnan(first["test_acc"][0])
    assert store.metrics_since(run_id, last)[0]["step"].tolist() == []
    store.write(run_id, [(3, 1.0, 0.5, None, 1e-3, 0.3)], [], "running", 3, 0.3, None)
    new, newer = store.metrics_since(run_id, last)
    assert new["step"].tolist() == [3] and newer > last


def test_one_owner_one_place_and_the_queue_are_checked_in_the_submitting_transaction(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    first = store.submit_job({}, "a", "alice", True, max_concurrent=1, max_queue=1)
    with pytest.raises(PlaceTaken):
        store.submit_job({}, "a", "alice", True, max_concurrent=1, max_queue=1)
    store.submit_job({}, "b", "bob", True, max_concurrent=1, max_queue=1)      # alice takes the free slot
    with pytest.raises(QueueFull):
        store.submit_job({}, "c", "carol", True, max_concurrent=1, max_queue=1)
    assert store.add_command(first, "alice", "step", (2,)) and not store.add_command(first, "bob", "step", (2,))
    [(command_id, *_)] = store.pending_commands()
    assert [(c[1], c[3], c[4]) for c in store.pending_commands()] == [(first, "step", [2])]
    store.command_applied(command_id, "applied")
    assert store.pending_commands() == [] and store.prune_commands(time.time() + 1) == 1
    assert store.acquire_service({"max_queue": 1}) and store.live_service()["policy"] == {"max_queue": 1}
    store.release_service()
    assert store.live_service() is None


OLD_SCHEMA = """
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT NOT NULL, config TEXT NOT NULL,
    status TEXT NOT NULL, reason TEXT, session TEXT, device TEXT, owner TEXT NOT NULL, created_at REAL NOT NULL,
    started_at REAL, ended_at REAL, heartbeat_at REAL, steps INTEGER NOT NULL DEFAULT 0,
    wall_s REAL NOT NULL DEFAULT 0, test_acc REAL, best_test_acc REAL);
CREATE TABLE metrics (run_id INTEGER NOT NULL, step INTEGER NOT NULL, loss REAL, train_acc REAL, test_acc REAL,
    lr REAL, wall_s REAL NOT NULL);
"""

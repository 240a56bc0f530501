"""`lcsm-explorer backup`: a copy taken while the store is open and being written holds every run, its metrics and
snapshots (the WAL's part too), the token key verifies the tokens browsers hold, and a bad target is refused."""
import stat

import numpy as np
import pytest

from lcsm_explorer.cli import main as cli
from lcsm_serving import RunStore, default_db_path, record_run, tokens
from lcsm_serving.backup import backup
from lcsm_serving.store import process_owner
from tests.training.tiny import tiny_config


def stored(store: RunStore):
    return [(r.id, r.status, r.steps, r.session, r.test_acc) for r in store.list_runs()]


def test_a_backup_taken_while_the_store_is_open_restores_the_same_runs_and_keys(tmp_path):
    data = tmp_path / "data"
    store = RunStore(default_db_path(data))
    config = tiny_config(max_steps=12, eval_every=4, snapshot_every=4)
    owner = tokens.mint("owner", data)
    finished = store.create_run(config.to_dict(), "tiny", session=owner)             # kept as its hash
    record_run(store, finished, config)
    waiting = store.create_run(config.to_dict(), "queued one")
    assert (data / "runs.sqlite-wal").exists()                  # the newest pages are still in the WAL, not the file

    copy = tmp_path / "backup"
    copied = backup(data, copy)                                 # the store stays open, as on a running server
    assert "runs.sqlite" in copied and "token.key" in copied and not any(n.endswith("-wal") for n in copied)

    restored = RunStore(default_db_path(copy))
    assert stored(restored) == stored(store) and {r.id for r in restored.list_runs()} == {finished, waiting}
    assert restored.get_run(finished).owned_by(owner) and restored.get_run(finished).status == "completed"
    np.testing.assert_array_equal(restored.metrics(finished)["loss"], store.metrics(finished)["loss"])
    assert len(restored.snapshots(finished)) == len(store.snapshots(finished)) > 0
    tokens._KEYS.clear()
    assert tokens.verify(owner, "owner", copy) and not tokens.verify(owner, "owner", tmp_path / "elsewhere")
    assert stat.S_IMODE((copy / "token.key").stat().st_mode) == 0o600
    store.close()
    restored.close()


def test_a_backup_refuses_a_target_that_holds_files_or_lies_inside_the_data(tmp_path):
    data = tmp_path / "data"
    RunStore(default_db_path(data)).close()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(FileExistsError, match="not empty"):
        backup(data, tmp_path / "full")
    with pytest.raises(ValueError, match="inside the data folder"):
        backup(data, data / "copy")
    with pytest.raises(FileNotFoundError):
        backup(tmp_path / "missing", tmp_path / "new")


def test_the_command_backs_up_the_data_folder_it_is_given(tmp_path, capsys):
    data = tmp_path / "data"
    RunStore(default_db_path(data)).close()
    assert cli(["backup", str(tmp_path / "copy"), "--data-dir", str(data)]) == 0
    assert "restore: stop the server" in capsys.readouterr().out and (tmp_path / "copy" / "runs.sqlite").exists()
    assert cli(["backup", str(tmp_path / "copy"), "--data-dir", str(data)]) == 2
    assert "not empty" in capsys.readouterr().err


def test_a_paused_job_of_a_server_gone_comes_back_queued_paused_and_an_unsaved_one_interrupted(tmp_path):
    """What a restored (or restarted) server finds: a learner's paused run saved its checkpoint when it paused, so it
    waits for the new service, to start paused at its step; a run that trained when its server went has nothing to
    go on from and reads "interrupted"."""
    store = RunStore(default_db_path(tmp_path))
    config = tiny_config(max_steps=12).to_dict()
    paused, running = (store.submit_job(config, "tiny", tokens.mint("owner", tmp_path), start_paused=False,
                                        max_concurrent=4, max_queue=4) for _ in range(2))
    gone = process_owner(2 ** 22 + 7)                            # no such process
    for run_id, status in ((paused, "paused"), (running, "running")):
        store.start_run(run_id, device="cpu", status=status)
        store.write(run_id, [], [], status, 5, 1.0, None)
        with store._lock:
            store._db.execute("UPDATE runs SET owner=? WHERE id=?", (gone, run_id))
    store.save_checkpoint(paused, b"its place")
    store.save_checkpoint(running, b"an old turn's")             # not the step it trained at when its server went
    store.close()

    opened = RunStore(default_db_path(tmp_path))                 # the new server opens the store
    back, lost = opened.get_run(paused), opened.get_run(running)
    assert (back.status, back.steps) == ("queued", 5) and "server restarted" in back.reason
    assert [job[0] for job in opened.queued_jobs()] == [paused] and opened.queued_jobs()[0][3] is True
    assert lost.status == "interrupted"
    opened.close()

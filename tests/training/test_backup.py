"""`lcsm-explorer backup`: a copy taken while the store is open and being written holds every run, its metrics and
snapshots (the WAL's part too), the token key verifies the tokens browsers hold, and a bad target is refused."""
import stat

import numpy as np
import pytest

from lcsm_explorer.cli import main as cli
from lcsm_serving import RunStore, default_db_path, record_run, tokens
from lcsm_serving.backup import backup
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

"""Issue 24, item 3: the owner and learner tokens are issued and signed by the server. A link's unsigned, forged,
truncated or other-purpose token is not honoured (the tab gets a fresh one, with a note); a signed one survives a
reload; the key file is private; the store keeps only a hash."""
import os
import sqlite3
import stat
import threading

import pytest
from streamlit.testing.v1 import AppTest

from lcsm_serving import tokens
from lcsm_serving.progress_store import ProgressStore
from lcsm_serving.store import owner_hash
from tests.app.pages import assert_clean, click, open_page, press_preset, url_value

OWNER_SCRIPT = """
import streamlit as st
from lcsm_explorer.app.kit.owner import owner_token
st.write("token:" + owner_token())
"""


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return tmp_path


def owner_tab(query: dict | None = None) -> AppTest:
    at = AppTest.from_string(OWNER_SCRIPT, default_timeout=30)
    for name, value in (query or {}).items():
        at.query_params[name] = value
    return at.run()


def shown_token(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("token:"))[len("token:"):]


def forgeries(signed: str) -> dict[str, str]:
    flipped = signed[:-1] + ("0" if signed[-1] != "0" else "1")
    return {"unsigned (the old shape)": "0" * 32, "all zeros": "0" * 64, "signature flipped": flipped,
            "truncated": signed[:48], "upper case": signed.upper(), "with a space": " " + signed,
            "another purpose": tokens.mint("learner")}


# --- pure ---------------------------------------------------------------------------------------------------
def test_a_minted_token_verifies_and_every_forgery_does_not(data_dir):
    signed = tokens.mint("owner")
    assert tokens.TOKEN_SHAPE.fullmatch(signed) and tokens.verify(signed, "owner")
    assert tokens.mint("owner") != signed
    for name, forged in forgeries(signed).items():
        assert not tokens.verify(forged, "owner"), name
    assert not tokens.verify(None, "owner") and not tokens.verify("9" * 5000, "owner")


def test_the_key_is_made_once_private_and_shared_by_processes_making_it_at_once(data_dir):
    keys = []
    threads = [threading.Thread(target=lambda: keys.append(tokens._make_key(tokens.key_path()) or
                                                           tokens.key_path().read_bytes())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys)) == 1 and len(keys[0]) == tokens.KEY_BYTES
    assert stat.S_IMODE(os.stat(tokens.key_path()).st_mode) == 0o600
    assert sorted(p.name for p in data_dir.iterdir()) == ["token.key"]            # no temporary file left


def test_another_data_directory_has_another_key(tmp_path):
    signed = tokens.mint("owner", tmp_path / "a")
    assert tokens.verify(signed, "owner", tmp_path / "a") and not tokens.verify(signed, "owner", tmp_path / "b")


def test_a_damaged_key_is_an_os_error_naming_the_file(data_dir):
    tokens.key_path().write_bytes(b"short")
    with pytest.raises(OSError, match="token.key"):
        tokens.mint("owner")


# --- the owner token in a page -----------------------------------------------------------------------------
def test_a_tab_without_a_token_gets_a_signed_one_that_survives_a_reload(data_dir):
    first = owner_tab()
    token = url_value(first, "owner")
    assert shown_token(first) == token and tokens.verify(token, "owner") and not first.info
    reloaded = owner_tab({"owner": token})
    assert shown_token(reloaded) == token and not reloaded.info


@pytest.mark.parametrize("kind", list(forgeries("0" * 64)))
def test_a_token_the_server_did_not_sign_is_ignored_with_a_note(data_dir, kind):
    forged = forgeries(tokens.mint("owner"))[kind]
    at = owner_tab({"owner": forged})
    assert not at.exception
    assert shown_token(at) != forged and tokens.verify(shown_token(at), "owner")
    assert url_value(at, "owner") == shown_token(at)
    note = [i.value for i in at.info if "not issued by this server" in i.value]
    assert len(note) == 1 and "<" not in note[0]


def test_an_unwritable_data_folder_gives_a_tab_token_and_a_message_not_a_traceback(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("LCSM_DATA_DIR", str(blocked / "data"))
    at = owner_tab()
    assert not at.exception and at.warning and len(shown_token(at)) == 64


# --- the learner token of progress --------------------------------------------------------------------------
def test_a_forged_learner_token_neither_reads_nor_writes_someone_elses_score(data_dir):
    victim = open_page("spring")
    token = url_value(victim, "learner")
    assert tokens.verify(token, "learner")
    press_preset(victim, "spring", "Critically damped")       # ⚖️ pressed in the instrument
    assert_clean(victim, "preset")
    click(victim, "spring.exercise.0.check")
    solved = ProgressStore().solved(token)
    assert solved
    guessed = "0" * 32                                     # what the old app accepted from any link
    ProgressStore().record_solved(guessed, "spring", "exercise", "planted")
    planted = open_page("spring", {"learner": guessed})
    assert url_value(planted, "learner") != guessed
    assert any("not issued by this server" in i.value for i in planted.info)
    assert not any("1 of 3 solved" in h.value for h in planted.header)
    reloaded = open_page("spring", {"learner": token})
    assert url_value(reloaded, "learner") == token and any("1 of 3 solved" in h.value for h in reloaded.header)
    with sqlite3.connect(data_dir / "runs.sqlite") as db:
        stored = {row[0] for row in db.execute("SELECT learner FROM progress")}
    assert owner_hash(token) in stored and token not in stored

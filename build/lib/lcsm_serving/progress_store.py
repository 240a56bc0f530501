"""A learner's solved exercises and challenges, kept in the run store's SQLite file so a reload, a typed link or
another web process finds them again.

A learner is a browser tab's token (`?learner=` in its URL, as Train live's `?owner=`); the store keeps only its
SHA-256 (`owner_hash`), so whoever reads the file learns what was solved, never the token that claims it. A learner
may join one class (`class_store`): the class view counts the solved items of its learners, anonymously.

The file is the run store's (`default_db_path`: $LCSM_DATA_DIR/runs.sqlite, else data/runs.sqlite), opened in WAL
mode with its own tables, so one backup holds runs and progress together and several web processes share it.
"""
from __future__ import annotations

import os
import time

from lcsm_serving.store import Transaction, add_missing_columns, open_store_file, owner_hash
from lcsm_serving.store_faults import SameFileLock

SCHEMA = """
CREATE TABLE IF NOT EXISTS progress (
    learner TEXT NOT NULL,
    page TEXT NOT NULL,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    solved_at REAL NOT NULL,
    PRIMARY KEY (learner, page, kind, title)
);
CREATE TABLE IF NOT EXISTS learners (
    learner TEXT PRIMARY KEY,
    class_code TEXT NOT NULL,
    joined_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS learners_class ON learners(class_code);
CREATE TABLE IF NOT EXISTS class_joins (
    class_code TEXT NOT NULL,
    visitor TEXT,
    joined_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS class_joins_by ON class_joins(class_code, visitor, joined_at);
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY,
    teacher TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
"""
KINDS = ("exercise", "challenge")
MAX_TITLE = 200          # a title longer than any lesson's is cut, not stored whole


class StoreFile:
    """One thread-safe connection to the shared SQLite file, with the progress and class tables created; its
    lock refuses a file deleted or replaced since (StoreMoved, as the run store's)."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path, self.db = open_store_file(path)
        self.lock = SameFileLock(self.path)
        with self.lock:
            self.db.executescript(SCHEMA)
            with Transaction(self.db):               # one check-and-add: two processes opening it add it once
                add_missing_columns(self.db, "classes", {"visitor": "TEXT",      # (before the class quota)
                                                         "seats": "INTEGER"})    # (before seats: the default)

    def close(self) -> None:
        with self.lock.unchecked:
            self.db.close()


class ProgressStore:
    """Record and read what learners solved (each learner named by its token, stored hashed)."""

    def __init__(self, file: StoreFile | str | os.PathLike | None = None):
        self.file = file if isinstance(file, StoreFile) else StoreFile(file)

    def record_solved(self, token: str, page: str, kind: str, title: str) -> None:
        """A right answer: kept once (the first time counts), whatever the number of Checks."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        with self.file.lock:
            self.file.db.execute("INSERT OR IGNORE INTO progress (learner, page, kind, title, solved_at) "
                                 "VALUES (?,?,?,?,?)", (owner_hash(token), page, kind, title[:MAX_TITLE], time.time()))

    def solved(self, token: str) -> dict[tuple[str, str], set[str]]:
        """(page, kind) → the titles this learner solved."""
        with self.file.lock:
            rows = self.file.db.execute("SELECT page, kind, title FROM progress WHERE learner=?",
                                        (owner_hash(token),)).fetchall()
        found: dict[tuple[str, str], set[str]] = {}
        for page, kind, title in rows:
            found.setdefault((page, kind), set()).add(title)
        return found

    def join_class(self, token: str, code: str) -> None:
        """This learner's results count in class `code` from now on (a later code replaces an earlier one)."""
        with self.file.lock:
            self.file.db.execute("INSERT OR REPLACE INTO learners (learner, class_code, joined_at) VALUES (?,?,?)",
                                 (owner_hash(token), code, time.time()))

    def class_of(self, token: str) -> str | None:
        with self.file.lock:
            row = self.file.db.execute("SELECT class_code FROM learners WHERE learner=?",
                                       (owner_hash(token),)).fetchone()
        return None if row is None else row[0]

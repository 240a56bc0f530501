"""The open tabs of each visitor across every web process of a tier, kept in the run store's file.

One web process alone would count only the tabs it serves: behind HAProxy a client without the affinity cookie is
spread over the processes, and each would let it hold its own cap. So each process writes its count per visitor
(a row per process and visitor) in the store file all processes share, and a new tab is admitted when the sum of
the live processes' rows is under the cap — check and count in one transaction. A process refreshes its rows
every `REFRESH_S`; rows not refreshed for `STALE_S` (a killed process) no longer count. Only hashes of visitors are
stored. A store that cannot be written (a fault the pages already report) admits every tab: the per-process count
in app/kit/fair_share.py still holds.
"""
from __future__ import annotations

import hashlib
import sqlite3
import threading
import time

from lcsm_serving.store import Transaction, open_store_file, process_owner

REFRESH_S = 20.0
STALE_S = 60.0
SCHEMA = """CREATE TABLE IF NOT EXISTS open_tabs (
    process TEXT NOT NULL,
    visitor TEXT NOT NULL,
    tabs INTEGER NOT NULL,
    seen_at REAL NOT NULL,
    PRIMARY KEY (process, visitor)
)"""


class SessionLedger:
    """This process's side of the shared count (`take`, `drop`), refreshed by a daemon thread."""

    def __init__(self, path=None):
        self.path, self.db = open_store_file(path)
        self.db.execute(SCHEMA)
        self.process = process_owner()
        self.lock = threading.Lock()
        threading.Thread(target=self._refresh, daemon=True, name="open-tabs-refresh").start()

    def take(self, visitor: str, most: int, now: float | None = None) -> bool:
        """Count one more tab of `visitor` here when the live processes hold fewer than `most` of its tabs."""
        now, key = time.time() if now is None else now, _hashed(visitor)
        with self.lock, Transaction(self.db):
            held = self.db.execute("SELECT COALESCE(SUM(tabs), 0) FROM open_tabs WHERE visitor=? AND seen_at>?",
                                   (key, now - STALE_S)).fetchone()[0]
            if held >= most:
                return False
            self.db.execute("INSERT INTO open_tabs (process, visitor, tabs, seen_at) VALUES (?,?,1,?) ON CONFLICT"
                            "(process, visitor) DO UPDATE SET tabs=tabs+1, seen_at=excluded.seen_at",
                            (self.process, key, now))
            return True

    def drop(self, visitor: str) -> None:
        key = _hashed(visitor)
        with self.lock, Transaction(self.db):
            self.db.execute("UPDATE open_tabs SET tabs=tabs-1 WHERE process=? AND visitor=?", (self.process, key))
            self.db.execute("DELETE FROM open_tabs WHERE process=? AND visitor=? AND tabs<=0", (self.process, key))

    def held(self, visitor: str, now: float | None = None) -> int:
        now = time.time() if now is None else now
        with self.lock:
            return self.db.execute("SELECT COALESCE(SUM(tabs), 0) FROM open_tabs WHERE visitor=? AND seen_at>?",
                                   (_hashed(visitor), now - STALE_S)).fetchone()[0]

    def _refresh(self) -> None:
        while True:
            time.sleep(REFRESH_S)
            try:
                with self.lock:
                    self.db.execute("UPDATE open_tabs SET seen_at=? WHERE process=?", (time.time(), self.process))
                    self.db.execute("DELETE FROM open_tabs WHERE seen_at<?", (time.time() - 10 * STALE_S,))
            except sqlite3.Error:
                pass                                  # a store fault: the pages say so; the count ages out


def _hashed(visitor: str) -> str:
    return hashlib.sha256(f"tabs:{visitor}".encode()).hexdigest()[:32]


_LEDGERS: dict[str, SessionLedger] = {}
_LEDGER_LOCK = threading.Lock()


def shared_ledger() -> SessionLedger | None:
    """This process's ledger on the store file ($LCSM_DATA_DIR, read on each call), or None when the file cannot be
    opened."""
    from lcsm_serving.store import default_db_path
    path = str(default_db_path())
    with _LEDGER_LOCK:
        if path not in _LEDGERS:
            try:
                _LEDGERS[path] = SessionLedger(path)
            except (sqlite3.Error, OSError):
                return None
        return _LEDGERS[path]

"""A fault of the run store's file (SQLite) told in words a page can show, instead of a traceback,
logged once rather than on every poll, and the check that the file is still the one the server opened.

Pages and the live-lesson kind catch `sqlite3.Error` and `OSError` around store reads and writes and show
`store_fault_message(exc)` when it is not None: unwritable folder, not a database, malformed, full disk, file
deleted or replaced while running. `log_store_fault` is the same message for a server's log, once per kind of fault
per REPEAT_S (a page polling every second must not write sixty tracebacks a minute).

`SameFileLock` is the store's lock (RunStore, the progress StoreFile): entering it also checks that the path still
names the file the connection opened (same device and inode). SQLite keeps writing to a deleted file through an
open connection, so without it a server whose runs.sqlite was deleted or replaced goes on writing to a ghost
while every newcomer opens a fresh file, and a restart finds the runs gone with no word anywhere. Pure: no
streamlit.
"""
from __future__ import annotations

import errno
import logging
import os
import sqlite3
import threading
import time

LOG = logging.getLogger("lcsm.store")
REPEAT_S = 300.0                   # a fault still there after this long is logged again
_LOGGED: dict[str, float] = {}     # kind of fault → when it was last logged by this process


class StoreMoved(sqlite3.OperationalError):
    """The store's file was deleted or replaced after this connection opened it."""

    def __init__(self, path: str, how: str):
        super().__init__(f"the run store file {path} was {how} while the server was running")
        self.path, self.how = path, how


def fault_kind(exc: BaseException) -> str | None:
    """"moved", "unwritable", "full", "damaged", "unopenable", "busy" or "other" for a store fault; None otherwise."""
    text = str(exc).lower()
    if isinstance(exc, StoreMoved):
        return "moved"
    if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR,
                                                  errno.EEXIST):
        return "unwritable"
    if (isinstance(exc, OSError) and exc.errno == errno.ENOSPC) or "disk is full" in text:
        return "full"
    if not isinstance(exc, sqlite3.Error):
        return None
    if "readonly database" in text or "read-only" in text:
        return "unwritable"
    if "unable to open database file" in text:
        return "unopenable"
    if "not a database" in text or "malformed" in text or "disk i/o error" in text:
        return "damaged"
    if "database is locked" in text or "database is busy" in text:
        return "busy"
    return "other"


MESSAGES = {
    "moved": ("The server's run store file was deleted or replaced while the server was running, so nothing more "
              "is saved to it. The operator restarts the server (after putting the file back, if it was a "
              "mistake): runs are then read and saved again."),
    "unwritable": ("The server cannot write its run store (the data folder is read-only, not a folder, or not "
                   "permitted). Runs cannot be started or saved until the operator fixes LCSM_DATA_DIR."),
    "full": ("The server's disk is full: the run store cannot take new rows. Nothing stored so far is lost; runs "
             "are saved again once the operator frees space (a run that could not be saved ends as failed)."),
    "unopenable": "The server cannot open its run store file (check that LCSM_DATA_DIR exists and is writable).",
    "damaged": ("The server's run store file is damaged (it cannot be read as a database). The operator can move "
                "it aside; the app then starts a fresh one."),
    "busy": "The run store is busy with another writer for too long; try again in a moment.",
    "other": ("The server's run store could not be read or written just now; try again in a moment (the server's "
              "log says why)."),
}

# What a run's row says when the store could not save it: in words, never SQLite's own text (the log keeps that)
RUN_REASONS = {
    "moved": "its run store file was deleted or replaced while the server was running",
    "unwritable": "the server cannot write its run store",
    "full": "the server's disk is full",
    "unopenable": "the server cannot open its run store file",
    "damaged": "the run store file is damaged",
    "busy": "the run store was busy with another writer for too long",
    "other": "the run store could not be written",
}


def store_fault_message(exc: BaseException) -> str | None:
    """What went wrong with the store, for a learner and an operator; None when `exc` is not a store fault. Never
    SQLite's own text or the file's path: a page shows it to anyone (log_store_fault keeps them for the operator)."""
    kind = fault_kind(exc)
    return None if kind is None else MESSAGES[kind]


def run_fault_reason(exc: BaseException) -> str | None:
    """Why a run the store could not save ended, for its row (the page shows it); None when `exc` is not a store
    fault."""
    kind = fault_kind(exc)
    if kind is None:
        return None
    return f"the run store could not save it: {RUN_REASONS[kind]}; the steps saved before are kept"


def log_store_fault(exc: BaseException, where: str = "", now: float | None = None) -> str | None:
    """`store_fault_message(exc)`, also written to the log the first time this kind of fault is seen (and again
    after REPEAT_S while it lasts), with the raw error for the operator; None when `exc` is not a store fault."""
    message, kind = store_fault_message(exc), fault_kind(exc)
    if message is None:
        return None
    now = time.monotonic() if now is None else now
    if now - _LOGGED.get(kind, -REPEAT_S) >= REPEAT_S:
        _LOGGED[kind] = now
        LOG.warning("run store fault%s: %s (%s: %s)", f" in {where}" if where else "", message,
                    type(exc).__name__, exc)
    return message


def file_identity(path: str | os.PathLike) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`, None when there is none."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


class SameFileLock:
    """A re-entrant lock that, once held, checks that `path` still names the file opened (StoreMoved if not), so
    no read or write of a store reaches a deleted or replaced file. Costs one stat() per use (~2 µs)."""

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        self.identity = file_identity(path)
        self._lock = threading.RLock()

    def __enter__(self):
        self._lock.acquire()
        now = file_identity(self.path)
        if now != self.identity:
            self._lock.release()
            raise StoreMoved(self.path, "deleted" if now is None else "replaced")
        return self

    def __exit__(self, *exc) -> bool:
        self._lock.release()
        return False

    @property
    def unchecked(self) -> threading.RLock:
        """The lock without the check: for closing a connection whatever became of its file."""
        return self._lock

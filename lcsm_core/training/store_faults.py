"""A fault of the run store's file (SQLite) told in words a page can show, instead of a traceback.

Pages and the live-lesson kind catch `sqlite3.Error` and `OSError` around store reads and writes and show
`store_fault_message(exc)` when it is not None (issue 24: unwritable folder, not a database, malformed, full disk,
file deleted or replaced while running). Pure: no streamlit.
"""
from __future__ import annotations

import errno
import sqlite3


def store_fault_message(exc: BaseException) -> str | None:
    """What went wrong with the store, for a learner and an operator; None when `exc` is not a store fault."""
    text = str(exc).lower()
    if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return ("The server cannot write its run store (the data folder is read-only or not permitted). "
                "Runs cannot be started or saved until the operator fixes LCSM_DATA_DIR.")
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC or "disk is full" in text:
        return ("The server's disk is full: the run store cannot take new rows. Nothing stored so far is lost; "
                "runs resume being saved once the operator frees space.")
    if not isinstance(exc, sqlite3.Error):
        return None
    if "unable to open database file" in text:
        return "The server cannot open its run store file (check LCSM_DATA_DIR exists and is writable)."
    if "not a database" in text or "malformed" in text:
        return ("The server's run store file is damaged (not a readable SQLite database). "
                "The operator can move it aside; the app then starts a fresh one.")
    return f"The run store could not be read or written ({exc})."

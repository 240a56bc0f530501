"""`lcsm-explorer backup DEST`: a copy of the data folder that a server can start from, taken while it runs.

Everything a server keeps is in its data folder (lcsm_serving.store.data_dir): the run store (runs.sqlite, with
classes, progress and the trainer's jobs), the key that signs browser and owner tokens (token.key) and the
checkpoints of runs paused or between two turns. SQLite files are copied with SQLite's online backup API, a consistent
snapshot even while the service writes (the -wal and -shm files are folded into it, never copied); every other
file is copied as it is, its permissions kept (the key stays 0600). Restore: stop the server, put the copy in
place of the data folder (or start with LCSM_DATA_DIR=DEST): the same runs, classes and progress are there, and
every token a browser holds still verifies, so an owner's tab still drives its run."""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
from pathlib import Path

from lcsm_serving.store import data_dir

SQLITE_HEADER = b"SQLite format 3\x00"
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def copy_database(source: Path, target: Path) -> None:
    """A consistent snapshot of `source` into `target` (SQLite's backup API: readers and the writer go on)."""
    reading, writing = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30), sqlite3.connect(target)
    try:
        reading.backup(writing)
    finally:
        writing.close()
        reading.close()


def backup(source: Path, target: Path) -> list[str]:
    """Copy the data folder `source` into `target` (new or empty); the copied files' names, relative."""
    source, target = Path(source), Path(target)
    if not source.is_dir():
        raise FileNotFoundError(f"no data folder at {source}")
    if target.exists() and any(target.iterdir()):
        raise FileExistsError(f"{target} is not empty: back up into a new folder")
    if target.resolve().is_relative_to(source.resolve()):
        raise ValueError(f"{target} is inside the data folder {source}: back up somewhere else")
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for path in sorted(source.rglob("*")):
        if not path.is_file() or path.name.endswith(SQLITE_SIDE_FILES):
            continue
        rel = path.relative_to(source)
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        if is_sqlite(path):
            copy_database(path, target / rel)
            os.chmod(target / rel, path.stat().st_mode & 0o777)
        else:
            shutil.copy2(path, target / rel)
        copied.append(str(rel))
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lcsm-explorer backup", description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="a new (or empty) folder for the copy")
    parser.add_argument("--data-dir", default=None, help="the data folder (default: $LCSM_DATA_DIR, else the default)")
    args = parser.parse_args(argv)
    source = data_dir(args.data_dir)
    try:
        copied = backup(source, args.dest)
    except (OSError, ValueError, sqlite3.Error) as err:
        print(f"lcsm-explorer backup: {err}", file=sys.stderr)
        return 2
    print(f"backed up {len(copied)} files of {source} into {args.dest}: {', '.join(copied[:6])}"
          + (" …" if len(copied) > 6 else ""))
    print(f"restore: stop the server, then use {args.dest} as its data folder (LCSM_DATA_DIR={args.dest})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

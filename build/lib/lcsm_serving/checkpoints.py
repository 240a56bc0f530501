"""Where a run that gave its slot back keeps its checkpoint (Trainer.checkpoint) until its next turn: one file per
run in a folder beside the run store (`runs.sqlite` → `runs.checkpoints/run-<id>.pt`).

A file, not the worker's memory: a worker trains other runs while one waits, and may die meanwhile. Written
whole or not at all (a temporary file, then a rename), so a worker killed mid-write leaves no half checkpoint.
The manager removes a run's file when the run ends, and, when it starts, every file of a run that no longer
waits or trains (a service killed with -9 leaves them)."""
from __future__ import annotations

import os
from pathlib import Path

SUFFIX = ".pt"


def checkpoints_dir(db_path: str | os.PathLike) -> Path:
    """The folder of a store file's checkpoints (named after the file: two stores in one folder keep theirs apart)."""
    db_path = Path(db_path)
    return db_path.parent / f"{db_path.stem}.checkpoints"


def checkpoint_path(db_path: str | os.PathLike, run_id: int) -> Path:
    return checkpoints_dir(db_path) / f"run-{run_id}{SUFFIX}"


def write_checkpoint(path: Path, checkpoint: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    with open(partial, "wb") as f:
        f.write(checkpoint)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)


def read_checkpoint(path: Path) -> bytes | None:
    """The checkpoint's bytes, None when the run has none (it never gave its slot back)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def remove_checkpoint(db_path: str | os.PathLike, run_id: int) -> None:
    checkpoint_path(db_path, run_id).unlink(missing_ok=True)


def remove_checkpoints_except(db_path: str | os.PathLike, keep: set[int]) -> int:
    """Remove the checkpoints (and half-written files) of every run not in `keep`; returns how many went."""
    folder, removed = checkpoints_dir(db_path), 0
    if not folder.is_dir():
        return 0
    for path in folder.iterdir():
        run = path.name.removeprefix("run-").split(".", 1)[0]
        if not (run.isdigit() and int(run) in keep and path.name.endswith(SUFFIX)):
            path.unlink(missing_ok=True)
            removed += 1
    return removed

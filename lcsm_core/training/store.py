"""The run store: one SQLite file (stdlib sqlite3, WAL) holding every training run,
its metrics over time and its eigenvalue snapshots, so a refresh, a second tab or a
restart loses nothing.

Where the file lives: an explicit path, else $LCSM_DATA_DIR/runs.sqlite, else
data/runs.sqlite at the repository root (gitignored).

A run whose owning process died (kill -9, crash, server restart) is marked
"interrupted" the next time the store is opened or listed: its owner (host, pid,
process start time) is gone; for an owner on another host, its heartbeat is older
than STALE_AFTER_S. Writes are single transactions, so a kill leaves every metric
up to the last flush and never a half-written file.
"""
from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA_DIR_ENV = "LCSM_DATA_DIR"
DB_NAME = "runs.sqlite"
ACTIVE = ("queued", "running", "paused")
FINAL = ("completed", "diverged", "stopped", "failed", "interrupted")
STALE_AFTER_S = 30.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    label TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    session TEXT,
    device TEXT,
    owner TEXT NOT NULL,
    created_at REAL NOT NULL,
    started_at REAL,
    ended_at REAL,
    heartbeat_at REAL,
    steps INTEGER NOT NULL DEFAULT 0,
    wall_s REAL NOT NULL DEFAULT 0,
    test_acc REAL,
    best_test_acc REAL
);
CREATE TABLE IF NOT EXISTS metrics (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    step INTEGER NOT NULL,
    loss REAL,
    train_acc REAL,
    test_acc REAL,
    lr REAL,
    wall_s REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS metrics_run ON metrics(run_id, step);
CREATE TABLE IF NOT EXISTS eigen_snapshots (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    step INTEGER NOT NULL,
    layer INTEGER NOT NULL,
    real TEXT NOT NULL,
    imag TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS eigen_run ON eigen_snapshots(run_id, step);
"""


def default_db_path(data_dir: str | os.PathLike | None = None) -> Path:
    """data_dir (option) > $LCSM_DATA_DIR > <repo>/data; the file is runs.sqlite inside it."""
    base = data_dir or os.environ.get(DATA_DIR_ENV) or Path(__file__).resolve().parents[2] / "data"
    return Path(base) / DB_NAME


def process_owner(pid: int | None = None) -> str:
    """"host:pid:start-ticks" — tells a live process from a later one that reused its pid."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid)}"


def owner_alive(owner: str) -> bool | None:
    """True/False for an owner on this host; None when it is on another host (unknown)."""
    host, pid, ticks = owner.rsplit(":", 2)
    if host != socket.gethostname():
        return None
    current = _start_ticks(int(pid))
    return current is not None and str(current) == ticks


def _start_ticks(pid: int) -> int | None:
    """Start time of a live (not zombie) process, from /proc; None when gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields_after_name = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return _alive_without_proc(pid)
    if fields_after_name[0] in ("Z", "X"):
        return None
    return int(fields_after_name[19])


def _alive_without_proc(pid: int) -> int | None:
    if not Path("/proc").exists():  # no procfs (macOS): pid check only
        try:
            os.kill(pid, 0)
            return 0
        except OSError:
            return None
    return None


@dataclass
class RunRow:
    id: int
    label: str
    config: dict
    status: str
    reason: str | None
    session: str | None
    device: str | None
    created_at: float
    started_at: float | None
    ended_at: float | None
    steps: int
    wall_s: float
    test_acc: float | None
    best_test_acc: float | None

    @property
    def active(self) -> bool:
        return self.status in ACTIVE


class RunStore:
    """Thread-safe handle on the store file. Opening it creates the file and tables and
    marks runs of dead processes "interrupted" (owner gone on this host, or — for an owner
    on another host sharing the file — no heartbeat for STALE_AFTER_S)."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path else default_db_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=30000")
        self._create_schema()
        self.mark_interrupted()

    def _create_schema(self) -> None:
        with self._lock:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)

    def _tx(self):
        return _Transaction(self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- writing -----------------------------------------------------------
    def create_run(self, config: dict, label: str, session: str | None = None, status: str = "queued") -> int:
        now = time.time()
        with self._lock, self._tx():
            cur = self._db.execute(
                "INSERT INTO runs (label, config, status, session, owner, created_at, heartbeat_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (label, json.dumps(config), status, session, process_owner(), now, now))
            return int(cur.lastrowid)

    def start_run(self, run_id: int, device: str, status: str = "running") -> None:
        now = time.time()
        with self._lock, self._tx():
            self._db.execute("UPDATE runs SET status=?, device=?, owner=?, started_at=?, heartbeat_at=? WHERE id=?",
                             (status, device, process_owner(), now, now, run_id))

    def write(self, run_id: int, metrics: list[tuple], snapshots: list[tuple], status: str,
              steps: int, wall_s: float, test_acc: float | None, reason: str | None = None) -> None:
        """One transaction: metric rows (step, loss, train_acc, test_acc, lr, wall_s), snapshot rows
        (step, layer, complex array), and the run's status / progress / heartbeat."""
        now = time.time()
        final = status in FINAL
        with self._lock, self._tx():
            self._db.executemany(
                "INSERT INTO metrics (run_id, step, loss, train_acc, test_acc, lr, wall_s) VALUES (?,?,?,?,?,?,?)",
                [(run_id, *_finite_row(row)) for row in metrics])
            self._db.executemany(
                "INSERT INTO eigen_snapshots (run_id, step, layer, real, imag) VALUES (?,?,?,?,?)",
                [(run_id, step, layer, json.dumps(np.round(np.real(v), 5).tolist()),
                  json.dumps(np.round(np.imag(v), 5).tolist())) for step, layer, v in snapshots])
            best = max((r[3] for r in metrics if r[3] is not None), default=None)
            self._db.execute(
                "UPDATE runs SET status=?, reason=COALESCE(?, reason), steps=?, wall_s=?, "
                "test_acc=COALESCE(?, test_acc), best_test_acc=MAX(COALESCE(best_test_acc, -1), COALESCE(?, -1)), "
                "heartbeat_at=?, ended_at=? WHERE id=?",
                (status, reason, steps, wall_s, test_acc, best, now, now if final else None, run_id))

    def set_status(self, run_id: int, status: str, reason: str | None = None) -> None:
        now = time.time()
        with self._lock, self._tx():
            self._db.execute("UPDATE runs SET status=?, reason=COALESCE(?, reason), heartbeat_at=?, "
                             "ended_at=? WHERE id=?", (status, reason, now, now if status in FINAL else None, run_id))

    def mark_interrupted(self) -> int:
        """Mark active runs whose owner died (or went silent) "interrupted"; returns how many."""
        now = time.time()
        with self._lock:
            rows = self._db.execute("SELECT id, status, owner, heartbeat_at FROM runs WHERE status IN (?,?,?)",
                                    ACTIVE).fetchall()
        dead = []
        for run_id, status, owner, heartbeat_at in rows:
            alive = owner_alive(owner)
            stale = status != "queued" and (heartbeat_at or 0) < now - STALE_AFTER_S
            if alive is False or (alive is None and stale):
                dead.append(run_id)
        if dead:
            with self._lock, self._tx():
                self._db.executemany(
                    "UPDATE runs SET status='interrupted', reason='its process stopped before it finished', "
                    "ended_at=COALESCE(heartbeat_at, ?) WHERE id=? AND status IN ('queued','running','paused')",
                    [(now, run_id) for run_id in dead])
        return len(dead)

    # --- reading -----------------------------------------------------------
    def list_runs(self, limit: int = 200) -> list[RunRow]:
        self.mark_interrupted()
        with self._lock:
            rows = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [_run_row(r) for r in rows]

    def session_runs(self, session: str) -> list[RunRow]:
        """Every run of one session (e.g. a grid's "grid:<id>"), oldest first."""
        self.mark_interrupted()
        with self._lock:
            rows = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE session=? ORDER BY id",
                                    (session,)).fetchall()
        return [_run_row(r) for r in rows]

    def get_run(self, run_id: int) -> RunRow | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id=?", (run_id,)).fetchone()
        return _run_row(row) if row else None

    def metrics(self, run_id: int) -> dict[str, np.ndarray]:
        """Columns step, loss, train_acc, test_acc, lr, wall_s as float arrays (NaN where absent), by step."""
        with self._lock:
            rows = self._db.execute("SELECT step, loss, train_acc, test_acc, lr, wall_s FROM metrics "
                                    "WHERE run_id=? ORDER BY step, rowid", (run_id,)).fetchall()
        cols = np.array(rows, dtype=float).reshape(len(rows), 6)
        return {name: cols[:, j] for j, name in enumerate(METRIC_COLUMNS)}

    def snapshots(self, run_id: int) -> list[tuple[int, list[np.ndarray]]]:
        """[(step, [eigenvalues of layer 0 (complex 1-D), layer 1, ...]), ...] by step. A step snapshot twice
        (the last step of a run is also its final record) keeps its latest snapshot of each layer."""
        with self._lock:
            rows = self._db.execute("SELECT step, layer, real, imag FROM eigen_snapshots WHERE run_id=? "
                                    "ORDER BY step, layer, rowid", (run_id,)).fetchall()
        out: dict[int, dict[int, np.ndarray]] = {}
        for step, layer, real, imag in rows:
            out.setdefault(step, {})[layer] = np.array(json.loads(real)) + 1j * np.array(json.loads(imag))
        return [(step, [layers[j] for j in sorted(layers)]) for step, layers in sorted(out.items())]

    def integrity_ok(self) -> bool:
        with self._lock:
            return self._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


METRIC_COLUMNS = ("step", "loss", "train_acc", "test_acc", "lr", "wall_s")
_RUN_COLUMNS = ("id, label, config, status, reason, session, device, created_at, started_at, ended_at, "
                "steps, wall_s, test_acc, best_test_acc")


def _run_row(r) -> RunRow:
    best = r[13] if r[13] is not None and r[13] >= 0 else None
    return RunRow(id=r[0], label=r[1], config=json.loads(r[2]), status=r[3], reason=r[4], session=r[5],
                  device=r[6], created_at=r[7], started_at=r[8], ended_at=r[9], steps=r[10], wall_s=r[11],
                  test_acc=r[12], best_test_acc=best)


def _finite_row(row: tuple) -> tuple:
    """SQLite stores inf/nan as NULL-ish oddities; keep a diverged loss readable as NaN → NULL."""
    return tuple(None if isinstance(v, float) and not np.isfinite(v) else v for v in row)


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT (ROLLBACK on error) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb):
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
        return False

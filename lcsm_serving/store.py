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

Beside runs and metrics, the store is the trainer service's mailbox (service.py, client.py): a run a web
process submits is a "job" row (status queued, `job` = 1) that outlives the web process; its owner is kept
as the SHA-256 of the tab's token in `runs.session` (never the token itself); a tab's pause / resume / step /
stop / set_lr is a row of `commands`, applied by the service in id order; the `service` row is the single
service's lease (owner process, heartbeat, sharing policy); `runs.queue_position` is what the service last
said about a run's place (0 holding a slot, 1.. waiting). A run that gave its slot back between two turns
(manager.py) is "queued" again, its reason "waiting: others' turn, resumes from step N" until its next turn
starts. A page's paper-lab grid is admitted as job rows too (`job` = GRID_JOB, `grid` its id): the service trains
its cells in its grid lane (manager.py), so no web process runs grid work; the CLI's grids (`job` = 0) run on the
CLI's own pool. While a grid holds the lab, a page's visitor may put theirs in the `grid_line` (one grid per visitor,
running or waiting; a few places): the trainer service starts the head of the line through admit_grid's checks when
no grid has a cell to run (start_grid_line_head), and the entry keeps whether it started or why it was refused.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lcsm_core.training.loop import suspended_reason
from lcsm_serving.admission import (
    CLASS_DEFAULT_SEATS,
    AdmissionPolicy,
    AdmissionRefused,
    Charge,
    queue_share,
    queue_share_message,
    refusal,
    visitor_class,
    visitor_hash,
)
from lcsm_serving.checkpoints import checkpoint_path, read_checkpoint, write_checkpoint
from lcsm_serving.store_faults import SameFileLock, fault_kind, log_store_fault

DATA_DIR_ENV = "LCSM_DATA_DIR"
DB_NAME = "runs.sqlite"
ACTIVE = ("queued", "running", "paused")
FINAL = ("completed", "diverged", "stopped", "failed", "interrupted")
STALE_AFTER_S = 30.0
LIVE_JOB, GRID_JOB = 1, 2    # runs.job: a tab's run, a page's grid cell (both the trainer service's); 0: neither

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
CREATE TABLE IF NOT EXISTS commands (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    args TEXT NOT NULL,
    created_at REAL NOT NULL,
    applied_at REAL,
    outcome TEXT
);
CREATE INDEX IF NOT EXISTS commands_pending ON commands(applied_at, id);
CREATE TABLE IF NOT EXISTS grid_line (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    grid TEXT NOT NULL,
    cells TEXT NOT NULL,
    session TEXT NOT NULL,
    visitor TEXT NOT NULL,
    class_code TEXT,
    job INTEGER NOT NULL,
    queued_at REAL NOT NULL,
    state TEXT NOT NULL DEFAULT 'waiting',
    ended_at REAL,
    reason TEXT
);
CREATE INDEX IF NOT EXISTS grid_line_state ON grid_line(state, id);
CREATE TABLE IF NOT EXISTS service (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    owner TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at REAL NOT NULL,
    heartbeat_at REAL NOT NULL,
    policy TEXT NOT NULL
);
"""
# Columns added after the first release: old files gain them on open (ALTER TABLE … ADD COLUMN).
ADDED_RUN_COLUMNS = {"job": "INTEGER NOT NULL DEFAULT 0", "start_paused": "INTEGER NOT NULL DEFAULT 0",
                     "queue_position": "INTEGER",
                     # admission (admission.py): who asked (visitor_hash; NULL: the operator), the estimated
                     # CPU-seconds, the grid a cell belongs to, and a stop asked of a grid's cell
                     "visitor": "TEXT", "cost_s": "REAL", "grid": "TEXT", "stop_requested": "TEXT",
                     # the class of a class learner's work (admission.visitor_class): the class's allowance
                     "class_code": "TEXT",
                     # what the run's numbers depend on beyond its config (numerics.fingerprint, JSON)
                     "numerics": "TEXT"}
ADDED_RUN_INDEXES = ("CREATE INDEX IF NOT EXISTS runs_visitor ON runs(visitor, created_at)",
                     "CREATE INDEX IF NOT EXISTS runs_class ON runs(class_code, created_at)",
                     "CREATE INDEX IF NOT EXISTS runs_status ON runs(status, grid)")
SCHEMA_VERSION = 1           # 1: runs.session holds owner_hash(token), not the token
SERVICE_STALE_S = 5.0        # a service on another host with no heartbeat for this long has lost its lease


def owner_hash(token: str) -> str:
    """What the store keeps of a tab's owner token (or a session name): its SHA-256, hex. Whoever reads the
    store (a backup, another web process) learns who owns a run, never the token that drives it."""
    return hashlib.sha256(token.encode()).hexdigest()


class PlaceTaken(ValueError):
    """The owner already has a queued or training run (`run_id`)."""

    def __init__(self, run_id: int):
        super().__init__(f"run {run_id} is still queued or training")
        self.run_id = run_id


class QueueFull(ValueError):
    """As many runs as the policy allows already wait for a slot."""


class GridBusy(ValueError):
    """A grid (`grid_id`) still has cells to run: one grid at a time per store."""

    def __init__(self, grid_id: str, message: str | None = None):
        super().__init__(message or f"grid {grid_id} is still running; wait for it to finish (or stop it)")
        self.grid_id = grid_id


class LineAhead(GridBusy):
    """The lab is free, but visitors' grids wait in the grid line (`grid_id` at its head): a visitor queues
    behind them rather than start before them."""

    def __init__(self, grid_id: str, waiting: int):
        super().__init__(grid_id, f"{waiting} grid(s) already wait in line for the paper lab; queue yours behind "
                                  "them")


class LineRefused(ValueError):
    """The grid line refuses this grid; the message is for the visitor."""


@dataclass(frozen=True)
class LineEntry:
    """A grid in the grid line, or one that left it: `state` waiting, started (its cells admitted at
    `ended_at`), refused (at its turn, `reason` why) or left (its visitor left the line). `place`: 1.. while
    waiting (1: the head), else None."""

    id: int
    grid: str
    state: str
    queued_at: float
    ended_at: float | None
    reason: str | None
    place: int | None = None


def default_data_dir() -> Path:
    """Where state lives when nothing names a folder: `data/` in a checkout (beside app/, git-ignored), else the
    user's data folder ($XDG_DATA_HOME/lcsm-explorer, ~/.local/share/lcsm-explorer) — never inside an installed
    package, which an upgrade replaces."""
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "app" / "streamlit_app.py").is_file() and (checkout / "lcsm_serving").is_dir():
        return checkout / "data"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "lcsm-explorer"


def data_dir(option: str | os.PathLike | None = None) -> Path:
    """The one folder that holds the server's state (run store, classes, token key): the option > $LCSM_DATA_DIR >
    default_data_dir()."""
    return Path(option or os.environ.get(DATA_DIR_ENV) or default_data_dir())


def default_db_path(data_dir_option: str | os.PathLike | None = None) -> Path:
    """The run store file, runs.sqlite in data_dir()."""
    return data_dir(data_dir_option) / DB_NAME


def open_store_file(path: str | os.PathLike | None = None) -> tuple[Path, sqlite3.Connection]:
    """The store file (`path`, else `default_db_path()`; its folder made) and one connection to it as every user of
    the file opens it: autocommit, shared across threads (the caller holds its own lock), WAL, waiting up to 30 s
    for a writer in another process."""
    path = Path(path) if path else default_db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
    _switch_to_wal(db)
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA busy_timeout=30000")
    return path, db


def _switch_to_wal(db: sqlite3.Connection, patience_s: float = 30.0) -> None:
    """PRAGMA journal_mode=WAL, tried again while another connection holds the lock it needs. SQLite answers
    "database is locked" at once, without waiting on the busy timeout, when two connections race to change a fresh
    file's journal mode (waiting could deadlock them); the loser holds no lock, so a short sleep and a retry
    finishes the race."""
    deadline = time.monotonic() + patience_s
    pause = 0.005
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.25)


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
    numerics: dict | None = None          # numerics.fingerprint of its last turn (None: not recorded)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def owned_by(self, token: str) -> bool:
        """Whether `token` (a tab's owner token) submitted this run."""
        return self.session is not None and self.session == owner_hash(token)


class RunStore:
    """Thread-safe handle on the store file. Opening it creates the file and tables and
    marks runs of dead processes "interrupted" (owner gone on this host, or — for an owner
    on another host sharing the file — no heartbeat for STALE_AFTER_S)."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path, self._db = open_store_file(path)
        self._lock = SameFileLock(self.path)        # also refuses a deleted or replaced file (store_faults.py)
        self._create_schema()
        self.mark_interrupted()

    def _create_schema(self) -> None:
        """Idempotent, and safe when several processes open one file at once (one transaction)."""
        with self._lock, self._tx():
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            add_missing_columns(self._db, "runs", ADDED_RUN_COLUMNS)
            for statement in ADDED_RUN_INDEXES:
                self._db.execute(statement)
            if self._db.execute("PRAGMA user_version").fetchone()[0] < 1:    # plain tokens → their hashes
                rows = self._db.execute("SELECT id, session FROM runs WHERE session IS NOT NULL").fetchall()
                self._db.executemany("UPDATE runs SET session=? WHERE id=?",
                                     [(owner_hash(session), run_id) for run_id, session in rows])
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _tx(self):
        return Transaction(self._db)

    def close(self) -> None:
        with self._lock.unchecked:                 # a deleted file's connection still closes
            self._db.close()

    # --- writing -----------------------------------------------------------
    def create_run(self, config: dict, label: str, session: str | None = None, status: str = "queued") -> int:
        """A run row; `session` (a tab's token, a grid's name) is stored as owner_hash(session)."""
        now = time.time()
        with self._lock, self._tx():
            cur = self._db.execute(
                "INSERT INTO runs (label, config, status, session, owner, created_at, heartbeat_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (label, json.dumps(config), status, _hashed(session), process_owner(), now, now))
            return int(cur.lastrowid)

    # --- the trainer service's mailbox --------------------------------------
    def submit_job(self, config: dict, label: str, owner: str, start_paused: bool, max_concurrent: int,
                   max_queue: int, visitor: str | None = None, cost_s: float = 0.0,
                   admission: AdmissionPolicy | None = None) -> int:
        """A queued job for the trainer service, in one transaction with its checks, so two web processes
        cannot both take an owner's one place or the queue's last: PlaceTaken when `owner` (a token) has an
        active run; AdmissionRefused when `admission` refuses it for `visitor` (the address as the server sees
        it, kept as visitor_hash) at `cost_s` CPU-seconds; QueueFull when `max_queue` runs already wait for the
        `max_concurrent` slots."""
        now, hashed, who, klass = time.time(), owner_hash(owner), visitor_hash(visitor), visitor_class(visitor)
        with self._lock, self._tx():
            active = self._db.execute("SELECT id FROM runs WHERE session=? AND status IN (?,?,?) ORDER BY id",
                                      (hashed, *ACTIVE)).fetchone()
            if active is not None:
                raise PlaceTaken(active[0])
            self._check_admission(admission, who, cost_s, now, "this run", klass)
            holding, unplaced = self._db.execute(
                "SELECT COALESCE(SUM(status!='queued' OR queue_position=0), 0), "
                "COALESCE(SUM(status='queued' AND (queue_position IS NULL OR queue_position>0)), 0) "
                "FROM runs WHERE job=1 AND status IN (?,?,?)", ACTIVE).fetchone()
            if unplaced - max(max_concurrent - holding, 0) >= max_queue:
                raise QueueFull(f"{max_queue} runs wait")
            self._check_queue_share(who, klass, max_queue)
            cur = self._db.execute(
                "INSERT INTO runs (label, config, status, session, owner, created_at, heartbeat_at, job, "
                "start_paused, visitor, cost_s, class_code) VALUES (?, ?, 'queued', ?, ?, ?, ?, 1, ?, ?, ?, ?)",
                (label, json.dumps(config), hashed, process_owner(), now, now, int(start_paused), who, cost_s, klass))
            return int(cur.lastrowid)

    def queued_jobs(self, after_id: int = 0) -> list[tuple[int, dict, str, bool, str | None]]:
        """Queued jobs with id > after_id, oldest first: (run id, config, owner hash, start paused, the party the
        queue is fair between — "class:<code>" for a class's learners, all of them one party, else the visitor
        hash; None for the operator)."""
        with self._lock:
            rows = self._db.execute("SELECT id, config, session, start_paused, COALESCE('class:' || class_code, "
                                    "visitor) FROM runs WHERE job=1 AND status='queued' AND id>? ORDER BY id",
                                    (after_id,)).fetchall()
        return [(r[0], json.loads(r[1]), r[2], bool(r[3]), r[4]) for r in rows]

    def queued_grid_cells(self, after_id: int = 0) -> list[tuple[int, dict, str | None, str | None]]:
        """A page's grid cells (job = GRID_JOB) still queued with id > after_id, oldest first: (run id, config,
        visitor hash, the stop asked of it or None)."""
        with self._lock:
            rows = self._db.execute("SELECT id, config, visitor, stop_requested FROM runs WHERE job=? AND "
                                    "status='queued' AND id>? ORDER BY id", (GRID_JOB, after_id)).fetchall()
        return [(r[0], json.loads(r[1]), r[2], r[3]) for r in rows]

    def grid_stops(self) -> list[tuple[int, str]]:
        """(run id, reason) of every grid cell still queued or training that was asked to stop."""
        with self._lock:
            rows = self._db.execute("SELECT id, stop_requested FROM runs WHERE status IN (?,?,?) AND "
                                    "stop_requested IS NOT NULL AND job=?", (*ACTIVE, GRID_JOB)).fetchall()
        return [(r[0], r[1]) for r in rows]

    # --- admission (admission.py): inside the transaction that stores the work ----------------------
    def _check_admission(self, policy: AdmissionPolicy | None, visitor: str | None, cost_s: float, now: float,
                         what: str, klass: str | None = None, with_backlog: bool = True) -> None:
        """AdmissionRefused when `policy` refuses `cost_s` CPU-seconds more for `visitor` (a visitor_hash;
        None: the operator), or for its class `klass` (a class learner's work: the class's allowance), or — with
        `with_backlog` — for the server's backlog. Called inside the caller's transaction: what it reads cannot
        change before the work is stored."""
        if policy is None:
            return
        charges, class_charges, seats = [], None, None
        if visitor is not None:
            charges = self._charges("visitor", visitor, now - policy.window_s)
            if klass is not None:
                class_charges = self._charges("class_code", klass, now - policy.window_s)
                seats = self._class_seats(klass)
        backlog = 0.0
        if with_backlog:
            backlog = self._db.execute("SELECT COALESCE(SUM(MAX(COALESCE(cost_s, 0) - wall_s, 0)), 0) FROM runs "
                                       "WHERE status IN (?,?,?) AND stop_requested IS NULL", ACTIVE).fetchone()[0]
        reason = refusal(policy, cost_s, visitor, charges, float(backlog), now, what, class_charges, seats)
        if reason is not None:
            raise AdmissionRefused(reason)

    def _check_queue_share(self, visitor: str | None, klass: str | None, max_queue: int) -> None:
        """AdmissionRefused when the class `klass` (else the visitor; the operator: never) already waits in its
        share of the queue (admission.queue_share): runs queued and not yet placed in a slot."""
        column, key = ("class_code", klass) if klass is not None else ("visitor", visitor)
        if key is None:
            return
        waiting = self._db.execute(
            f"SELECT COUNT(*) FROM runs WHERE job=1 AND status='queued' AND {column}=? AND "
            "(queue_position IS NULL OR queue_position>0)", (key,)).fetchone()[0]
        share = queue_share(max_queue)
        if waiting >= share:
            raise AdmissionRefused(queue_share_message(waiting, share, klass is not None))

    def _class_seats(self, klass: str) -> int | None:
        """The seats of class `klass` (lcsm_serving.class_store), or None where this file holds no classes."""
        try:
            row = self._db.execute("SELECT seats FROM classes WHERE code=?", (klass,)).fetchone()
        except sqlite3.OperationalError:                   # a run store without the class tables
            return None
        if row is None:
            return None
        return CLASS_DEFAULT_SEATS if row[0] is None else int(row[0])

    def _charges(self, column: str, key: str, since: float) -> list[Charge]:
        """The work stored under `column` (visitor or class_code) = `key`: active, or admitted after `since`."""
        rows = self._db.execute(
            "SELECT created_at, COALESCE(cost_s, 0), wall_s, status IN (?,?,?) AND stop_requested IS NULL, grid "
            f"FROM runs WHERE {column}=? AND (status IN (?,?,?) OR created_at>?)",
            (*ACTIVE, key, *ACTIVE, since)).fetchall()
        return [Charge(r[0], r[1], r[2], bool(r[3]), r[4]) for r in rows]

    def admit_grid(self, grid_id: str, cells: list[tuple[dict, str, float]], session: str,
                   visitor: str | None = None, admission: AdmissionPolicy | None = None,
                   job: int = 0) -> list[int]:
        """The run rows of a grid's cells ((config, label, cost_s) each), in one transaction with its checks, so
        four sessions pressing "Rerun the whole grid" together start one grid: GridBusy when any grid of this
        store still has a cell to run; LineAhead (a GridBusy) when a visitor's grid would start before the grids
        waiting in line (queue_grid; the operator's does not wait); AdmissionRefused when `admission` refuses the
        grid's cost for `visitor`.
        `job`: GRID_JOB for cells the trainer service trains (a page's grid: they wait for a service, whichever
        process stored them), 0 for cells the caller's own pool trains (the CLI). Returns the run ids, in order."""
        self.mark_interrupted()              # cells of a launcher that died do not keep the store busy
        now, who, klass = time.time(), visitor_hash(visitor), visitor_class(visitor)
        with self._lock, self._tx():
            busy = self._active_grid()
            if busy is not None:
                raise GridBusy(busy)
            line = self._waiting_line()
            if who is not None and line:     # visitors take their turn (the operator is not held to the line)
                raise LineAhead(line[0][1], len(line))
            self._check_admission(admission, who, sum(cost for *_, cost in cells), now, "this grid", klass)
            return self._insert_cells(grid_id, cells, owner_hash(session), who, klass, job, now)

    def _insert_cells(self, grid_id: str, cells: list, session_hash: str, who: str | None, klass: str | None,
                      job: int, now: float) -> list[int]:
        ids = []
        for config, label, cost_s in cells:
            cur = self._db.execute(
                "INSERT INTO runs (label, config, status, session, owner, created_at, heartbeat_at, visitor, "
                "cost_s, grid, job, class_code) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (label, json.dumps(config), session_hash, process_owner(), now, now, who, cost_s, grid_id, job,
                 klass))
            ids.append(int(cur.lastrowid))
        return ids

    # --- the grid line: visitors' grids waiting for the lab ------------------------------------------
    def queue_grid(self, grid_id: str, cells: list[tuple[dict, str, float]], session: str, visitor: str | None,
                   max_line: int, admission: AdmissionPolicy | None = None, job: int = GRID_JOB) -> int:
        """Put a visitor's grid in the grid line, with what admit_grid will need at its turn (the cells as (config,
        label, cost_s), the session, the visitor as visitor_hash and class, `job`); returns its place (1: next).
        One transaction with its checks, LineRefused in words: the operator (`visitor` None) is not queued; one
        grid per visitor at a time, running or waiting; a grid once in the line, and not the running one; at most
        `max_line` waiting. `admission` refuses at once what the visitor's own allowance refuses now (the server's
        backlog aside: it is the running grid's); the whole check runs again when the grid's turn comes."""
        who, klass, now = visitor_hash(visitor), visitor_class(visitor), time.time()
        if who is None:
            raise LineRefused("the operator's grids are not queued: run yours when the lab is free")
        self.mark_interrupted()
        with self._lock, self._tx():
            line = self._waiting_line()
            for place, (_, grid, entry_visitor) in enumerate(line, 1):
                if entry_visitor == who:
                    raise LineRefused(f"your grid {grid} is already number {place} in line: one grid per visitor at "
                                      "a time (leave the line to queue another)")
            running = self._db.execute(
                "SELECT grid FROM runs WHERE visitor=? AND grid IS NOT NULL AND status IN (?,?,?) AND "
                "stop_requested IS NULL LIMIT 1", (who, *ACTIVE)).fetchone()
            if running is not None:
                raise LineRefused(f"your grid {running[0]} is still running: one grid per visitor at a time; queue "
                                  "another once it has finished")
            if self._active_grid() == grid_id:
                raise LineRefused(f"grid {grid_id} is the one running now: its results fill this heatmap as they "
                                  "come")
            for place, (_, grid, _) in enumerate(line, 1):
                if grid == grid_id:
                    raise LineRefused(f"grid {grid_id} is already number {place} in line: its results will fill "
                                      "this heatmap when it runs")
            if len(line) >= max_line:
                raise LineRefused(f"the line for the paper lab is full ({len(line)} grids wait); try again when one "
                                  "of them has started")
            self._check_admission(admission, who, sum(cost for *_, cost in cells), now, "this grid", klass,
                                  with_backlog=False)
            self._db.execute(
                "INSERT INTO grid_line (grid, cells, session, visitor, class_code, job, queued_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (grid_id, json.dumps([list(cell) for cell in cells]), owner_hash(session), who, klass, job, now))
            return len(line) + 1

    def _waiting_line(self) -> list[tuple[int, str, str]]:
        """(entry id, grid, visitor hash) of every grid waiting in line, the head first."""
        return [tuple(r) for r in self._db.execute(
            "SELECT id, grid, visitor FROM grid_line WHERE state='waiting' ORDER BY id").fetchall()]

    def grid_line(self) -> list[LineEntry]:
        """The grids waiting in line, the head first."""
        with self._lock:
            rows = self._db.execute(f"SELECT {_LINE_COLUMNS} FROM grid_line WHERE state='waiting' "
                                    "ORDER BY id").fetchall()
        return [LineEntry(*row, place=place) for place, row in enumerate(rows, 1)]

    def grid_line_entry(self, visitor: str | None, since: float) -> LineEntry | None:
        """What the line says to `visitor` (an address): their grid waiting (with its place), else their newest
        entry that started or was refused after `since` (time.time()) while they launched no grid after it; None
        otherwise (the operator, a visitor who left the line or never queued)."""
        who = visitor_hash(visitor)
        if who is None:
            return None
        with self._lock:
            row = self._db.execute(f"SELECT {_LINE_COLUMNS} FROM grid_line WHERE visitor=? ORDER BY id DESC LIMIT 1",
                                   (who,)).fetchone()
            if row is None:
                return None
            entry = LineEntry(*row)
            if entry.state == "waiting":
                place = self._db.execute("SELECT COUNT(*) FROM grid_line WHERE state='waiting' AND id<=?",
                                         (entry.id,)).fetchone()[0]
                return LineEntry(*row, place=int(place))
            if entry.state == "left" or entry.ended_at is None or entry.ended_at < since:
                return None
            launched_since = self._db.execute("SELECT 1 FROM runs WHERE visitor=? AND grid IS NOT NULL AND "
                                              "created_at>? LIMIT 1", (who, entry.ended_at)).fetchone()
        return None if launched_since else entry

    def leave_grid_line(self, visitor: str | None) -> str | None:
        """Take `visitor`'s grid out of the line; returns its grid id, or None when they had none waiting."""
        who = visitor_hash(visitor)
        if who is None:
            return None
        with self._lock, self._tx():
            row = self._db.execute("SELECT id, grid FROM grid_line WHERE visitor=? AND state='waiting'",
                                   (who,)).fetchone()
            if row is None:
                return None
            self._db.execute("UPDATE grid_line SET state='left', ended_at=? WHERE id=?", (time.time(), row[0]))
            return row[1]

    def start_grid_line_head(self, admission: AdmissionPolicy | None) -> list[LineEntry]:
        """When no grid has a cell to run, admit the head of the line as admit_grid would (its visitor's and the
        server's allowance checked now, by `admission`): its cells become run rows and the entry "started". A head
        refused now leaves the line ("refused", with the reason for its visitor) and the next one is tried. One
        transaction: two processes (web processes, the service) never start two grids. Returns the entries it
        decided, in order (empty when the lab is taken or the line empty)."""
        with self._lock:                         # the service asks every poll: no write transaction for nothing
            if not self._waiting_line() or self._active_grid() is not None:
                return []
        self.mark_interrupted()
        decided = []
        with self._lock, self._tx():
            if self._active_grid() is not None:
                return []
            rows = self._db.execute("SELECT id, grid, cells, session, visitor, class_code, job, queued_at "
                                    "FROM grid_line WHERE state='waiting' ORDER BY id").fetchall()
            for entry_id, grid, cells_json, session_hash, who, klass, job, queued_at in rows:
                now, cells = time.time(), [tuple(cell) for cell in json.loads(cells_json)]
                try:
                    self._check_admission(admission, who, sum(cost for *_, cost in cells), now, "this grid", klass)
                except AdmissionRefused as why:
                    self._db.execute("UPDATE grid_line SET state='refused', ended_at=?, reason=? WHERE id=?",
                                     (now, str(why), entry_id))
                    decided.append(LineEntry(entry_id, grid, "refused", queued_at, now, str(why)))
                    continue
                self._insert_cells(grid, cells, session_hash, who, klass, job, now)
                self._db.execute("UPDATE grid_line SET state='started', ended_at=? WHERE id=?", (now, entry_id))
                decided.append(LineEntry(entry_id, grid, "started", queued_at, now, None))
                break
        return decided

    def prune_grid_line(self, before: float) -> int:
        """Forget the line's entries that ended (started, refused, left) before time `before`."""
        with self._lock, self._tx():
            return self._db.execute("DELETE FROM grid_line WHERE state!='waiting' AND ended_at < ?",
                                    (before,)).rowcount

    def _active_grid(self) -> str | None:
        row = self._db.execute("SELECT grid FROM runs WHERE grid IS NOT NULL AND status IN (?,?,?) AND "
                               "stop_requested IS NULL ORDER BY id LIMIT 1", ACTIVE).fetchone()
        return row[0] if row else None

    def active_grid(self) -> str | None:
        """The grid with a cell still to run (not asked to stop), whichever process launched it; else None."""
        self.mark_interrupted()
        with self._lock:
            return self._active_grid()

    def grid_admitted_at(self, grid_id: str) -> float | None:
        """When the grid's newest cells were admitted (time.time()), or None for no such grid: a grid run again
        (its missing cells, one cell, or from the line) holds the lab from that admission, not from its first."""
        with self._lock:
            row = self._db.execute("SELECT MAX(created_at) FROM runs WHERE grid=?", (grid_id,)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def grid_visitor(self, grid_id: str) -> str | None:
        """The visitor_hash of whoever launched the grid's newest cells (None: the operator, or no such grid)."""
        with self._lock:
            row = self._db.execute("SELECT visitor FROM runs WHERE grid=? ORDER BY id DESC LIMIT 1",
                                   (grid_id,)).fetchone()
        return row[0] if row else None

    def request_grid_stop(self, grid_id: str, reason: str, visitor: str | None = None) -> list[int]:
        """Ask every cell of the grid still to run to stop (`stop_requested`: a cell's worker ends it at its
        next step, admission counts it free at once); `visitor` (an address) may stop only grids it launched,
        the operator (None) any. Returns the ids of the cells asked."""
        who = visitor_hash(visitor)
        with self._lock, self._tx():
            where = "grid=? AND status IN (?,?,?) AND stop_requested IS NULL" + ("" if who is None else
                                                                                  " AND visitor=?")
            args = (grid_id, *ACTIVE) + (() if who is None else (who,))
            ids = [r[0] for r in self._db.execute(f"SELECT id FROM runs WHERE {where}", args).fetchall()]
            self._db.executemany("UPDATE runs SET stop_requested=? WHERE id=?", [(reason, i) for i in ids])
            return ids

    def stop_requested(self, run_id: int) -> str | None:
        """The reason a stop was asked of this run (a grid's cell), else None."""
        with self._lock:
            row = self._db.execute("SELECT stop_requested FROM runs WHERE id=?", (run_id,)).fetchone()
        return row[0] if row else None

    def add_command(self, run_id: int, owner: str, name: str, args: tuple = ()) -> bool:
        """Queue a command for an active run of `owner` (a token); False (nothing stored) for a run that is
        not active or is another owner's."""
        with self._lock, self._tx():
            row = self._db.execute("SELECT session, status FROM runs WHERE id=?", (run_id,)).fetchone()
            if row is None or row[0] != owner_hash(owner) or row[1] not in ACTIVE:
                return False
            self._db.execute("INSERT INTO commands (run_id, owner, name, args, created_at) VALUES (?,?,?,?,?)",
                             (run_id, owner_hash(owner), name, json.dumps(list(args)), time.time()))
            return True

    def pending_commands(self) -> list[tuple[int, int, str, str, list]]:
        """Commands not applied yet, in order: (id, run id, owner hash, name, args)."""
        with self._lock:
            rows = self._db.execute("SELECT id, run_id, owner, name, args FROM commands WHERE applied_at IS NULL "
                                    "ORDER BY id").fetchall()
        return [(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def command_applied(self, command_id: int, outcome: str) -> None:
        with self._lock, self._tx():
            self._db.execute("UPDATE commands SET applied_at=?, outcome=? WHERE id=?",
                             (time.time(), outcome, command_id))

    def prune_commands(self, before: float) -> int:
        """Forget commands applied before time `before` (the service's start: a day's worth is kept)."""
        with self._lock, self._tx():
            return self._db.execute("DELETE FROM commands WHERE applied_at < ?", (before,)).rowcount

    def set_queue_positions(self, positions: dict[int, int | None]) -> None:
        """The service's word on each run it manages: 0 holding a slot, 1.. waiting, None when gone."""
        with self._lock, self._tx():
            self._db.executemany("UPDATE runs SET queue_position=? WHERE id=? AND queue_position IS NOT ?",
                                 [(p, run_id, p) for run_id, p in positions.items()])

    def queue_position(self, run_id: int) -> int | None:
        """0 while training or holding a slot, 1.. while waiting, None when ended or not placed yet."""
        with self._lock:
            row = self._db.execute("SELECT status, queue_position FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None or row[0] not in ACTIVE:
            return None
        return 0 if row[0] != "queued" else row[1]

    def acquire_service(self, policy: dict) -> bool:
        """Take the single service lease for this process (True), unless a live service holds it."""
        now, me = time.time(), process_owner()
        with self._lock, self._tx():
            row = self._db.execute("SELECT owner, heartbeat_at FROM service WHERE id=1").fetchone()
            if row is not None and row[0] != me and _service_alive(row[0], row[1], now):
                return False
            self._db.execute("INSERT OR REPLACE INTO service (id, owner, pid, started_at, heartbeat_at, policy) "
                             "VALUES (1, ?, ?, ?, ?, ?)", (me, os.getpid(), now, now, json.dumps(policy)))
            return True

    def service_heartbeat(self) -> bool:
        """Renew this process's lease; False when it lost it (another service took over)."""
        with self._lock, self._tx():
            cur = self._db.execute("UPDATE service SET heartbeat_at=? WHERE id=1 AND owner=?",
                                   (time.time(), process_owner()))
            return cur.rowcount == 1

    def release_service(self) -> None:
        with self._lock, self._tx():
            self._db.execute("DELETE FROM service WHERE id=1 AND owner=?", (process_owner(),))

    def live_service(self) -> dict | None:
        """The live service's row (owner, pid, heartbeat_at, policy dict), or None when none holds the lease."""
        with self._lock:
            row = self._db.execute("SELECT owner, pid, heartbeat_at, policy FROM service WHERE id=1").fetchone()
        if row is None or not _service_alive(row[0], row[2], time.time()):
            return None
        return dict(owner=row[0], pid=row[1], heartbeat_at=row[2], policy=json.loads(row[3]))

    def start_run(self, run_id: int, device: str, status: str = "running", numerics: dict | None = None) -> None:
        """The run trains in this process from now on. A run that resumes a turn keeps its first start, and the
        reason it waited ("waiting: others' turn, ...") goes. `numerics`: what its numbers depend on beyond its
        config (numerics.fingerprint), kept when given."""
        now = time.time()
        fingerprint = None if numerics is None else json.dumps(numerics, sort_keys=True)
        with self._lock, self._tx():
            self._db.execute("UPDATE runs SET status=?, reason=NULL, device=?, owner=?, "
                             "started_at=COALESCE(started_at, ?), heartbeat_at=?, numerics=COALESCE(?, numerics) "
                             "WHERE id=?", (status, device, process_owner(), now, now, fingerprint, run_id))

    def keep_for_next_server(self, run_id: int, paused: bool) -> None:
        """A job the stopping service leaves queued for the next one: it starts paused if it was paused."""
        with self._lock, self._tx():
            self._db.execute("UPDATE runs SET start_paused=? WHERE id=? AND job=?", (int(paused), run_id, LIVE_JOB))

    def own_waiting_run(self, run_id: int) -> int:
        """A run that gave its slot back waits in this process's queue: this process is its owner again, so the
        worker it trained in may end (or die) meanwhile without the run being taken for interrupted. Returns
        its steps (the step it resumes from)."""
        with self._lock, self._tx():
            self._db.execute("UPDATE runs SET owner=?, heartbeat_at=? WHERE id=? AND status='queued'",
                             (process_owner(), time.time(), run_id))
            row = self._db.execute("SELECT steps FROM runs WHERE id=?", (run_id,)).fetchone()
        return int(row[0]) if row else 0

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

    def checkpoint(self, run_id: int) -> bytes | None:
        """The checkpoint run `run_id` left beside the store when it gave its slot back (checkpoints.py), or None."""
        return read_checkpoint(checkpoint_path(self.path, run_id))

    def save_checkpoint(self, run_id: int, checkpoint: bytes) -> None:
        """Keep run `run_id`'s checkpoint beside the store until its next turn (written whole or not at all)."""
        write_checkpoint(checkpoint_path(self.path, run_id), checkpoint)

    def set_status(self, run_id: int, status: str, reason: str | None = None) -> None:
        now = time.time()
        with self._lock, self._tx():
            self._db.execute("UPDATE runs SET status=?, reason=COALESCE(?, reason), heartbeat_at=?, "
                             "ended_at=? WHERE id=?", (status, reason, now, now if status in FINAL else None, run_id))

    def mark_interrupted(self) -> int:
        """Mark active runs whose owner died (or went silent) "interrupted"; returns how many. A learner's paused
        run is kept instead: it saved its checkpoint when it paused (recorder.py), so it waits, queued, for the
        next service, which takes it up paused (a service killed, or a restore of a backup taken while it ran)."""
        now = time.time()
        with self._lock:
            rows = self._db.execute("SELECT id, status, owner, heartbeat_at, job, steps FROM runs "
                                    "WHERE status IN (?,?,?)", ACTIVE).fetchall()
        dead, kept = [], []
        for run_id, status, owner, heartbeat_at, job, steps in rows:
            if job and status == "queued":    # a job waits for whichever service runs next, not its submitter
                continue
            alive = owner_alive(owner)
            stale = status != "queued" and (heartbeat_at or 0) < now - STALE_AFTER_S
            if alive is False or (alive is None and stale):
                resumable = job == LIVE_JOB and status == "paused" and checkpoint_path(self.path, run_id).exists()
                (kept if resumable else dead).append((run_id, steps))
        if dead or kept:
            try:
                with self._lock, self._tx():
                    self._db.executemany(
                        "UPDATE runs SET status='queued', start_paused=1, reason=? WHERE id=? AND status='paused'",
                        [(suspended_reason(steps), run_id) for run_id, steps in kept])
                    self._db.executemany(
                        "UPDATE runs SET status='interrupted', reason='its process stopped before it finished', "
                        "ended_at=COALESCE(heartbeat_at, ?) WHERE id=? AND status IN ('queued','running','paused')",
                        [(now, run_id) for run_id, _ in dead])
            except sqlite3.OperationalError as why:  # a full disk: readers still read, a later call marks them
                if fault_kind(why) != "full":
                    raise
                log_store_fault(why, "marking runs interrupted")
                return 0
        return len(dead)

    # --- reading -----------------------------------------------------------
    def list_runs(self, limit: int = 200) -> list[RunRow]:
        self.mark_interrupted()
        with self._lock:
            rows = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [_run_row(r) for r in rows]

    def session_runs(self, session: str) -> list[RunRow]:
        """Every run of one session (a tab's token, a grid's "grid:<id>"), oldest first."""
        self.mark_interrupted()
        with self._lock:
            rows = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE session=? ORDER BY id",
                                    (owner_hash(session),)).fetchall()
        return [_run_row(r) for r in rows]

    def active_run_ids(self) -> set[int]:
        """Ids of every run still queued, training or paused."""
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT id FROM runs WHERE status IN (?,?,?)", ACTIVE)}

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

    def metrics_since(self, run_id: int, after_rowid: int = 0) -> tuple[dict[str, np.ndarray], int]:
        """The metric rows written after row `after_rowid` (0: all), as metrics() columns, and the last row id
        read (a poll passes it back next time, so it reads only what is new)."""
        with self._lock:
            rows = self._db.execute("SELECT step, loss, train_acc, test_acc, lr, wall_s, rowid FROM metrics "
                                    "WHERE run_id=? AND rowid>? ORDER BY rowid", (run_id, after_rowid)).fetchall()
        cols = np.array(rows, dtype=float).reshape(len(rows), 7)
        last = int(rows[-1][6]) if rows else after_rowid
        return {name: cols[:, j] for j, name in enumerate(METRIC_COLUMNS)}, last

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
_LINE_COLUMNS = "id, grid, state, queued_at, ended_at, reason"
_RUN_COLUMNS = ("id, label, config, status, reason, session, device, created_at, started_at, ended_at, "
                "steps, wall_s, test_acc, best_test_acc, numerics")


def _hashed(session: str | None) -> str | None:
    return None if session is None else owner_hash(session)


def _service_alive(owner: str, heartbeat_at: float, now: float) -> bool:
    alive = owner_alive(owner)
    return alive is True or (alive is None and heartbeat_at > now - SERVICE_STALE_S)


def _run_row(r) -> RunRow:
    best = r[13] if r[13] is not None and r[13] >= 0 else None
    return RunRow(id=r[0], label=r[1], config=json.loads(r[2]), status=r[3], reason=r[4], session=r[5],
                  device=r[6], created_at=r[7], started_at=r[8], ended_at=r[9], steps=r[10], wall_s=r[11],
                  test_acc=r[12], best_test_acc=best, numerics=json.loads(r[14]) if r[14] else None)


def _finite_row(row: tuple) -> tuple:
    """SQLite stores inf/nan as NULL-ish oddities; keep a diverged loss readable as NaN → NULL."""
    return tuple(None if isinstance(v, float) and not np.isfinite(v) else v for v in row)


def add_missing_columns(db: sqlite3.Connection, table: str, columns: dict[str, str]) -> None:
    """Give an older file's `table` the `columns` (name → type and default) it lacks. Call it inside one
    transaction (`Transaction`), so that two processes opening the file at once add each column once."""
    present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
    for name, kind in columns.items():
        if name not in present:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


class Transaction:
    """BEGIN IMMEDIATE … COMMIT (ROLLBACK on error) on an autocommit connection (every user of the store file:
    the run store, the progress and class store)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
                return False
            except sqlite3.Error:                     # a full disk at COMMIT: roll back, or the connection stays
                if self.db.in_transaction:            # stuck in this transaction after space returns
                    self.db.execute("ROLLBACK")
                raise
        if self.db.in_transaction:                    # SQLite may have rolled back already (SQLITE_FULL)
            self.db.execute("ROLLBACK")
        return False

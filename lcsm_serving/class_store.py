"""Classes: a teacher creates one and gets a short code (for learners' links) and a secret (for the class view).

The store keeps the code and the SHA-256 of the secret, never the secret: a learner's link carries only the code,
and reading the file does not open the class view. The class view's counts are anonymous: per lesson item, how
many of the class's learners solved it.

A class has a number of seats, fixed when it is made (`DEFAULT_SEATS`; the teacher may ask for 1 to `MAX_SEATS`).
A learner takes a seat by joining (`join`) and keeps it on every later visit; a full class takes no one more until
the teacher frees a seat (`free_seat`; the class view lists them, anonymously). Joins from one address to one class
are counted over a day (`JOINS_PER_SEAT` per seat): a visitor who made a class of their own cannot mint learners
without end by freeing and refilling its seats. The seats bound what a class may hold on the training server too
(admission.py: seats × the per-learner quota).
"""
from __future__ import annotations

import os
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass

from lcsm_serving.admission import CLASS_DEFAULT_SEATS, CLASS_WINDOW_S, AdmissionPolicy, visitor_address, visitor_hash
from lcsm_serving.progress_store import StoreFile
from lcsm_serving.store import Transaction, owner_hash

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"      # no 0/O or 1/I: read aloud and typed from a projector
CODE_LENGTH = 6
CLASS_CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
TEACHER_SECRET = re.compile(r"[0-9a-f]{32}")
DEFAULT_SEATS = CLASS_DEFAULT_SEATS
MAX_SEATS = 300
JOINS_PER_SEAT = 2            # joins from one address to one class per day, per seat (a freed seat refilled, twice)
JOIN_WINDOW_S = 24 * 3600


class ClassFull(ValueError):
    """Every seat of the class is taken; the message is for the learner."""


class JoinsLimited(ValueError):
    """This address joined this class too often today; the message is for the learner."""


@dataclass(frozen=True)
class Seat:
    learner: str                                    # the learner's hash (the store never holds the token)
    joined_at: float
    solved: int                                     # exercises and challenges solved


@dataclass(frozen=True)
class ClassResults:
    code: str
    learners: int                                   # learners joined (a seat each)
    solved: dict[tuple[str, str, str], int]         # (page, kind, title) → how many learners solved it


class ClassStore:
    def __init__(self, file: StoreFile | str | os.PathLike | None = None):
        self.file = file if isinstance(file, StoreFile) else StoreFile(file)

    def create_class(self, visitor: str | None = None, now: float | None = None,
                     policy: AdmissionPolicy | None = None, seats: int = DEFAULT_SEATS) -> tuple[str, str]:
        """A new class of `seats` seats: (code, teacher secret). The secret is returned once; only its hash is kept.

        `visitor` (a page's client address, `lcsm_explorer.app.kit.visitor.visitor_key`) may create at most
        `policy.visitor_max_classes` classes a day (default policy: the environment's, AdmissionPolicy.from_env):
        a class is only a row, but anyone may press the button, so its count is bounded as the admission policy
        bounds runs (the operator — loopback, scripts: None — is not counted). ValueError with the message for
        the page when the visitor is over it; the check and the insert are one transaction. A class learner's
        visitor key counts under the address it carries: joining a class with fresh tokens makes no new quota."""
        if not (isinstance(seats, int) and 1 <= seats <= MAX_SEATS):
            raise ValueError(f"a class has 1 to {MAX_SEATS} seats, not {seats!r}")
        secret, now = secrets.token_hex(16), time.time() if now is None else now
        who = visitor_hash(visitor_address(visitor))
        most = (policy or AdmissionPolicy.from_env()).visitor_max_classes
        for _ in range(20):                          # 32^6 ≈ 10^9 codes: a clash is rare, retried
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self.file.lock:
                    self._insert_within_quota(code, secret, who, now, most, seats)
                return code, secret
            except sqlite3.IntegrityError:
                continue
        raise RuntimeError("no free class code after 20 tries")

    def _insert_within_quota(self, code: str, secret: str, who: str | None, now: float, most: int,
                             seats: int) -> None:
        """Count the visitor's classes and insert the new one in one transaction (BEGIN IMMEDIATE: two web
        processes cannot both take the visitor's last place)."""
        db = self.file.db
        with Transaction(db):
            if who is not None:
                made = db.execute("SELECT COUNT(*) FROM classes WHERE visitor=? AND created_at>?",
                                  (who, now - CLASS_WINDOW_S)).fetchone()[0]
                if made >= most:
                    raise ValueError(f"this address has created {made} classes in the last 24 hours, the most this "
                                     f"server allows (LCSM_VISITOR_MAX_CLASSES): use one of them, or ask the "
                                     f"operator")
            db.execute("INSERT INTO classes (code, teacher, created_at, visitor, seats) VALUES (?,?,?,?,?)",
                       (code, owner_hash(secret), now, who, seats))

    def exists(self, code: str) -> bool:
        with self.file.lock:
            return self.file.db.execute("SELECT 1 FROM classes WHERE code=?", (code,)).fetchone() is not None

    def class_of_teacher(self, secret: str) -> str | None:
        """The code of the class this teacher secret opens, or None."""
        with self.file.lock:
            row = self.file.db.execute("SELECT code FROM classes WHERE teacher=?", (owner_hash(secret),)).fetchone()
        return None if row is None else row[0]

    def results(self, code: str) -> ClassResults:
        """How many of the class's learners solved each item (one query; a learner counts once per item)."""
        with self.file.lock:
            learners = self.file.db.execute("SELECT COUNT(*) FROM learners WHERE class_code=?", (code,)).fetchone()[0]
            rows = self.file.db.execute(
                "SELECT p.page, p.kind, p.title, COUNT(*) FROM progress p JOIN learners l ON l.learner = p.learner "
                "WHERE l.class_code=? GROUP BY p.page, p.kind, p.title", (code,)).fetchall()
        return ClassResults(code, learners, {(page, kind, title): n for page, kind, title, n in rows})

    # --- seats ------------------------------------------------------------------------------------------------
    def seat_count(self, code: str) -> int:
        """The class's seats (a class made before seats had `DEFAULT_SEATS`); 0 for no such class."""
        with self.file.lock:
            seats = _seats(self.file.db, code)
        return 0 if seats is None else seats

    def join(self, token: str, code: str, visitor: str | None = None, now: float | None = None) -> None:
        """Seat learner `token` in class `code` (a learner seated there already keeps their seat), seen at `visitor`
        (a page's client address; None or loopback: the operator, whose joins are not counted). ClassFull when every
        seat is taken, JoinsLimited when this address joined this class `JOINS_PER_SEAT` × seats times in a day;
        the checks and the seat are one transaction (two web processes cannot both take the last seat)."""
        now = time.time() if now is None else now
        learner, who = owner_hash(token), visitor_hash(visitor_address(visitor))
        with self.file.lock:
            db = self.file.db
            with Transaction(db):
                seats = _seats(db, code)
                if seats is None:
                    raise ValueError(f"there is no class {code} on this server")
                if db.execute("SELECT 1 FROM learners WHERE learner=? AND class_code=?",
                              (learner, code)).fetchone() is not None:
                    return
                taken = db.execute("SELECT COUNT(*) FROM learners WHERE class_code=?", (code,)).fetchone()[0]
                if taken >= seats:
                    raise ClassFull(f"the class {code} is full ({taken} of {seats} seats taken): ask your teacher to "
                                    "free a seat")
                if who is not None:
                    joined = db.execute("SELECT COUNT(*) FROM class_joins WHERE class_code=? AND visitor=? AND "
                                        "joined_at>?", (code, who, now - JOIN_WINDOW_S)).fetchone()[0]
                    if joined >= JOINS_PER_SEAT * seats:
                        raise JoinsLimited(f"your address has joined the class {code} {joined} times today, the most "
                                           "this server allows for its seats: ask your teacher, or try tomorrow")
                db.execute("INSERT OR REPLACE INTO learners (learner, class_code, joined_at) VALUES (?,?,?)",
                           (learner, code, now))
                db.execute("INSERT INTO class_joins (class_code, visitor, joined_at) VALUES (?,?,?)", (code, who, now))

    def seats(self, code: str) -> list[Seat]:
        """The class's taken seats, first joined first, each with how many items its learner solved."""
        with self.file.lock:
            rows = self.file.db.execute(
                "SELECT l.learner, l.joined_at, COUNT(p.title) FROM learners l LEFT JOIN progress p ON "
                "p.learner = l.learner WHERE l.class_code=? GROUP BY l.learner ORDER BY l.joined_at, l.learner",
                (code,)).fetchall()
        return [Seat(learner, joined_at, solved) for learner, joined_at, solved in rows]

    def free_seat(self, code: str, learner: str) -> bool:
        """Free the seat of the learner hashed `learner` in class `code` (their answers stay theirs and leave the
        class's counts); False when no such seat is taken."""
        with self.file.lock:
            cur = self.file.db.execute("DELETE FROM learners WHERE class_code=? AND learner=?", (code, learner))
        return cur.rowcount > 0


def _seats(db, code: str) -> int | None:
    """Class `code`'s seats (`DEFAULT_SEATS` for a class made before seats), None for no such class; the caller
    holds the file's lock."""
    row = db.execute("SELECT COALESCE(seats, ?) FROM classes WHERE code=?", (DEFAULT_SEATS, code)).fetchone()
    return None if row is None else int(row[0])

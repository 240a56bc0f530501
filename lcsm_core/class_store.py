"""Classes: a teacher creates one and gets a short code (for learners' links) and a secret (for the class view).

The store keeps the code and the SHA-256 of the secret, never the secret: a learner's link carries only the code,
and reading the file does not open the class view. The class view's counts are anonymous: per lesson item, how
many of the class's learners (tabs) solved it.
"""
from __future__ import annotations

import os
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass

from lcsm_core.progress_store import StoreFile
from lcsm_core.training.admission import CLASS_WINDOW_S, AdmissionPolicy, visitor_address, visitor_hash
from lcsm_core.training.store import Transaction, owner_hash

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"      # no 0/O or 1/I: read aloud and typed from a projector
CODE_LENGTH = 6
CLASS_CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
TEACHER_SECRET = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True)
class ClassResults:
    code: str
    learners: int                                   # tabs joined
    solved: dict[tuple[str, str, str], int]         # (page, kind, title) → how many learners solved it


class ClassStore:
    def __init__(self, file: StoreFile | str | os.PathLike | None = None):
        self.file = file if isinstance(file, StoreFile) else StoreFile(file)

    def create_class(self, visitor: str | None = None, now: float | None = None,
                     policy: AdmissionPolicy | None = None) -> tuple[str, str]:
        """A new class: (code, teacher secret). The secret is returned once; only its hash is kept.

        `visitor` (a page's client address, `app.kit.visitor.visitor_key`) may create at most
        `policy.visitor_max_classes` classes a day (default policy: the environment's, AdmissionPolicy.from_env):
        a class is only a row, but anyone may press the button, so its count is bounded as the admission policy
        bounds runs (the operator — loopback, scripts: None — is not counted). ValueError with the message for
        the page when the visitor is over it; the check and the insert are one transaction. A class learner's
        visitor key counts under the address it carries: joining a class with fresh tokens makes no new quota."""
        secret, now = secrets.token_hex(16), time.time() if now is None else now
        who = visitor_hash(visitor_address(visitor))
        most = (policy or AdmissionPolicy.from_env()).visitor_max_classes
        for _ in range(20):                          # 32^6 ≈ 10^9 codes: a clash is rare, retried
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self.file.lock:
                    self._insert_within_quota(code, secret, who, now, most)
                return code, secret
            except sqlite3.IntegrityError:
                continue
        raise RuntimeError("no free class code after 20 tries")

    def _insert_within_quota(self, code: str, secret: str, who: str | None, now: float, most: int) -> None:
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
            db.execute("INSERT INTO classes (code, teacher, created_at, visitor) VALUES (?,?,?,?)",
                       (code, owner_hash(secret), now, who))

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

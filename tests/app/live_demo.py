"""A tiny page of the live-lesson kind for tests/app/test_live_lesson.py: its fetch, commands and motion read
`WORLD`, which the test changes between runs (AppTest runs the script in the test's process)."""
from __future__ import annotations

import errno
import sqlite3

from lcsm_explorer.app.kit.blocks import Text
from lcsm_explorer.app.kit.lesson import Lesson
from lcsm_explorer.app.kit.live import Command, Control, Live, steer
from lcsm_explorer.app.kit.settings import Setting, Settings

WORLD: dict = {"fault": None, "moving": False, "started": 0, "steered": [], "state": 0, "page_runs": 0}


def fetch(v: dict, c: Control) -> dict:
    if WORLD["fault"] == "store":
        raise sqlite3.OperationalError("unable to open database file")
    if WORLD["fault"] == "bug":
        raise RuntimeError("a bug, not a store fault")
    return {"started": WORLD["started"]}


def start(c: Control) -> None:
    WORLD["started"] += 1
    c.show(7)


def refuse(c: Control) -> None:
    raise ValueError("Cannot start this run: `too big`")


def full_disk(c: Control) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def steer_b(c: Control) -> None:
    WORLD["steered"].append((c.run, c.settings["b"]))


LESSON = Lesson(
    page="live_demo", number=0, title="demo", icon="", section="", summary="",
    settings=Settings("live_demo", (Setting.slider("a", "a", 1, 0, 5),
                                    Setting.slider("b", "b", 1, 0, 5, on_change=steer(lambda: LESSON, steer_b)))),
    live=Live(fetch=fetch, moving=lambda v, c: WORLD["moving"],
              draw=lambda v, found, c: [Text(f"started {found['started']} · run {c.run} · a {v['a']}")],
              quantities=lambda v, found: {"started": -1.0 if found is None else float(found["started"])},
              commands=(Command("start", "Start", start), Command("refuse", "Refuse", refuse),
                        Command("full", "Full", full_disk, enabled=lambda c: c.run is not None)),
              owned_run=True, page_state=lambda v, c: WORLD["state"]))

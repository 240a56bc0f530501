"""Which of the project's files each script run executes (`LCSM_TRACE_RUNS=PATH`, read by benchmarks/move_trace.py).

With the variable set, the web process appends to PATH one line `RUN FILE` the first time a script run (one script
thread: a page's run, or a fragment's) calls into a project file (`RUN` counts the runs from 1; FILE is relative to
the checkout; the tests, the benchmarks and installed packages are not the project's). Without it nothing is
installed and nothing costs anything.
"""
from __future__ import annotations

import itertools
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_THREAD = "ScriptRunner.scriptThread"        # the name Streamlit gives the thread a script run runs in
OUTSIDE = (".venv", "build", "tests", "benchmarks")


def project_file(filename: str) -> str | None:
    """The file's path in the project (None: the standard library, an installed package, Streamlit's code)."""
    if filename.startswith("<"):                       # frozen modules, code compiled from a string
        return None
    try:
        path = Path(filename).resolve().relative_to(ROOT)
    except ValueError:
        return None
    return None if path.parts[0] in OUTSIDE else str(path)


def start_from_env() -> None:
    path = os.environ.get("LCSM_TRACE_RUNS")
    if path:
        start(Path(path))


def start(path: Path) -> None:
    """Trace every script thread started from now on into `path`."""
    out = path.open("a", buffering=1, encoding="utf-8")
    runs = itertools.count(1)
    lock = threading.Lock()
    local = threading.local()
    names: dict[str, str | None] = {}

    def profile(frame, event, arg):
        if event != "call":
            return
        run = getattr(local, "run", None)
        if run is None:
            if threading.current_thread().name != SCRIPT_THREAD:
                sys.setprofile(None)                   # not a script run: this thread is not traced
                return
            run = local.run = (next(runs), set())
        filename = frame.f_code.co_filename
        found = names.get(filename, "")
        if found == "":
            found = names[filename] = project_file(filename)
        if found is not None and found not in run[1]:
            run[1].add(found)
            with lock:
                out.write(f"{run[0]} {found}\n")
    threading.setprofile(profile)

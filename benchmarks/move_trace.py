"""Which of the project's Python files one committed move runs in the web process.

    python benchmarks/move_trace.py [--page spring] [--setting c] [--value V] [--all]

A committed move, as the lesson instrument's callback leaves it (app/kit/instrument.py `commit`: the value written
into the setting's session-state key), followed by the script's rerun — in AppTest, the page drawn once before so
that module imports and caches are not counted, and its drag preview's family computed in that run
(LCSM_PREVIEW_WORKERS=0), as a browser's tab has it when its learner releases the control. Without `--value` the
move goes to the family's next member (what a drag commits). Every function call of that rerun (the script's
thread, through `threading.setprofile`) is traced; a file counts when any code of it ran. Prints the count and the
files (`--all`: with the number of calls each). What a browser runs (the component's JS) is not counted here.
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.page_rerun import SCRIPT  # noqa: E402  (one lesson drawn as the router draws it)


def project_file(filename: str) -> str | None:
    """The file's path in the project (None: the standard library, an installed package, Streamlit's code)."""
    if filename.startswith("<"):                       # frozen modules, code compiled from a string
        return None
    try:
        path = Path(filename).resolve().relative_to(ROOT)
    except ValueError:
        return None
    return None if path.parts[0] in (".venv", "build", "tests", "benchmarks") else str(path)


def traced_move(page: str, setting: str, value=None) -> tuple[object, collections.Counter]:
    """The value moved to, and project file → calls over the rerun a committed move of `setting` to it starts on
    `page` (None: the family's member after the current value)."""
    os.environ.setdefault("LCSM_PREVIEW_WORKERS", "0")      # the family computed in the page's own run
    from streamlit.testing.v1 import AppTest

    from lcsm_explorer.app.kit.sweep import sweep_values
    from lcsm_explorer.app.lessons import lesson
    declared = lesson(page)
    at = AppTest.from_string(SCRIPT.format(page=page), default_timeout=120).run()
    assert not at.exception, at.exception
    if value is None:
        if setting != declared.sweep.setting:           # only the swept setting has a family to step through
            raise ValueError(f"{page}: give a value to move {setting!r} to (the family sweeps "
                             f"{declared.sweep.setting!r})")
        spec = declared.settings
        now = {p.name: at.session_state[spec.key(p.name)] for p in spec.params}
        members = sweep_values(spec[setting], declared.sweep, now)
        value = next((m for m in members if m > now[setting]), members[0])
    calls: collections.Counter = collections.Counter()

    def profile(frame, event, arg):
        if event == "call":
            found = project_file(frame.f_code.co_filename)
            if found:
                calls[found] += 1

    at.session_state[declared.settings.key(setting)] = value
    threading.setprofile(profile)
    try:
        at.run()
    finally:
        threading.setprofile(None)
    assert not at.exception, at.exception
    return value, calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", default="spring")
    parser.add_argument("--setting", default="c")
    parser.add_argument("--value", type=float, default=None)
    parser.add_argument("--all", action="store_true", help="every file with its number of calls")
    args = parser.parse_args(argv)
    value, calls = traced_move(args.page, args.setting, args.value)
    by_package = collections.Counter(name.split("/")[0] for name in calls)
    print(f"{args.page}: a committed move of {args.setting} to {value} runs {len(calls)} project files "
          f"in the web process ({', '.join(f'{n} in {p}/' for p, n in sorted(by_package.items()))})")
    for name in sorted(calls):
        print(f"  {name}" + (f"  ({calls[name]} calls)" if args.all else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

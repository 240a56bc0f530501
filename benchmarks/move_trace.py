"""Which of the project's files one committed move runs: the web process's Python files, and the component's JS.

    python benchmarks/move_trace.py [--page spring] [--setting c] [--value V]

The app is started as the README starts it (app/serve.py, one web process, its preview worker) with
`LCSM_TRACE_RUNS` set (app/kit/run_trace.py: each script run's project files, in the process itself). A protocol
client (benchmarks/streamlit_client.py) opens the page as a browser's tab does, waits until the drag preview's
family is in (the page's poll reruns it once the worker has it), and commits one move of the setting as the
instrument's release does — its commit trigger, a rerun of the fragment that drew the instrument. Without `--value`
the move goes to the family's next member (what a drag commits). Prints the files that move's run executed, plus
the component's JS (app/kit/instrument.js, which draws what the run sends).
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.app_process import AppServer  # noqa: E402
from benchmarks.streamlit_client import StreamlitSession, next_control_value  # noqa: E402

COMPONENT_JS = ("app/kit/instrument.js", "app/kit/chart_words.js")   # the component's code


def runs(trace: Path) -> dict[int, set[str]]:
    """The trace file read back: run number → the project files it executed."""
    found: dict[int, set[str]] = {}
    if trace.exists():
        for line in trace.read_text(encoding="utf-8").splitlines():
            run, name = line.split(" ", 1)
            found.setdefault(int(run), set()).add(name)
    return found


async def _move(url: str, trace: Path, page: str, setting: str, value: str | None, timeout_s: float) -> tuple:
    async with StreamlitSession(url, timeout_s=timeout_s) as tab:
        run = await tab.open_page(page)
        assert run.ok, (run.status, run.exceptions)
        deadline = time.monotonic() + timeout_s
        while not (tab.instrument(page) or {}).get("swept", {}).get("family_id"):   # the family's poll
            assert time.monotonic() < deadline, "the drag preview's family did not come"
            await asyncio.sleep(0.5)
            for polled in await tab.poll_fragments():
                assert polled.ok, (polled.status, polled.exceptions)
        drawn = tab.instrument(page)
        control = next(c for c in drawn["controls"] if c["name"] == setting)
        if value is None:
            if setting != drawn["swept"]["name"]:
                raise ValueError(f"{page}: give a value to move {setting!r} to (the family sweeps "
                                 f"{drawn['swept']['name']!r})")
            value = next_control_value(control, drawn["swept"]["members"])
        before = max(runs(trace), default=0)
        moved = await tab.commit(page, {setting: value})
        assert moved.ok, (moved.status, moved.exceptions)
        after = tab.instrument(page)
        assert next(c for c in after["controls"] if c["name"] == setting)["value"] == value, after["controls"]
        new = {n: files for n, files in runs(trace).items() if n > before}
        assert len(new) == 1, f"one run expected for the move, found {sorted(new)}"
        return value, drawn["fragment_id"], next(iter(new.values()))


def traced_move(page: str = "spring", setting: str = "c", value: str | None = None,
                timeout_s: float = 120.0) -> tuple[str, str, set[str]]:
    """(the value moved to, the fragment its run was — "" where the page reran whole, the files it ran: the
    project's Python files and the component's JS)."""
    with tempfile.TemporaryDirectory(prefix="lcsm-move-trace-") as scratch:
        trace = Path(scratch) / "runs.txt"
        server = AppServer(Path(scratch) / "data", Path(scratch) / "app.log",
                           env={"LCSM_TRACE_RUNS": str(trace), "LCSM_PREVIEW_MAX_LOAD": "1e9"})
        server.start(timeout_s=90)
        try:
            moved, fragment, files = asyncio.run(_move(server.url, trace, page, setting, value, timeout_s))
        finally:
            server.stop()
    return moved, fragment, files | set(COMPONENT_JS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", default="spring")
    parser.add_argument("--setting", default="c")
    parser.add_argument("--value", default=None, help="URL text of the value (default: the family's next member)")
    args = parser.parse_args(argv)
    value, fragment, files = traced_move(args.page, args.setting, args.value)
    where = f"a rerun of fragment {fragment}" if fragment else "a rerun of the whole page"
    print(f"{args.page}: a committed move of {args.setting} to {value} ({where}) runs {len(files)} project files")
    for name in sorted(files):
        print(f"  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

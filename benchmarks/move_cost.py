"""Server CPU per slider move, from the server processes' own CPU counters (issue 19, items 1 and 2).

    python benchmarks/move_cost.py [--moves 10] [--pages spring rings ...] [--env OMP_NUM_THREADS=1 ...]
                                   [--label TEXT] [--no-write] [--py-spy DIR]

Starts the app as the README does (benchmarks.app_process.AppServer: `app/serve.py` on loopback), one protocol
client (benchmarks/streamlit_client.py), and for each lesson page 1–7: opens it, then moves its swept setting
`--moves` times and another setting `--moves` times, one move after another (the next once the previous
script_finished and the polling fragments it left have run out, rerun every `run_every` seconds as a browser
does), each to a new value (one slider step on: a cache miss, as a drag). Around every move it reads
utime+stime from /proc/<pid>/stat of the web process ("request": the process that runs the scripts) and of
every process below it ("helpers": a preview pool, trainer workers; benchmarks/server_usage.py). After each
group it waits for the helpers to go quiet, so that work a move leaves to a pool is counted too.

Per page and kind it prints: CPU-ms per move, the median of the per-move deltas (the kernel counts in 10 ms
ticks, so a median is a multiple of 10) and the group's total ÷ moves (exact to a tick over the group), for the
request process and the helpers; wall-clock latency (request sent → script_finished, median and max); and the
websocket bytes the client received per move. Beside them the issue's targets: ≤ 30 ms median for a swept
move, ≤ 60 ms for any other, previews included. Writes the table to benchmarks/results/move_cost-cpu.md
under `--label`.

`--py-spy DIR` also samples the web process with py-spy (`pip install py-spy`) during each group of moves and
writes its collapsed stacks to DIR/<page>-<kind>.txt (one line per stack: frames separated by ";", then the
sample count); `benchmarks/stack_split.py` sums them into the parts of a move. Sampling costs the server CPU: the
figures of a run with it are not the figures to report.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.app_process import AppServer  # noqa: E402
from benchmarks.results_section import RESULTS, write_section  # noqa: E402
from benchmarks.server_usage import TICK_S, ProcessTree  # noqa: E402
from benchmarks.streamlit_client import StreamlitSession  # noqa: E402

RESULT_FILE = RESULTS / "move_cost-cpu.md"
TITLE = "# Server CPU per slider move, from the processes' CPU counters\n"
PAGES = ("spring", "discretize", "rings", "lru_stability", "propagation", "eos_view", "online_learners")
# page → (swept setting: Lesson.sweep.setting, or the first slider where there is none; another setting)
MOVES = {"spring": ("c", "k"), "discretize": ("dt", "c"), "rings": ("r_max", "r_min"),
         "lru_stability": ("steps", "r_max"), "propagation": ("nu", "theta"), "eos_view": ("scale", "t"),
         "online_learners": ("n_keys", "beta")}
TARGET_MS = {"swept": 30.0, "other": 60.0}


def judged_ms(row: dict) -> float:
    """The figure issue 19 sets a target for: a swept move's *median* (the request's median per move, plus the
    helpers' mean, ~0 for a swept move), any other move's server mean (request + helpers, previews included)."""
    if row["kind"] == "swept":
        return round(row["request_median"] + row["helpers_mean"], 6)    # ticks × 10 ms: no float dust over a line
    return round(row["request_mean"] + row["helpers_mean"], 6)


NO_SWEEP = ("eos_view", "online_learners")   # no Lesson.sweep: both moves are "other" moves (target ≤ 60 ms)


class ServerCpu:
    """CPU seconds so far of the web process ("request") and of everything below it ("helpers")."""

    def __init__(self, pid: int):
        self.tree = ProcessTree(pid)

    def read(self) -> tuple[float, float]:
        usage = self.tree.read()
        return usage.cpu("web"), usage.cpu() - usage.cpu("web")

    async def quiet_helpers(self, quiet_s: float = 1.0, limit_s: float = 120.0) -> None:
        """Wait until the helpers' CPU stops growing (a pool finishing what the last move left it)."""
        last, deadline = self.read()[1], time.monotonic() + limit_s
        while time.monotonic() < deadline:
            await asyncio.sleep(quiet_s)
            now = self.read()[1]
            if now - last < TICK_S * 1.5:
                return
            last = now


class StackSampler:
    """py-spy recording the web process's Python stacks into DIR/<name>.txt while a group of moves runs."""

    def __init__(self, pid: int, folder: Path | None, rate: int = 250):
        self.pid, self.folder, self.rate = pid, folder, rate
        self.proc: subprocess.Popen | None = None

    def start(self, name: str) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(["py-spy", "record", "--pid", str(self.pid), "--rate", str(self.rate),
                                      "--format", "raw", "--threads", "--nonblocking",
                                      "--output", str(self.folder / f"{name}.txt")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)                               # attached before the first move

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGINT)          # py-spy writes its file on SIGINT
        self.proc.wait(timeout=60)
        self.proc = None


async def polled_as_a_browser(tab: StreamlitSession, limit_s: float = 10.0) -> None:
    """What a browser does after the move: rerun each polling fragment every `run_every` seconds until none is left
    (a chart waiting for its preview family polls, then reruns the page once the family is in) — that work is the
    move's too."""
    deadline = time.monotonic() + limit_s
    while tab.fragments and time.monotonic() < deadline:
        await asyncio.sleep(min(tab.fragments.values()))
        await tab.poll_fragments()


async def measure_page(tab: StreamlitSession, cpu: ServerCpu, page: str, moves: int,
                       sampler: StackSampler | None = None) -> list[dict]:
    opened = await tab.open_page(page)
    if not opened.ok:
        return [dict(page=page, kind="open", error=f"{opened.status} {opened.exceptions[:1]}")]
    await cpu.quiet_helpers()                     # an open's own preview family is not a move's
    rows = []
    kinds = ("other", "other") if page in NO_SWEEP else ("swept", "other")
    for kind, name in zip(kinds, MOVES[page]):
        key = f"{page}.{name}"
        if name not in tab.movable_settings(page):
            rows.append(dict(page=page, kind=kind, setting=name, error=f"no widget keyed {key} drawn"))
            continue
        request, latency, size, errors = [], [], [], []
        if sampler is not None:
            sampler.start(f"{page}-{kind}")
        group0 = cpu.read()
        direction = 1
        for _ in range(moves):
            before = cpu.read()[0]
            run, direction = await tab.move_setting(page, name, direction)
            await polled_as_a_browser(tab)
            request.append((cpu.read()[0] - before) * 1e3)
            latency.append(run.latency_s * 1e3)
            size.append(run.bytes)
            if not run.ok:
                errors.append(f"{run.status} {run.exceptions[:1]}")
        if sampler is not None:
            sampler.stop()
        await cpu.quiet_helpers()
        group1 = cpu.read()
        rows.append(dict(page=page, kind=kind, setting=name, moves=moves, request_median=statistics.median(request),
                         request_mean=(group1[0] - group0[0]) * 1e3 / moves,
                         helpers_mean=(group1[1] - group0[1]) * 1e3 / moves,
                         latency_median=statistics.median(latency), latency_max=max(latency),
                         kib=statistics.median(size) / 1024, errors=errors))
    return rows


async def measure(url: str, pid: int, pages: list[str], moves: int, stacks: Path | None = None) -> list[dict]:
    cpu = ServerCpu(pid)
    sampler = StackSampler(pid, stacks) if stacks is not None else None
    rows = []
    async with StreamlitSession(url, timeout_s=300) as tab:
        for page in pages:
            rows += await measure_page(tab, cpu, page, moves, sampler)
            print(table(rows[-2:]).splitlines()[-1], flush=True)
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| page | move (setting) | moves | request CPU-ms median | request CPU-ms mean | helpers CPU-ms mean | "
             "server CPU-ms mean | judged (swept: median) | target | wall ms median | wall ms max | KiB sent | "
             "errors |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['page']} | {r['kind']} ({r.get('setting', '')}) | | | | | | | | | | | {r['error']} |")
            continue
        total = r["request_mean"] + r["helpers_mean"]
        target = TARGET_MS[r["kind"]]
        verdict = "✅" if judged_ms(r) <= target else "❌"
        lines.append(f"| {r['page']} | {r['kind']} ({r['setting']}) | {r['moves']} | {r['request_median']:.0f} | "
                     f"{r['request_mean']:.0f} | {r['helpers_mean']:.0f} | {total:.0f} | {judged_ms(r):.0f} | "
                     f"≤ {target:.0f} {verdict} | "
                     f"{r['latency_median']:.0f} | {r['latency_max']:.0f} | {r['kib']:.0f} | "
                     f"{len(r['errors'])}{(' — ' + r['errors'][0]) if r['errors'] else ''} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=10, help="moves per page and kind")
    parser.add_argument("--pages", nargs="+", default=list(PAGES))
    parser.add_argument("--env", nargs="*", default=[], metavar="NAME=VALUE",
                        help="environment of the server (e.g. OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1)")
    parser.add_argument("--label", default="Now", help="heading of this run's section in the results file")
    parser.add_argument("--conditions", default="", help="what else ran on the machine (for the results file)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the results file alone")
    parser.add_argument("--py-spy", type=Path, default=None, metavar="DIR",
                        help="sample the web process with py-spy during each group of moves (stacks into DIR)")
    args = parser.parse_args()
    env = dict(item.split("=", 1) for item in args.env)
    data = Path(tempfile.mkdtemp(prefix="lcsm-move-cost-"))
    server = AppServer(data, data / "server.log", env=env).start()
    try:
        rows = asyncio.run(measure(server.url, server.pid, args.pages, args.moves, args.py_spy))
    finally:
        server.stop()
    machine = f"{platform.node()} · {platform.machine()} · {os.cpu_count()} cores"
    swept = [judged_ms(r) for r in rows if r.get("kind") == "swept" and "error" not in r]
    other = [judged_ms(r) for r in rows if r.get("kind") == "other" and "error" not in r]
    text = "\n".join([
        f"`python benchmarks/move_cost.py {shlex.join(sys.argv[1:])}` · {time.strftime('%Y-%m-%d %H:%M')} · "
        f"{machine}" + (f" · server env {' '.join(args.env)}" if args.env else "")
        + (f" · {args.conditions}" if args.conditions else ""),
        "",
        "One protocol client; per page, moves of its swept setting then of another, one at a time, each to a new "
        "value. CPU from /proc/<pid>/stat (10 ms ticks): request = the web process, helpers = the processes below "
        "it (waited for until quiet after each group); mean = the group's total ÷ moves; server = request + "
        "helpers (mean); judged against issue 19's targets: a swept move's median (request median + helpers mean) "
        "≤ 30 ms, any other move's server mean ≤ 60 ms. Wall: request sent → "
        "script_finished. KiB sent: websocket bytes the client received per move (median).",
        "",
        table(rows),
        "",
        f"- Worst judged CPU-ms per move: swept {max(swept, default=0):.0f} (target ≤ 30), other "
        f"{max(other, default=0):.0f} (target ≤ 60); pages meeting both: "
        f"{sum(1 for p in args.pages if all(_meets(r) for r in rows if r['page'] == p))} of {len(args.pages)}",
    ])
    print(text)
    print(f"(server log: {data / 'server.log'})")
    if not args.no_write:
        if not RESULT_FILE.exists():
            RESULT_FILE.parent.mkdir(parents=True, exist_ok=True)
            RESULT_FILE.write_text(TITLE, encoding="utf-8")
        write_section(args.label, text, RESULT_FILE)


def _meets(row: dict) -> bool:
    return "error" not in row and judged_ms(row) <= TARGET_MS[row["kind"]]


if __name__ == "__main__":
    main()

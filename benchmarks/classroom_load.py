"""Classroom load: N learners (protocol clients) browse lesson pages and move sliders while 4 learners train on
Train live and a 5th waits for a training slot — on one app server on loopback, for a bounded time.

    python3 benchmarks/classroom_load.py [--sessions 30] [--duration-s 180] [--trainers 4] [--train-steps 300]
                                         [--max-concurrent 4] [--browsers 3] [--conditions TEXT] [--no-write]

Learners speak Streamlit's websocket protocol (benchmarks/streamlit_client.py): each opens a random lesson
page, moves its sliders a few times (a random slider, a step either way, 1–3 s apart), and opens another.
Page latency: a page's rerun sent → its script_finished; slider latency: a changed widget value sent → its
script_finished. Errors: exception elements in the delta stream, timeouts and disconnects. Trainers open
/train_live with a tiny model and a step budget (read from the page's SETTINGS now), press ▶ Play and poll
the run's fragment every second as the browser does; the 5th presses ▶ Play once the 4 run and records the
queue line it sees. The server's resident memory (and its worker processes') is sampled every second. A few
headless chromium tabs move a slider meanwhile (benchmarks/classroom_browsers.py). At the end the store is
read: every trainer's run, its status and its metric rows. A warm-up opens every page once before the clock
starts (those cold opens are reported apart). Prints the figures and writes them under "Classroom load" in
benchmarks/results/reliability-cpu.md.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import shlex
import sqlite3
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.app_process import ENTRY, AppServer, children_of, rss_bytes  # noqa: E402
from benchmarks.results_section import write_section  # noqa: E402
from benchmarks.streamlit_client import RunResult, StreamlitSession, next_slider_value, slider_state  # noqa: E402
from benchmarks.train_live_query import train_live_query  # noqa: E402

PAGES = ("spring", "discretize", "rings", "lru_stability", "propagation", "eos_view", "online_learners")
MAX_CONCURRENT_ENV = "LCSM_MAX_CONCURRENT_RUNS"


class Tally:
    """Every timed rerun by kind, and every error with where it happened."""

    def __init__(self):
        self.latencies: dict[str, list[float]] = {}
        self.errors: list[str] = []

    def add(self, kind: str, where: str, run: RunResult) -> RunResult:
        if run.status == "ok":
            self.latencies.setdefault(kind, []).append(run.latency_s)
        else:
            self.errors.append(f"{kind} {where}: {run.status}")
        self.errors += [f"{kind} {where}: exception {e}" for e in run.exceptions]
        return run


async def learner(n: int, url: str, pages: tuple[str, ...], until: float, tally: Tally, think_s) -> None:
    """Open a random page, move its sliders 2–5 times, again, until `until`; after a rerun that timed out or
    a dropped socket, a new connection (a reload)."""
    rng = random.Random(n)
    while time.monotonic() < until:
        try:
            async with StreamlitSession(url) as tab:
                while time.monotonic() < until:
                    page = rng.choice(pages)
                    if tally.add("page", page, await tab.open_page(page)).status != "ok":
                        break
                    sliders, stuck = tab.number_sliders(f"{page}."), False
                    if not sliders:
                        await asyncio.sleep(rng.uniform(*think_s))      # reads the page
                    for _ in range(rng.randint(2, 5) if sliders else 0):
                        await asyncio.sleep(rng.uniform(*think_s))
                        if time.monotonic() >= until:
                            break
                        slider = rng.choice(sliders)
                        value = next_slider_value(slider, tab.slider_value(slider), rng.choice((-1, 1)))
                        moved = tally.add("slider", page, await tab.set_widget(slider.id, slider_state(slider, value)))
                        if moved.status != "ok":
                            stuck = True
                            break
                        sliders = tab.number_sliders(f"{page}.") or sliders
                    if stuck:         # a rerun that did not finish: its late messages would end the next one early
                        break
        except Exception as err:  # noqa: BLE001 — a refused or dropped connection is an error of the run
            tally.errors.append(f"learner {n}: {type(err).__name__}: {err}"[:300])
            await asyncio.sleep(1.0)


def run_line(tab: StreamlitSession) -> str:
    return next((t for t in tab.texts() if t.startswith("**Run ")), "")


async def trainer(n: int, url: str, query: str, until: float, tally: Tally, seen: list[str],
                  go: asyncio.Event | None = None) -> dict:
    """Open Train live, press ▶ Play (after `go`), poll the run's fragment each second until it ends or `until`.
    `seen`: each distinct status line the tab shows, in order."""
    out = dict(trainer=n, owner=uuid.uuid4().hex, run_id=None)
    try:
        async with StreamlitSession(url, timeout_s=120) as tab:
            tally.add("train page", "train_live", await tab.open_page("train_live", f"{query}&owner={out['owner']}"))
            if go is not None:
                await go.wait()
            pressed = tally.add("play", "train_live", await tab.click(tab.widget("play").id))
            tally.errors += [f"trainer {n}: {t}" for t in tab.texts() if t.startswith("Cannot start")]
            run = parse_qs(tab.query).get("run", [None])[0]
            out.update(run_id=int(run) if run else None, play_s=pressed.latency_s)
            while time.monotonic() < until and tab.fragments:
                _note(seen, run_line(tab))
                started = time.monotonic()
                for polled in await tab.poll_fragments():
                    tally.add("train poll", "train_live", polled)
                await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
            _note(seen, run_line(tab))
    except Exception as err:  # noqa: BLE001 — reported with the figures
        tally.errors.append(f"trainer {n}: {type(err).__name__}: {err}"[:300])
    return out


def _note(seen: list[str], line: str) -> None:
    if line and (not seen or seen[-1] != line):
        seen.append(line)


async def sample_rss(pid: int, until: float, samples: list[tuple]) -> None:
    t0 = time.monotonic()
    while time.monotonic() < until:
        server = rss_bytes(pid)
        if server is None:
            return
        workers = sum(rss_bytes(c) or 0 for c in children_of(pid))
        samples.append((time.monotonic() - t0, server, workers))
        await asyncio.sleep(1.0)


async def warm_up(url: str, pages: tuple[str, ...], tally: Tally) -> list[tuple[str, float]]:
    """Open every page once (imports, caches): (page, seconds) each."""
    async with StreamlitSession(url, timeout_s=300) as tab:
        return [(page, tally.add("cold open", page, await tab.open_page(page)).latency_s)
                for page in (*pages, "train_live")]


async def runs_stored(db: Path, count: int, until: float) -> bool:
    """Wait (until `until`) for the store to hold `count` runs."""
    while time.monotonic() < until:
        try:
            con = sqlite3.connect(db, timeout=5)
            try:
                if con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] >= count:
                    return True
            finally:
                con.close()
        except sqlite3.OperationalError:
            pass
        await asyncio.sleep(0.2)
    return False


async def load(args, url: str, server_pid: int, db: Path) -> dict:
    tally, cold = Tally(), Tally()
    browsers: dict = {}
    clock = dict(go=threading.Event(), until=None)
    browser_thread = None
    if args.browsers:                              # chromium opens its tabs during the warm-up
        from benchmarks.classroom_browsers import slider_latencies

        def browse():
            try:
                browsers.update(slider_latencies(url, args.browsers, clock))
            except Exception as err:  # noqa: BLE001 — reported with the figures
                browsers["failed"] = f"{type(err).__name__}: {err}"[:300]
        browser_thread = threading.Thread(target=browse, daemon=True, name="chromium-cross-check")
        browser_thread.start()
    try:
        cold_opens = await warm_up(url, tuple(args.pages), cold)
    finally:
        start = time.monotonic()
        until = start + args.duration_s
        clock.update(until=until)
        clock["go"].set()
    hard_stop = until + args.drain_s
    rss: list[tuple] = []
    query = train_live_query(args.train_steps, 600)
    sampler = asyncio.create_task(sample_rss(server_pid, hard_stop, rss))
    learners = [asyncio.create_task(learner(n, url, tuple(args.pages), until, tally, args.think_s))
                for n in range(args.sessions)]
    lines: dict[int, list[str]] = {n: [] for n in range(args.trainers + 1)}
    go_fifth = asyncio.Event()
    trainers = [asyncio.create_task(trainer(n, url, query, hard_stop, tally, lines[n]))
                for n in range(args.trainers)]
    fifth = asyncio.create_task(trainer(args.trainers, url, query, hard_stop, tally, lines[args.trainers],
                                        go=go_fifth))
    if not await runs_stored(db, args.trainers, until):    # the 5th presses ▶ Play once the others' runs exist
        tally.errors.append(f"the store did not hold {args.trainers} runs before the learners stopped")
    go_fifth.set()
    await asyncio.gather(*learners)
    browsing_s = time.monotonic() - start
    runs = await asyncio.wait_for(asyncio.gather(*trainers, fifth), max(1.0, hard_stop - time.monotonic() + 60))
    sampler.cancel()
    if browser_thread is not None:
        browser_thread.join(timeout=max(1.0, hard_stop - time.monotonic() + 60))
    return dict(tally=tally, cold=cold, cold_opens=cold_opens, rss=rss, runs=runs, lines=lines, browsers=browsers,
                browsing_s=browsing_s)


def stored_runs(db: Path, runs: list[dict]) -> list[dict]:
    con = sqlite3.connect(db, timeout=30)
    try:
        out = []
        for r in runs:
            row = con.execute("SELECT status, steps, reason FROM runs WHERE id=?", (r["run_id"],)).fetchone() \
                if r["run_id"] else None
            count = con.execute("SELECT COUNT(*) FROM metrics WHERE run_id=?", (r["run_id"],)).fetchone()[0] \
                if row else 0
            out.append(dict(r, status=row[0] if row else "not stored", steps=row[1] if row else 0,
                            reason=(row[2] or "") if row else "", metric_rows=count))
        return out
    finally:
        con.close()


def percentiles(values: list[float]) -> str:
    if not values:
        return "| 0 | — | — | — |"
    a = np.asarray(values) * 1e3
    return f"| {len(a)} | {np.percentile(a, 50):.0f} | {np.percentile(a, 95):.0f} | {a.max():.0f} |"


def report(result: dict, stored: list[dict], args, machine: str) -> str:
    tally, cold, rss = result["tally"], result["cold"], result["rss"]
    b = result["browsers"]
    rows = [("page open (protocol clients)", tally.latencies.get("page", [])),
            ("slider move (protocol clients)", tally.latencies.get("slider", [])),
            ("Train live poll, 1 per s per trainer (fragment rerun)", tally.latencies.get("train poll", [])),
            ("▶ Play pressed (rerun)", tally.latencies.get("play", [])),
            (f"slider move in chromium, key press → drawn ({args.browsers} tabs, '{b.get('label', '?')}')",
             b.get("latencies_s", []))]
    lines = ["| what | count | p50 (ms) | p95 (ms) | max (ms) |", "|---|---|---|---|---|"]
    lines += [f"| {name} {percentiles(values)}" for name, values in rows]
    cold_lines = ", ".join(f"{page} {seconds:.1f}" for page, seconds in result["cold_opens"])
    errors = tally.errors + cold.errors + [f"chromium: {e}" for e in b.get("errors", [])]
    if "failed" in b:
        errors.append(f"chromium cross-check failed: {b['failed']}")
    elif args.browsers and not b.get("latencies_s"):
        errors.append("chromium: no slider move finished before the learners stopped")
    server = np.array([s[1] for s in rss]) / 2**20 if rss else np.zeros(1)
    total = np.array([s[1] + s[2] for s in rss]) / 2**20 if rss else np.zeros(1)
    series = " · ".join(f"{t:.0f} s {s / 2**20:.0f}+{w / 2**20:.0f}" for t, s, w in rss[::max(1, len(rss) // 12)])
    run_lines = ["| trainer | run | status | steps | metric rows | reason |", "|---|---|---|---|---|---|"]
    run_lines += [f"| {'5th (waited)' if r['trainer'] == args.trainers else r['trainer'] + 1} | {r['run_id']} | "
                  f"{r['status']} | {r['steps']} | {r['metric_rows']} | {r['reason']} |" for r in stored]
    first_four = stored[:args.trainers]
    completed = sum(r["status"] == "completed" and r["metric_rows"] > 0 for r in first_four)
    fifth = result["lines"][args.trainers]
    concurrency = args.max_concurrent or "the server's default"
    return "\n".join([
        f"`python3 benchmarks/classroom_load.py {shlex.join(sys.argv[1:])}` · {time.strftime('%Y-%m-%d %H:%M')} · "
        f"{machine}" + (f" · {args.conditions}" if args.conditions else ""),
        "",
        f"{args.sessions} protocol-client learners for {result['browsing_s']:.0f} s over "
        f"{', '.join(args.pages)} (think time {args.think_s[0]:g}–{args.think_s[1]:g} s), {args.trainers} trainers "
        f"+ 1 waiting (tiny model, step budget {args.train_steps}; {concurrency} concurrent trainings, "
        f"{MAX_CONCURRENT_ENV}), {args.browsers} chromium tabs; the server runs `{ENTRY}` on 127.0.0.1. Latency: "
        "request sent → its script_finished (chromium: key press → page drawn). Errors count exception elements, "
        "reruns that did not finish within 60 s (timeouts) and dropped connections.",
        "",
        *lines,
        "",
        f"- **Errors: {len(errors)}**" + ("" if not errors else " — " + "; ".join(errors[:8])
                                          + (f"; … {len(errors) - 8} more" if len(errors) > 8 else "")),
        f"- **Server RSS** {server.min():.0f}–{server.max():.0f} MiB; with its training workers "
        f"{total.min():.0f}–{total.max():.0f} MiB ({len(rss)} samples, 1 per s). Over time (s: server+workers "
        f"MiB): {series}",
        f"- **Trainings: {completed} of {args.trainers} completed and stored** (store read after the run)",
        "- **The 5th trainer saw**: " + (" → ".join(f"“{t}”" for t in fifth) if fifth else "nothing"),
        f"- Cold first opens before the clock (s): {cold_lines}",
        "",
        *run_lines,
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--duration-s", type=float, default=180.0, help="how long the learners browse")
    parser.add_argument("--drain-s", type=float, default=240.0, help="at most this long after, for the runs to end")
    parser.add_argument("--pages", nargs="+", default=list(PAGES))
    parser.add_argument("--think-s", type=float, nargs=2, default=(1.0, 3.0), help="pause between a learner's moves")
    parser.add_argument("--trainers", type=int, default=4)
    parser.add_argument("--train-steps", type=int, default=1000,
                        help="step budget of each run (long enough that the 5th finds the others still there)")
    parser.add_argument("--max-concurrent", type=int, default=0,
                        help=f"concurrent trainings on the server ({MAX_CONCURRENT_ENV}); 0 (default): the server's "
                             "own policy (a core each, one left for the server: 1 on 2 cores)")
    parser.add_argument("--browsers", type=int, default=3, help="chromium tabs moving a slider (0: none)")
    parser.add_argument("--conditions", default="", help="what else ran on the machine (for the results file)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the results file alone")
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="lcsm-classroom-"))
    env = {MAX_CONCURRENT_ENV: str(args.max_concurrent)} if args.max_concurrent else {}
    server = AppServer(data, data / "server.log", env=env).start()
    try:
        result = asyncio.run(load(args, server.url, server.pid, data / "runs.sqlite"))
    finally:
        server.stop()
    stored = stored_runs(data / "runs.sqlite", result["runs"])
    machine = f"{platform.node()} · {platform.machine()} · {os.cpu_count()} cores"
    text = report(result, stored, args, machine)
    print(text)
    print(f"(server log: {data / 'server.log'})")
    if not args.no_write:
        write_section("Classroom load", text)


if __name__ == "__main__":
    main()

"""Kill -9 recovery: a training killed mid-run, by killing the CLI or the app server, leaves a sound store, its
run marked "interrupted", and at most about a second of metrics lost (goal ≤ 1 s).

    python3 benchmarks/kill_recovery.py [--trials 5] [--targets cli server grid] [--warmup-s 3] [--no-write]

Each trial has its own temporary data directory. It starts a training (the CLI; or ▶ Play on /train_live
through a protocol client), waits until the run has trained `--warmup-s` seconds, waits a random further
0–3 s, and sends SIGKILL to that one process. Then it opens the store (RunStore marks runs of dead owners
"interrupted") and reads: `PRAGMA integrity_check`, the run's status, and the seconds of metrics lost =
kill time − time of the last write of metric rows (the run's heartbeat; every write of metric rows sets it,
in the same transaction). For the server it also watches the server's children (training workers): how long
each outlives the kill, whether the run was marked by its worker or by the restarted server, and whether the
restarted server's page shows the run as interrupted. Workers still alive after `--orphan-wait-s` are
reported as orphans and killed by pid; the goal is every child gone within WORKERS_GONE_GOAL_S of the kill, on a
busy machine too (a grid worker runs niced). Prints a table and writes it under "Kill -9 recovery" in
benchmarks/results/reliability-cpu.md.

`grid` (issue 24): the server (one web process, the trainer service in its thread) is killed mid-way through a
Paper lab grid pressed on the page ("Run missing cells"): the cell that was training must read "interrupted" (its
worker sees its server gone), the cells still queued must wait, and a restarted server must train them; a cell
"lost" is one that ends neither completed nor interrupted (a rerun of the missing cells covers the interrupted).
"""
from __future__ import annotations

import argparse
import asyncio
import inspect
import platform
import random
import shlex
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.app_process import ENTRY, ROOT, AppServer, alive, children_of  # noqa: E402
from benchmarks.results_section import write_section  # noqa: E402
from benchmarks.streamlit_client import StreamlitSession  # noqa: E402
from benchmarks.train_live_query import train_live_query  # noqa: E402
from lcsm_serving.recorder import record_run  # noqa: E402
from lcsm_serving.store import DB_NAME, RunStore  # noqa: E402

START_TIMEOUT_S = 240.0          # a cold python + torch on a busy 2-core machine
EXTRA_DELAY_S = (0.0, 3.0)       # the random part of the moment of the kill
FLUSH_S = inspect.signature(record_run).parameters["flush_s"].default
WORKERS_GONE_GOAL_S = 5.0        # a server's children (training and grid workers) after its kill -9


def children_gone(children, killed_at: float, wait_s: float) -> tuple[dict[int, float], list[int]]:
    """Seconds after the kill at which each of the server's children was gone (polled every 0.1 s for up to
    `wait_s`), and the ones still alive then: the orphans."""
    gone_after: dict[int, float] = {}
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and len(gone_after) < len(children):
        for pid in children:
            if pid not in gone_after and not alive(pid):
                gone_after[pid] = time.time() - killed_at
        time.sleep(0.1)
    return gone_after, [pid for pid in children if pid not in gone_after]


def slowest_child(gone_after: dict[int, float], orphans: list[int]) -> float:
    """Seconds until the last child was gone (inf with an orphan; 0 with no children)."""
    return float("inf") if orphans else max(gone_after.values(), default=0.0)


def run_row(db: Path, run_id: int | None = None) -> dict | None:
    """The newest run (or run `run_id`) as a dict, read without RunStore (which would mark it)."""
    if not db.exists():
        return None
    con = sqlite3.connect(db, timeout=30)
    try:
        con.row_factory = sqlite3.Row
        where, params = ("WHERE id=?", (run_id,)) if run_id else ("", ())
        row = con.execute(f"SELECT id, status, steps, wall_s, heartbeat_at FROM runs {where} ORDER BY id DESC "
                          "LIMIT 1", params).fetchone()
        return dict(row) if row else None
    except sqlite3.OperationalError:       # tables not made yet
        return None
    finally:
        con.close()


def wait_training(db: Path, warmup_s: float, is_alive) -> dict:
    """Until the newest run has trained `warmup_s` seconds (bounded by START_TIMEOUT_S)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        row = run_row(db)
        if row and row["status"] == "running" and row["wall_s"] >= warmup_s:
            return row
        if not is_alive():
            raise RuntimeError("the training process ended before it trained")
        time.sleep(0.2)
    raise RuntimeError(f"no run trained {warmup_s:g} s within {START_TIMEOUT_S:g} s")


def inspect_store(db: Path, run_id: int, killed_at: float) -> dict:
    """Open the store as a restart would, and read what the kill left."""
    store = RunStore(db)
    try:
        run = store.get_run(run_id)
        metrics = store.metrics(run_id)
        last_step = int(metrics["step"].max(initial=-1))
        heartbeat = store._db.execute("SELECT heartbeat_at FROM runs WHERE id=?", (run_id,)).fetchone()[0]
        longest = float(np.diff(metrics["wall_s"]).max(initial=0.0))   # an evaluation step, mostly
        return dict(integrity="ok" if store.integrity_ok() else "NOT OK", status=run.status, last_step=last_step,
                    lost_s=max(0.0, killed_at - heartbeat), last_write_after_kill_s=heartbeat - killed_at,
                    longest_step_s=longest, worst_s=FLUSH_S + longest)
    finally:
        store.close()


def cli_trial(n: int, rng: random.Random, args) -> dict:
    data = Path(tempfile.mkdtemp(prefix=f"lcsm-kill-cli-{n}-"))
    db = data / DB_NAME
    log = open(data / "train.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "lcsm_serving.train", "--task", "mqar", "--variant", "gla",
                             "--max-steps", "100000", "--max-seconds", "3000", "--no-progress", "--db", str(db)],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        row = wait_training(db, args.warmup_s, lambda: proc.poll() is None)
        time.sleep(rng.uniform(*EXTRA_DELAY_S))
        before = run_row(db, row["id"])
        killed_at = time.time()
        proc.kill()
        proc.wait(timeout=10)
        out = dict(target="CLI", trial=n, trained_s=before["wall_s"], **inspect_store(db, row["id"], killed_at))
        out.update(marked_by="store opened after the kill", orphans="—", children_gone_s="—", page_shows="—")
        return out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


async def press_play(url: str, query: str) -> None:
    async with StreamlitSession(url, timeout_s=180) as tab:
        opened = await tab.open_page("train_live", query)
        play = tab.widget("play")
        if play is None or not opened.ok:
            raise RuntimeError(f"/train_live did not draw ▶ Play: {opened}")
        pressed = await tab.click(play.id)
        refused = [t for t in tab.texts() if t.startswith("Cannot start")]
        if not pressed.ok or refused:
            raise RuntimeError(f"▶ Play failed: {pressed} {refused}")


async def page_status(url: str, run_id: int) -> str:
    """What the restarted server's Train live page says about the run (the status word of its line)."""
    async with StreamlitSession(url, timeout_s=180) as tab:
        await tab.open_page("train_live", f"run={run_id}")
        line = next((t for t in tab.texts() if t.startswith(f"**Run {run_id}**")), "")
        return line.split("status **", 1)[1].split("**", 1)[0] if "status **" in line else "not shown"


def describe_children(pids: list[int]) -> dict[int, str]:
    names = {}
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            cmd = ""
        names[pid] = "resource tracker" if "resource_tracker" in cmd else "worker" if "spawn" in cmd else cmd[:40]
    return names


def server_trial(n: int, rng: random.Random, args) -> dict:
    data = Path(tempfile.mkdtemp(prefix=f"lcsm-kill-server-{n}-"))
    db = data / DB_NAME
    server = AppServer(data, data / "server.log").start()
    orphans: list[int] = []
    try:
        query = train_live_query(100000, 3000, tiny=False, owner=uuid.uuid4().hex)
        asyncio.run(press_play(server.url, query))
        row = wait_training(db, args.warmup_s, lambda: server.proc.poll() is None)
        time.sleep(rng.uniform(*EXTRA_DELAY_S))
        before = run_row(db, row["id"])
        children = describe_children(children_of(server.pid))
        killed_at = server.kill9()
        gone_after, orphans = children_gone(children, killed_at, args.orphan_wait_s)
        status_before_restart = run_row(db, row["id"])["status"]
        restarted = AppServer(data, data / "server.log").start()
        try:
            shown = asyncio.run(page_status(restarted.url, row["id"]))
        finally:
            restarted.stop()
        out = dict(target="server", trial=n, trained_s=before["wall_s"], **inspect_store(db, row["id"], killed_at))
        out.update(marked_by="its worker" if status_before_restart == "interrupted" else
                   f"the restart (was {status_before_restart})",
                   orphans=", ".join(f"{children[p]} {p}" for p in orphans) or "none",
                   children_gone_s=", ".join(f"{children[p]} {s:.1f}" for p, s in gone_after.items()) or "no children",
                   slowest_child_s=slowest_child(gone_after, orphans), page_shows=shown)
        return out
    finally:
        server.stop()
        for pid in orphans:                       # started (indirectly) by this trial: end them by pid
            if alive(pid):
                subprocess.run(["kill", "-9", str(pid)], check=False)


GRID_QUERY = "ablation=parameterization&lengths=32,%2064&lrs=0.01&d_model=16&steps=1000&seeds=1"
GRID_WAIT_S = 600.0             # for a restarted server to train the cells left


def grid_rows(db: Path) -> list[dict]:
    con = sqlite3.connect(db, timeout=30)
    try:
        return [dict(id=r[0], status=r[1]) for r in con.execute("SELECT id, status FROM runs WHERE grid IS NOT NULL "
                                                                 "ORDER BY id")]
    finally:
        con.close()


def wait_first_cell(db: Path, warmup_s: float, is_alive) -> dict:
    """Until the grid's first cell has trained `warmup_s` seconds (bounded by START_TIMEOUT_S)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        cells = grid_rows(db) if db.exists() else []
        if cells:
            row = run_row(db, cells[0]["id"])
            if row["status"] == "running" and row["wall_s"] >= warmup_s:
                return row
        if not is_alive():
            raise RuntimeError("the server ended before a cell trained")
        time.sleep(0.2)
    raise RuntimeError(f"no cell trained {warmup_s:g} s within {START_TIMEOUT_S:g} s")


async def open_paper_lab(url: str) -> None:
    async with StreamlitSession(url, timeout_s=180) as tab:
        await tab.open_page("paper_lab", GRID_QUERY)


def grid_trial(n: int, rng: random.Random, args) -> dict:
    from benchmarks.hostile_probes import press_on_page
    data = Path(tempfile.mkdtemp(prefix=f"lcsm-kill-grid-{n}-"))
    db = data / DB_NAME
    server = AppServer(data, data / "server.log").start()
    orphans: list[int] = []
    try:
        errors = asyncio.run(press_on_page(server.url, "paper_lab", GRID_QUERY, "paper_lab.launch"))
        if errors:
            raise RuntimeError(f"the page's launch raised {errors}")
        row = wait_first_cell(db, args.warmup_s, lambda: server.proc.poll() is None)
        time.sleep(rng.uniform(*EXTRA_DELAY_S))
        children = describe_children(children_of(server.pid))
        killed_at = server.kill9()
        gone_after, orphans = children_gone(children, killed_at, args.orphan_wait_s)
        before = grid_rows(db)
        restarted = AppServer(data, data / "server.log").start()
        try:
            asyncio.run(open_paper_lab(restarted.url))                  # the page's runner starts a service
            deadline = time.monotonic() + GRID_WAIT_S
            while time.monotonic() < deadline and any(r["status"] in ("queued", "running") for r in grid_rows(db)):
                time.sleep(0.5)
        finally:
            restarted.stop()
        after = grid_rows(db)
        con = sqlite3.connect(db, timeout=30)
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        con.close()
        counts = {k: sum(r["status"] == k for r in before) for k in ("completed", "interrupted", "queued")}
        lost = [r["id"] for r in after if r["status"] not in ("completed", "interrupted", "queued", "running")]
        return dict(target="grid", trial=n, trained_s=row["wall_s"], integrity=integrity,
                    status=f"{len(after)} cells: at the kill {counts['completed']} done, {counts['interrupted']} "
                           f"interrupted, {counts['queued']} queued; after the restart "
                           f"{sum(r['status'] == 'completed' for r in after)} done",
                    marked_by="its worker" if counts["interrupted"] else "—", cells_lost=len(lost),
                    orphans=", ".join(f"{children[p]} {p}" for p in orphans) or "none",
                    children_gone_s=", ".join(f"{children[p]} {s:.1f}" for p, s in gone_after.items()) or "none",
                    slowest_child_s=slowest_child(gone_after, orphans))
    finally:
        server.stop()
        for pid in orphans:                       # started (indirectly) by this trial: end them by pid
            if alive(pid):
                subprocess.run(["kill", "-9", str(pid)], check=False)


COLUMNS = (("target", "{}"), ("trial", "{}"), ("trained_s", "{:.1f}"), ("integrity", "{}"), ("status", "{}"),
           ("marked_by", "{}"), ("page_shows", "{}"), ("last_step", "{}"), ("lost_s", "{:.2f}"),
           ("last_write_after_kill_s", "{:+.2f}"), ("longest_step_s", "{:.2f}"), ("worst_s", "{:.2f}"),
           ("children_gone_s", "{}"), ("orphans", "{}"))
HEADERS = ("killed", "#", "trained (s)", "integrity_check", "status after", "marked by", "page shows",
           "last stored step", "metrics lost (s)", "last write − kill (s)", "longest step (s)",
           "worst moment (s)", "children gone after (s)", "orphans after the wait")


def table(rows: list[dict]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    for r in rows:
        lines.append("| " + " | ".join(fmt.format(r[k]) if k in r else "—" for k, fmt in COLUMNS) + " |")
    return "\n".join(lines)


def children_line(rows: list[dict]) -> str:
    """How long the killed server's children outlived it, against the goal ("" when no trial watched them)."""
    slowest = [r["slowest_child_s"] for r in rows if "slowest_child_s" in r]
    if not slowest:
        return ""
    within = sum(s <= WORKERS_GONE_GOAL_S for s in slowest)
    return (f" · children gone within {WORKERS_GONE_GOAL_S:g} s {within}/{len(slowest)} (slowest "
            f"{max(slowest):.1f} s)")


def summary(rows: list[dict]) -> str:
    out = []
    for target in dict.fromkeys(r["target"] for r in rows):
        mine = [r for r in rows if r["target"] == target]
        ok = sum(r.get("integrity") == "ok" for r in mine)
        marked = sum(r.get("status") == "interrupted" for r in mine)
        lost = [r["lost_s"] for r in mine if "lost_s" in r]
        worst = f"{max(lost):.2f} s" if lost else "—"
        bound = max((r["worst_s"] for r in mine if "worst_s" in r), default=None)
        if target == "grid":
            out.append(f"- **grid**: {len(mine)} kills mid-grid · integrity ok {ok}/{len(mine)} · cells lost "
                       f"{sum(r.get('cells_lost', 0) for r in mine)} (neither completed nor interrupted)"
                       + children_line(mine)
                       + ("" if all("error" not in r for r in mine) else
                          " · errors: " + "; ".join(r["error"] for r in mine if "error" in r)))
            continue
        out.append(f"- **{target}**: {len(mine)} kills · integrity ok {ok}/{len(mine)} · marked interrupted "
                   f"{marked}/{len(mine)} · metrics lost at most {worst} (goal ≤ 1 s)"
                   + (f" · at the worst moment up to {bound:.2f} s" if bound is not None and target == "CLI" else "")
                   + children_line(mine)
                   + ("" if all("error" not in r for r in mine) else
                      " · errors: " + "; ".join(r["error"] for r in mine if "error" in r)))
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--targets", nargs="+", choices=("cli", "server", "grid"), default=["cli", "server", "grid"])
    parser.add_argument("--warmup-s", type=float, default=3.0, help="training seconds before the kill moment")
    parser.add_argument("--orphan-wait-s", type=float, default=20.0,
                        help="how long a server's children may outlive it before they count as orphans")
    parser.add_argument("--seed", type=int, default=0, help="of the random kill moments")
    parser.add_argument("--conditions", default="", help="what else ran on the machine (for the results file)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the results file alone")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = []
    for target in args.targets:
        for n in range(1, args.trials + 1):
            try:
                row = dict(cli=cli_trial, server=server_trial, grid=grid_trial)[target](n, rng, args)
            except Exception as err:  # noqa: BLE001 — a failed trial is a result too
                row = dict(target="CLI" if target == "cli" else target, trial=n,
                           error=f"{type(err).__name__}: {err}"[:200])
            rows.append(row)
            print(row, flush=True)
    grid = [r for r in rows if r["target"] == "grid"]
    rows = [r for r in rows if r["target"] != "grid"]
    if grid:
        text = "\n".join([table(grid), "", summary(grid)])
        print(text)
        if not args.no_write:
            write_section("Kill -9 mid-grid (Paper lab)", f"`python3 benchmarks/kill_recovery.py "
                          f"{shlex.join(sys.argv[1:])}` · {time.strftime('%Y-%m-%d %H:%M')}"
                          + (f" · {args.conditions}" if args.conditions else "") + "\n\nThe grid: `/paper_lab?"
                          f"{GRID_QUERY}`, pressed on the page; the server is killed once its first cell has trained "
                          f"{args.warmup_s:g} s (+ 0–3 s), then restarted.\n\n" + text)
    if not rows:
        return
    text = "\n".join([table(rows), "", summary(rows)])
    print(text)
    if not args.no_write:
        machine = f"{platform.node()} · {platform.processor() or platform.machine()} · {_cores()} cores"
        body = (f"`python3 benchmarks/kill_recovery.py {shlex.join(sys.argv[1:])}` · {time.strftime('%Y-%m-%d %H:%M')}"
                f" · {machine}" + (f" · {args.conditions}" if args.conditions else "") + "\n\n"
                f"The server runs `{ENTRY}` on 127.0.0.1. Metrics lost = kill time − time of the run's last write of "
                "metric rows. \"Last write − kill\" > 0: "
                "its worker still wrote after the server died (it stops the run and marks it itself). The recorder "
                f"writes buffered rows at the first record ≥ {FLUSH_S:g} s after its last write, so the worst moment "
                f"to kill is just before a slow step's record: {FLUSH_S:g} s + the longest step (an evaluation step, "
                "every 20 steps; it includes the step still in progress, which no flush can save).\n\n" + text)
        write_section("Kill -9 recovery", body)


def _cores() -> int:
    import os
    return os.cpu_count() or 0


if __name__ == "__main__":
    main()

"""Issue 24's hostile-visitor and unlucky-operator probes (items 3, 6, 7, 8) against a running server, so the next
probe starts from them. Each prints PASS or FAIL with what it saw; the exit status is the number of FAILs.

    python3 benchmarks/hostile_probes.py                      # starts the app (app/serve.py) on its own data dir
    python3 benchmarks/hostile_probes.py --url http://127.0.0.1:8501 [--data-dir DIR]   # a server already up

- framing (item 8): every answer (page, endpoints, 404, a 403 refusal) carries X-Frame-Options: DENY and
  Content-Security-Policy: frame-ancestors 'none';
- tokens (item 3): a link's owner / learner token the server did not sign (the old 32 hex shape, 64 zeros, a
  signed one with its last digit changed) is replaced by a fresh one with a note; a server-issued one survives
  a reopen of the link;
- store faults (items 6, 7; needs the data directory, so only with a server this script starts or --data-dir):
  runs.sqlite replaced by garbage, then deleted: Train live and Paper lab say so in words, with no exception;
  the file is put back after;
- grids (item 1; needs the data directory): four tabs pressing Paper lab's "Rerun the whole grid" together start
  one grid; its cells are the trainer service's jobs (runs.job = GRID_JOB), all finish, and none trained in the
  web process itself (a cell's row names the worker process that trained it: a child at the grid lane's nice);
- a full disk (item 6; `--full-disk-dir DIR`, an empty small file system, e.g. as root
  `mount -t tmpfs -o size=3m tmpfs DIR`): a training worker writes its run into DIR/runs.sqlite, a filler file
  fills the disk; the store's polls must still read, the worker live, the fault be logged once, and the run end
  "failed" with the reason soon after the filler is deleted, with the rows written before kept.

- who and what share (benchmarks/hostile_shares.py): the identity cookie, fixation with a server-issued owner
  token (N2), a reopened link, the tabs one address may hold with a fresh cookie each (N5; the server must trust
  loopback's X-Forwarded-For, as the one this script starts does), a self-made class's seats (N1), a class behind
  one address (each seated learner a visitor of their own), a run costed at the cap against 4 class trainings
  (N7: turns), a second visitor's grid in line behind the running one (N6).

The lesson-file probe of item 5 edits lessons/ and so runs on a temporary copy in tests/app/test_lesson_isolation.py.
Light: a few page opens; safe on a loaded machine.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import hostile_shares  # noqa: E402
from benchmarks.app_process import AppServer  # noqa: E402
from benchmarks.streamlit_client import StreamlitSession  # noqa: E402

FRAMING = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'"}
NOT_SIGNED = "not issued by this server"
FAILS: list[str] = []


def verdict(ok: bool, what: str, seen: object = "") -> None:
    print(f"{'PASS' if ok else 'FAIL'}  {what}" + (f"  — saw: {seen}" if not ok and seen != "" else ""))
    if not ok:
        FAILS.append(what)


def headers_of(url: str, host: str | None = None) -> tuple[int, dict]:
    """(status, headers by lower-case name) of a GET."""
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}


def probe_framing(url: str) -> None:
    for path, host in (("/", None), ("/paper_lab", None), ("/_stcore/health", None),
                       ("/spring/_stcore/health", None), ("/", "evil.example")):
        status, headers = headers_of(url + path, host)
        shown = {k: headers.get(k.lower()) for k in FRAMING}
        verdict(shown == FRAMING, f"framing: {path}{' Host ' + host if host else ''} ({status}) forbids framing",
                shown)


async def page_token(url: str, page: str, param: str, query: str = "") -> tuple[str | None, list[str], list[str]]:
    """Open `page` with `query`: (the token the server put in the URL, the texts drawn, the exceptions)."""
    async with StreamlitSession(url, timeout_s=120) as tab:
        result = await tab.open_page(page, query)
        token = parse_qs(tab.query).get(param, [None])[0]
        return token, tab.texts(), result.exceptions


async def probe_tokens(url: str) -> None:
    for page, param in (("train_live", "owner"), ("spring", "learner")):
        issued, _, errors = await page_token(url, page, param)
        verdict(bool(issued) and not errors, f"tokens: /{page} issues a {param} token", (issued, errors))
        if not issued:
            continue
        forged = {"the old 32-hex shape": "0" * 32, "64 zeros": "0" * 64,
                  "a signed one, last digit changed": issued[:-1] + ("1" if issued[-1] == "0" else "0")}
        for name, token in forged.items():
            got, texts, errors = await page_token(url, page, param, f"{param}={token}")
            noted = any(NOT_SIGNED in t for t in texts)
            verdict(got not in (None, token) and noted and not errors,
                    f"tokens: /{page} ignores {name} with a note", (got == token, noted, errors))
        again, texts, errors = await page_token(url, page, param, f"{param}={issued}")
        verdict(again == issued and not any(NOT_SIGNED in t for t in texts) and not errors,
                f"tokens: /{page} keeps its own {param} token on a reopen", again)


async def pages_say(url: str, words: str) -> dict[str, tuple[bool, list[str]]]:
    found = {}
    for page in ("train_live", "paper_lab"):
        async with StreamlitSession(url, timeout_s=120) as tab:
            result = await tab.open_page(page)
            found[page] = (any(words in t for t in tab.texts()), result.exceptions)
    return found


async def probe_store_faults(url: str, data_dir: Path) -> None:
    db = data_dir / "runs.sqlite"
    await pages_say(url, "")                              # the store opened (and cached) by both pages first
    aside = Path(tempfile.mkdtemp(prefix="lcsm-probe-store-"))
    saved = [p for p in data_dir.glob("runs.sqlite*")]
    for path in saved:
        shutil.copy2(path, aside / path.name)
    try:
        for path in saved:
            path.unlink()
        for page, (said, errors) in (await pages_say(url, "deleted or replaced")).items():
            verdict(said and not errors, f"store: /{page} says a deleted store file in words", errors)
        db.write_bytes(os.urandom(8192))
        for page, (said, errors) in (await pages_say(url, "run store")).items():
            verdict(said and not errors, f"store: /{page} says a garbage store file in words", errors)
    finally:
        for path in data_dir.glob("runs.sqlite*"):
            path.unlink()
        for path in saved:
            shutil.copy2(aside / path.name, path)
        shutil.rmtree(aside, ignore_errors=True)
    print("      (the server keeps refusing the moved file until it restarts: that is the intended behaviour)")


GRID_QUERY = "ablation=parameterization&lengths=32&lrs=0.01&d_model=16&steps=100&seeds=1"


async def press_on_page(url: str, page: str, query: str, key: str) -> list[str]:
    """Open `page` with `query` in a fresh tab and press the button with user key `key`: the exceptions seen."""
    async with StreamlitSession(url, timeout_s=120) as tab:
        await tab.open_page(page, query)
        button = tab.widget(key)
        if button is None:
            return [f"no button {key}"]
        return (await tab.click(button.id)).exceptions


async def probe_grids(url: str, data_dir: Path, server_pid: int | None) -> None:
    from lcsm_serving import RunStore
    from lcsm_serving.manager import GRID_NICE
    from lcsm_serving.store import GRID_JOB
    errors = await asyncio.gather(*(press_on_page(url, "paper_lab", GRID_QUERY, "paper_lab.rerun") for _ in range(4)))
    store = RunStore(data_dir / "runs.sqlite")
    try:
        with store._lock:
            rows = store._db.execute("SELECT id, grid, job FROM runs WHERE grid IS NOT NULL").fetchall()
        grids = {grid for _, grid, _ in rows}
        verdict(len(grids) == 1 and not any(errors), "grids: 4 tabs pressing 'Rerun the whole grid' together start "
                "one grid", (grids, errors))
        verdict(bool(rows) and all(job == GRID_JOB for *_, job in rows), "grids: the page's cells are trainer-service "
                "jobs", [job for *_, job in rows])
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and any(store.get_run(r).active for r, *_ in rows):
            time.sleep(1)
        statuses = [store.get_run(r).status for r, *_ in rows]
        verdict(set(statuses) == {"completed"}, "grids: every cell finishes", statuses)
        with store._lock:
            owners = {o for (o,) in store._db.execute("SELECT owner FROM runs WHERE grid IS NOT NULL")}
        pids = {int(owner.rsplit(":", 2)[1]) for owner in owners}
        verdict(server_pid is None or server_pid not in pids, "grids: no cell trained in the web process", pids)
        nice = {pid: _nice(pid) for pid in pids}
        verdict(all(n in (None, GRID_NICE) for n in nice.values()),
                f"grids: the cells' workers run at nice {GRID_NICE}", nice)
    finally:
        store.close()


def _nice(pid: int) -> int | None:
    """A live process's nice value (from /proc), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[16])
    except (OSError, ValueError, IndexError):
        return None


def probe_full_disk(folder: Path) -> None:
    """The worker process logs to its stderr (this process's, inherited): it goes to a file here to be counted."""
    from lcsm_serving.manager import RunManager
    from tests.training.tiny import tiny_config
    log_path = Path(tempfile.mkstemp(prefix="lcsm-full-disk-", suffix=".log")[1])
    saved_stderr = os.dup(2)
    with open(log_path, "wb") as log:
        os.dup2(log.fileno(), 2)
    manager = RunManager(folder / "runs.sqlite", max_concurrent=1, max_pause_s=600)
    filler = folder / "filler"
    try:
        run_id = manager.submit(tiny_config(max_steps=5000, max_seconds=600, eval_every=20), "probe")
        deadline = time.monotonic() + 60
        while manager.store.get_run(run_id).steps < 50 and time.monotonic() < deadline:
            time.sleep(0.2)
        rows_before = len(manager.store.metrics(run_id)["step"])
        with open(filler, "wb", buffering=0) as f:       # unbuffered: the last write fails here, not at close
            try:
                while True:
                    f.write(b"\0" * 65536)
            except OSError:
                pass
        poll_errors = []
        for _ in range(5):                                    # a page's 1 s polls while the disk is full
            try:
                manager.store.get_run(run_id), manager.store.list_runs()
            except Exception as err:  # noqa: BLE001 — reported
                poll_errors.append(f"{type(err).__name__}: {err}")
            time.sleep(1)
        verdict(not poll_errors, "full disk: 5 polls of the store read while the disk is full", poll_errors)
        workers = [run.worker for run in manager._runs.values() if getattr(run, "worker", None) is not None]
        verdict(all(w.alive for w in workers), "full disk: the training worker lives", [w.alive for w in workers])
        filler.unlink()
        freed = time.monotonic()
        while manager.store.get_run(run_id).active and time.monotonic() - freed < 20:
            time.sleep(0.2)
        row = manager.store.get_run(run_id)
        seconds = time.monotonic() - freed
        verdict(row.status == "failed" and "disk is full" in (row.reason or ""),
                f"full disk: the run ends failed with the reason {seconds:.1f} s after space returns",
                (row.status, row.reason))
        kept = len(manager.store.metrics(run_id)["step"])
        verdict(kept >= rows_before and manager.store.integrity_ok(),
                f"full disk: rows written before are kept ({kept} ≥ {rows_before}), the file is sound")
        logged = log_path.read_text(errors="replace")
        verdict(logged.count("run store fault") == 1 and "Traceback" not in logged,
                "full disk: the fault is logged once, with no traceback", logged[-600:])
    finally:
        filler.unlink(missing_ok=True)
        manager.shutdown()
        os.dup2(saved_stderr, 2)
        os.close(saved_stderr)
        log_path.unlink(missing_ok=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="probe this server instead of starting one")
    parser.add_argument("--data-dir", type=Path, help="the server's LCSM_DATA_DIR (enables the store probes)")
    parser.add_argument("--full-disk-dir", type=Path, help="an empty small file system for the full-disk probe")
    parser.add_argument("--slice-s", type=float, default=20.0,
                        help="LCSM_SLICE_S of the server this script starts (the N7 probe waits ~5 turns)")
    args = parser.parse_args()
    server = None
    data_dir = args.data_dir
    if args.url is None:
        data_dir = Path(tempfile.mkdtemp(prefix="lcsm-hostile-"))
        server = AppServer(data_dir, data_dir / "server.log",          # the tab probes claim an address of their own
                           env={"FORWARDED_ALLOW_IPS": "127.0.0.1", "LCSM_SLICE_S": f"{args.slice_s:g}"}).start()
    url = args.url or server.url
    try:
        probe_framing(url)
        asyncio.run(probe_tokens(url))
        asyncio.run(hostile_shares.probe_identity(url, verdict))
        asyncio.run(hostile_shares.probe_sessions(url, verdict))
        if data_dir is not None:
            asyncio.run(hostile_shares.probe_class_seats(url, data_dir, verdict))
            asyncio.run(hostile_shares.probe_class_behind_one_address(url, data_dir, verdict))
            asyncio.run(probe_grids(url, data_dir, server.pid if server is not None else None))  # before other grids
            asyncio.run(hostile_shares.probe_turns(url, data_dir, verdict, args.slice_s))
            asyncio.run(hostile_shares.probe_grid_line(url, data_dir, verdict))
            asyncio.run(probe_store_faults(url, data_dir))
        else:
            print("SKIP  grids and store faults: give --data-dir (the server's LCSM_DATA_DIR)")
        if args.full_disk_dir is not None:
            probe_full_disk(args.full_disk_dir)
        else:
            print("SKIP  full disk: give --full-disk-dir (an empty small file system)")
    finally:
        if server is not None:
            server.stop()
    print(f"\n{len(FAILS)} FAIL(s)" + "".join(f"\n  - {f}" for f in FAILS))
    return len(FAILS)


if __name__ == "__main__":
    sys.exit(main())

"""Probes of who a visitor is and what share of the server they get (run by benchmarks/hostile_probes.py):

- identity: a page sets the `lcsm_browser` cookie HttpOnly and SameSite=Lax;
- N2, fixation with a server-issued token: browser B opening a link with browser A's `?owner=` drives with its own
  token, and the page says the link's was another browser's;
- a reopened link: two sessions of one browser are one learner (the same `?learner=`), another browser another;
- N5, sessions: one address outside any class holds at most LCSM_MAX_SESSIONS open tabs, a fresh cookie each (the
  next websocket is closed before it opens, a page asked past it is a 429 page that says why), and a tab closed
  frees its place;
- N1, a self-made class (needs the data directory): a class of 3 seats seats 3 browsers, the 4th is told it is full;
- a class behind one address (needs the data directory): 10 learners seated by the class link of their first page
  each hold a tab, more than one visitor may;
- N7, turns (needs the data directory): a run costed at the cap holds the only slot; 4 class trainings each step;
- N6, the grid line (needs the data directory): a second visitor queues behind the running grid, told when it
  starts; the holder cannot queue another; the next grid starts when the running one ends.
"""
from __future__ import annotations

import asyncio
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs

from benchmarks.streamlit_client import StreamlitSession

COOKIE = "lcsm_browser"
HOSTILE_ADDRESS = "203.0.113.50"      # the address the tab probes claim (the server must trust loopback's header)


def forwarded(address: str | None) -> dict:
    return {"X-Forwarded-For": address} if address else {}


def browser_cookie(url: str, page: str = "spring", address: str | None = None) -> tuple[str | None, str]:
    """(the identity cookie a fresh browser gets from a page, the Set-Cookie header as sent); `address`: the client
    address the request claims (X-Forwarded-For, for a server that trusts loopback's)."""
    request = urllib.request.Request(f"{url}/{page}", headers={"Accept": "text/html", **forwarded(address)})
    with urllib.request.urlopen(request, timeout=30) as response:
        header = next((v for k, v in response.headers.items() if k.lower() == "set-cookie" and v.startswith(COOKIE)),
                      "")
    found = re.match(rf"{COOKIE}=([0-9a-f]+)", header)
    return (found.group(1) if found else None), header


async def token_seen(url: str, cookie: str | None, page: str, param: str, query: str = "") -> tuple[str | None, list]:
    async with StreamlitSession(url, timeout_s=120, cookie=f"{COOKIE}={cookie}" if cookie else None) as tab:
        await tab.open_page(page, query)
        return parse_qs(tab.query).get(param, [None])[0], tab.texts()


async def probe_identity(url: str, verdict: Callable) -> None:
    first, header = browser_cookie(url)
    flags = {part.strip().split("=")[0] for part in header.split(";")}
    verdict(first is not None and {"HttpOnly", "SameSite"} <= flags and "SameSite=Lax" in header,
            "identity: a page sets the browser's cookie, HttpOnly and SameSite=Lax", header)
    second, _ = browser_cookie(url)
    if first is None or second is None:
        return
    owner_a, _ = await token_seen(url, first, "train_live", "owner")
    owner_b, texts = await token_seen(url, second, "train_live", "owner", f"owner={owner_a}")
    verdict(owner_a is not None and owner_b not in (None, owner_a)
            and any("another browser's owner token" in t for t in texts),
            "N2: a link with another browser's owner token is not taken, and the page says so", (owner_a, owner_b))
    learner_1, _ = await token_seen(url, first, "spring", "learner")
    learner_2, _ = await token_seen(url, first, "spring", "learner")
    learner_3, _ = await token_seen(url, second, "spring", "learner")
    verdict(learner_1 is not None and learner_1 == learner_2 != learner_3,
            "reopened link: two sessions of one browser are one learner, another browser another",
            (learner_1, learner_2, learner_3))


async def probe_sessions(url: str, verdict: Callable, most: int = 8, address: str = HOSTILE_ADDRESS) -> None:
    """N5 from one address outside any class, each tab with a cookie of its own (cookies are free to mint): the
    address holds `most` tabs; a learner seated in a class from the same address is counted alone."""
    def session(cookie: str | None, timeout_s: float = 60) -> StreamlitSession:
        return StreamlitSession(url, timeout_s=timeout_s, cookie=f"{COOKIE}={cookie}" if cookie else None,
                                headers=forwarded(address))
    tabs = [session(browser_cookie(url, address=address)[0]) for _ in range(most)]
    try:
        for tab in tabs:
            await tab.__aenter__()
        extra = session(tokens_minted_elsewhere(url, address), timeout_s=30)
        refused = False
        try:
            await extra.__aenter__()
            await extra.open_page("spring")
        except Exception:                                   # closed before it opened (1013)
            refused = True
        finally:
            await extra.close()
        verdict(refused, f"N5: one address's tab past {most} is refused before it opens, a fresh cookie each")
        request = urllib.request.Request(f"{url}/spring", headers={"Accept": "text/html", **forwarded(address)})
        try:
            urllib.request.urlopen(request, timeout=30)
            status, body = 200, ""
        except urllib.error.HTTPError as err:
            status, body = err.code, err.read().decode("utf-8", "replace")
        verdict(status == 429 and "Too many open tabs" in body, "N5: a page past the cap says why (429)", status)
        await tabs[0].close()
        await asyncio.sleep(0.5)
        again = session(browser_cookie(url, address=address)[0])
        try:
            await again.__aenter__()
            result = await again.open_page("spring")
            verdict(not result.exceptions, "N5: a tab closed frees its place")
        finally:
            await again.close()
    finally:
        for tab in tabs:
            await tab.close()


def tokens_minted_elsewhere(url: str, address: str) -> str | None:
    """A fresh identity cookie for the probe's address, asked for from another address (its own is at its cap)."""
    return browser_cookie(url, address="198.51.100.99")[0]


async def probe_class_seats(url: str, data_dir: Path, verdict: Callable) -> None:
    from lcsm_serving.class_store import ClassStore
    code, _ = ClassStore(data_dir / "runs.sqlite").create_class(visitor="203.0.113.77", seats=3)
    said = []
    for _ in range(4):
        cookie, _ = browser_cookie(url)
        joined, texts = await token_seen(url, cookie, "spring", "class", f"class={code}")
        said.append((joined, any("is full (3 of 3 seats taken)" in t for t in texts)))
    verdict([s[0] for s in said[:3]] == [code] * 3 and said[3] == (None, True),
            "N1: a class of 3 seats seats 3 browsers and tells the 4th it is full", said)


async def probe_class_behind_one_address(url: str, data_dir: Path, verdict: Callable, learners: int = 10,
                                         address: str = HOSTILE_ADDRESS) -> None:
    """A class behind one school address: more learners than one visitor's tabs, each seated by the class link
    its first page carries, all get a tab (each learner is a visitor of their own)."""
    from lcsm_serving.class_store import ClassStore
    code, _ = ClassStore(data_dir / "runs.sqlite").create_class(seats=learners + 2)
    tabs = []
    try:
        for _ in range(learners):
            cookie, _ = browser_cookie(url, f"spring?class={code}", address=address)   # its first page: the link
            tab = StreamlitSession(url, timeout_s=60, cookie=f"{COOKIE}={cookie}", headers=forwarded(address))
            tabs.append(tab)
            await tab.__aenter__()
            await tab.open_page("spring", f"class={code}")
        verdict(True, f"N5 inside a class: {learners} learners behind one address each hold a tab")
    except Exception as why:                                # noqa: BLE001 - a refused tab is the finding
        verdict(False, f"N5 inside a class: {learners} learners behind one address each hold a tab",
                f"{len(tabs)} opened, then {type(why).__name__}: {why}")
    finally:
        for tab in tabs:
            await tab.close()


async def probe_turns(url: str, data_dir: Path, verdict: Callable, slice_s: float) -> None:
    """N7: one visitor's run costed at the cap (d = 128, 5,000 steps) holds the only training slot, then 4 class
    learners press ▶ Play: each must make a step within its turn (the slot is time-sliced while others wait), where
    before none did while the big run lasted. The server's trainer trains them (Train live opened first starts it)."""
    from lcsm_core.training import run_config
    from lcsm_serving import RunStore, TrainerClient
    from lcsm_serving.admission import class_visitor_key
    from lcsm_serving.class_store import ClassStore
    from lcsm_serving.tokens import mint
    async with StreamlitSession(url, timeout_s=120) as tab:
        await tab.open_page("train_live")                      # the page's trainer is up
    db = data_dir / "runs.sqlite"
    client, store = TrainerClient(db, start_service=False), RunStore(db)
    code, _ = ClassStore(db).create_class(seats=8)
    owners = [mint("owner") for _ in range(5)]
    big = client.submit(run_config(d_model=128, layers=4, max_steps=5000, max_seconds=600.0, target_acc=1.0,
                                   device="cpu"), owners[0], visitor="203.0.113.51")
    start = time.monotonic()
    while store.get_run(big).steps == 0 and time.monotonic() - start < 120:
        await asyncio.sleep(0.5)
    learners = [client.submit(run_config(max_steps=1000, target_acc=1.0, seed=n, device="cpu"),
                              owners[1 + n], visitor=class_visitor_key("198.51.100.7", code, mint("learner")))
                for n in range(4)]
    asked, first_step, window = time.monotonic(), {}, 5 * slice_s + 60
    while len(first_step) < len(learners) and time.monotonic() - asked < window:
        for run in learners:
            if run not in first_step and store.get_run(run).steps > 0:
                first_step[run] = time.monotonic() - asked
        await asyncio.sleep(0.5)
    for run, owner in zip([big, *learners], owners):
        client.stop(run, owner, "the probe is over")
    stepped = sorted(first_step.values())
    verdict(len(stepped) == len(learners) and store.get_run(big).steps > 0,
            f"N7: a run costed at the cap holds the only slot; 4 class trainings each make a step within "
            f"{window:.0f} s (turns of {slice_s:g} s): first steps after {', '.join(f'{s:.0f}' for s in stepped)} s",
            f"{len(stepped)} of {len(learners)} stepped")
    return stepped


HOLDER, SECOND = "203.0.113.60", "198.51.100.61"     # the grid's holder and a visitor who queues behind it
LAB = "ablation=parameterization&lengths=32&lrs=0.01&d_model=16&seeds=1"


async def probe_grid_line(url: str, data_dir: Path, verdict: Callable) -> None:
    """N6: a visitor's grid holds the paper lab; a second visitor's grid goes in line behind it and is told its place
    and when it starts at the latest; the holder cannot queue a second grid (one per visitor); when the holder's
    grid ends (here: stopped), the second visitor's starts and their page says so."""
    from lcsm_serving import RunStore
    store = RunStore(data_dir / "runs.sqlite")

    def tab(address: str) -> StreamlitSession:
        return StreamlitSession(url, timeout_s=120, cookie=None, headers=forwarded(address))

    async def press(session: StreamlitSession, query: str, key: str) -> list[str]:
        await session.open_page("paper_lab", query)
        button = session.widget(key)
        if button is None or button.disabled:
            return [f"(button {key} {'disabled' if button is not None else 'missing'})"]
        result = await session.click(button.id)
        return session.texts() + [f"exception: {e}" for e in result.exceptions]

    def about_grids(texts: list[str]) -> list[str]:
        return [t[:200] for t in texts if "in line" in t or "grid **" in t or t.startswith("(")][:4]
    async with tab(HOLDER) as holder, tab(SECOND) as second:
        await press(holder, f"{LAB}&steps=3000", "paper_lab.rerun")
        held = store.active_grid()
        said = await press(second, f"{LAB}&steps=60", "paper_lab.rerun")
        queued = any("is number 1 in line" in t and "starts by" in t for t in said)
        verdict(held is not None and queued, "N6: a second visitor's grid goes in line behind the running one, told "
                "its place and when it starts at the latest", (held, about_grids(said)))
        again = await press(holder, f"{LAB}&steps=90", "paper_lab.rerun")
        verdict(again == ["(button paper_lab.rerun disabled)"] or any("one grid per visitor" in t for t in again),
                "N6: the holder cannot queue a second grid (its run buttons wait for its grid)", about_grids(again))
        await press(holder, f"{LAB}&steps=3000", "paper_lab.stop")
        deadline = time.monotonic() + 60
        while store.active_grid() in (None, held) and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        started = store.active_grid()
        await second.open_page("paper_lab", f"{LAB}&steps=60")
        told = any("started at" in t for t in second.texts())
        verdict(started not in (None, held) and told, "N6: when the holder's grid ends, the next in line starts "
                "and its page says so", (held, started, told))
        if started:
            store.request_grid_stop(started, "the probe is over")

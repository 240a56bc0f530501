"""A real-browser cross-check for the load run: a few headless chromium tabs move a slider while the protocol
clients load the server, and time each move from the key press to the page drawn again (the tab's websocket
got the run's `script_finished`, and no element is stale any more)."""
from __future__ import annotations

import random
import time

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.app_process import BROWSER_ARGS
from benchmarks.app_process import CHROMIUM as CHROMIUM_ON_PATH

CHROMIUM = CHROMIUM_ON_PATH or "/usr/bin/chromium"
FINISHED = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)
DRAWN = """() => { const a = document.querySelector('[data-testid="stApp"]');
            return a && a.getAttribute('data-test-script-state') === 'notRunning'
                   && document.querySelectorAll('[data-stale="true"]').length === 0
                   && !document.querySelector('.lcsm-pending') }"""     # the lesson instrument redrawn too


def first_slider_label(page: str) -> str:
    """The label of the page's first slider (a Streamlit slider, or the lesson instrument's range input: both are
    ARIA sliders named by their label), read from its declaration now."""
    from lcsm_explorer.app.lessons import lesson
    settings = lesson(page).settings
    return next(p.label for p in settings.params if p.widget == "slider" and not p.in_main and p.shown is None)


def slider_latencies(url: str, tabs: int, clock: dict, page: str = "spring", think_s=(1.0, 3.0),
                     move_timeout_s: float = 60.0, seed: int = 0) -> dict:
    """Open `tabs` chromium tabs on `page`, wait for `clock["go"]` (a threading.Event; at most 15 min), then move
    the page's first slider in each tab in turn until time.monotonic() ≥ `clock["until"]`.
    Returns {"latencies_s": [...], "errors": [...]} (exceptions drawn, moves that did not finish)."""
    from playwright.sync_api import sync_playwright

    rng, label = random.Random(seed), first_slider_label(page)
    out: dict = {"latencies_s": [], "errors": [], "label": label}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            pages = [_open(browser, f"{url}/{page}", label) for _ in range(tabs)]
            clock["go"].wait(900)
            until = clock.get("until") or time.monotonic()
            while time.monotonic() < until:
                for tab, finished in pages:
                    if time.monotonic() >= until:
                        break
                    _move_once(tab, finished, label, rng, move_timeout_s, out)
                    tab.wait_for_timeout(1000 * rng.uniform(*think_s) / tabs)
            for tab, _ in pages:
                shown = tab.locator('[data-testid="stException"]')
                if shown.count():
                    out["errors"].append(f"exception drawn: {shown.first.inner_text()[:200]}")
        finally:
            browser.close()
    return out


def _open(browser, address: str, label: str):
    """A tab (its own context: its own session) on `address`, and a list that gets a timestamp per finished run."""
    tab = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    finished: list[float] = []

    def on_frame(payload) -> None:
        if isinstance(payload, bytes | bytearray):
            msg = ForwardMsg()
            msg.ParseFromString(bytes(payload))
            if msg.WhichOneof("type") == "script_finished" and msg.script_finished in FINISHED:
                finished.append(time.perf_counter())

    tab.on("websocket", lambda ws: ws.on("framereceived", on_frame))
    tab.goto(address)
    tab.get_by_role("slider", name=label).wait_for(timeout=120_000)
    tab.wait_for_function(DRAWN, timeout=120_000)
    return tab, finished


def _move_once(tab, finished: list[float], label: str, rng: random.Random, timeout_s: float, out: dict) -> None:
    slider = tab.get_by_role("slider", name=label)
    slider.focus()
    seen = len(finished)
    started = time.perf_counter()
    slider.press(rng.choice(["ArrowRight", "ArrowLeft"]))
    deadline = started + timeout_s
    while len(finished) == seen and time.perf_counter() < deadline:
        tab.wait_for_timeout(10)                 # lets Playwright deliver the websocket frames
    try:
        tab.wait_for_function(DRAWN, timeout=max(1.0, deadline - time.perf_counter()) * 1000)
    except Exception:  # noqa: BLE001 — a page that never settles is an error of the run, not of the script
        out["errors"].append(f"slider move not drawn within {timeout_s:g} s")
        return
    if len(finished) == seen:
        out["errors"].append(f"no script_finished within {timeout_s:g} s of a slider move")
        return
    out["latencies_s"].append(time.perf_counter() - started)

"""Fair shares of the web process between visitors: a cap on the live sessions one visitor holds, and a pace for
the page runs one visitor asks for.

A visitor here is a browser (its identity cookie, app/kit/browser_identity.py), else the client address as the
server sees it (behind the project's HAProxy, the forwarded one); the machine's own user (loopback) is the operator
and is never held back. Without these, one client opening a dozen sessions that move with no pause took the CPU of
a class: every other learner's move waited behind its page runs.

- **Sessions** (`FairShare`, ASGI middleware in app/serve.py): each visitor holds at most `max_sessions()` open
  websockets (a tab is one) over the whole tier (app/kit/session_ledger.py: the count is kept in the store file
  every web process shares; this process's own count stands when the store cannot be written). A browser asking for
  a page past that gets a short page that says so (HTTP 429, with a link to try again), not a hang; a websocket past
  it is closed before it opens (a client that skips the page).
- **Page runs** (`pace`, called by the router before a page is drawn): each visitor has a token bucket of
  `RUNS_PER_S` runs a second (bursts of `BURST`). A run past it waits for a token, at most `MAX_WAIT_S`; a newer
  move of the same tab meanwhile replaces it (Streamlit stops the waiting run at its next element), so moves are
  coalesced, the latest value winning, never dropped. A tab that waited says so in a caption.

LCSM_MAX_SESSIONS (default 8) and LCSM_RUNS_PER_S (default 4) set the two shares.
"""
from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import os
import sqlite3
import threading
import time

from . import browser_identity, session_ledger

DEFAULT_MAX_SESSIONS = 8
RUNS_PER_S = 4.0              # a learner's drag commits on release: 1–2 runs a second at the most
BURST = 8                     # a page's own reruns (a fragment's first run, a preset's page) come in small bursts
MAX_WAIT_S = 30.0             # a bound, not a pace: a waiting run costs no CPU, and a newer move replaces it
STREAM_PATH = "/_stcore/stream"
_COUNTS: dict[str, int] = {}
_BUCKETS: dict[str, list[float]] = {}                   # visitor → [tokens, last refill time]
_LOCK = threading.Lock()
PACED_KEY = "fair_share.paced"


def max_sessions(environ=os.environ) -> int:
    try:
        return max(1, int(environ.get("LCSM_MAX_SESSIONS", DEFAULT_MAX_SESSIONS)))
    except ValueError:
        return DEFAULT_MAX_SESSIONS


def runs_per_s(environ=os.environ) -> float:
    """A visitor's page runs a second in this process: LCSM_RUNS_PER_S over the tier's web processes (a client
    without the affinity cookie is spread over them; a browser with it sits in one and still gets its share)."""
    try:
        rate = max(0.1, float(environ.get("LCSM_RUNS_PER_S", RUNS_PER_S)))
    except ValueError:
        rate = RUNS_PER_S
    try:
        processes = max(1, int(environ.get("LCSM_TIER_PROCESSES", "1")))
    except ValueError:
        processes = 1
    return rate / processes


def visitor_of(cookie: str | None, address: str | None) -> str | None:
    """Who a request or a script run counts under: its browser when the cookie is valid, else its address; None for
    the operator (no address, loopback)."""
    if browser_identity.valid(cookie):
        return "browser:" + hashlib.sha256(cookie.encode()).hexdigest()[:32]
    if not address or address == "local":
        return None
    try:
        if ipaddress.ip_address(address.strip("[]")).is_loopback:
            return None
    except ValueError:
        pass
    return "address:" + address


def open_sessions(visitor: str) -> int:
    with _LOCK:
        return _COUNTS.get(visitor, 0)


# --- sessions ----------------------------------------------------------------------------------------------
TOO_MANY = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too many open tabs</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font:18px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}}
a{{color:#1f4e9c}}</style></head><body><main><h1>Too many open tabs</h1>
<p>This browser already has {open} tabs of LCSM Explorer open on this server, the most one visitor may hold ({most}),
so that everyone in a class gets a share of it. Close a tab you no longer use, then
<a href="{again}">try again</a>.</p></main></body></html>"""


class FairShare:
    """ASGI middleware: at most `max_sessions()` open websockets per visitor; a page past it is a 429 page."""

    def __init__(self, app, most: int | None = None):
        self.app, self.most = app, most

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        visitor = visitor_of(browser_identity.cookie_of(scope), (scope.get("client") or (None,))[0])
        most = self.most or max_sessions()
        if visitor is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            held = await _tier_held(visitor) if _asks_for_a_page(scope) else 0
            if held >= most:
                await _too_many(scope, send, held, most)
            else:
                await self.app(scope, receive, send)
        elif scope["path"].endswith(STREAM_PATH):
            if not _take_session(visitor, most):
                await _refuse_stream(receive, send)
                return
            in_ledger = await _ledger_take(visitor, most)
            if in_ledger is False:                              # the tier's other processes hold the rest
                _drop_session(visitor)
                await _refuse_stream(receive, send)
                return
            try:
                await self.app(scope, receive, send)
            finally:
                _drop_session(visitor)
                if in_ledger:
                    await _ledger_drop(visitor)
        else:
            await self.app(scope, receive, send)


async def _refuse_stream(receive, send) -> None:
    await receive()                                             # websocket.connect
    await send({"type": "websocket.close", "code": 1013})       # "try again later", before accept


async def _tier_held(visitor: str) -> int:
    """The visitor's open tabs over the tier (the shared ledger), at least this process's own count."""
    ledger = session_ledger.shared_ledger()
    if ledger is None:
        return open_sessions(visitor)
    try:
        return max(open_sessions(visitor), await asyncio.to_thread(ledger.held, visitor))
    except sqlite3.Error:
        return open_sessions(visitor)


async def _ledger_take(visitor: str, most: int) -> bool | None:
    """True: counted in the tier's ledger; False: the tier holds `most` already; None: no ledger (count here only)."""
    ledger = session_ledger.shared_ledger()
    if ledger is None:
        return None
    try:
        return await asyncio.to_thread(ledger.take, visitor, most)
    except sqlite3.Error:
        return None


async def _ledger_drop(visitor: str) -> None:
    ledger = session_ledger.shared_ledger()
    if ledger is not None:
        try:
            await asyncio.to_thread(ledger.drop, visitor)
        except sqlite3.Error:
            pass


def _asks_for_a_page(scope: dict) -> bool:
    """A browser's page request (not a script, a style or an API call): what a new tab asks for first."""
    path = scope.get("path", "/")
    if "/_stcore/" in path or "/static/" in path or path.startswith("/lcsm-") or "." in path.rsplit("/", 1)[-1]:
        return False
    accept = next((v for k, v in scope.get("headers", []) if k.lower() == b"accept"), b"")
    return b"text/html" in accept


def _take_session(visitor: str, most: int) -> bool:
    with _LOCK:
        held = _COUNTS.get(visitor, 0)
        if held >= most:
            return False
        _COUNTS[visitor] = held + 1
        return True


def _drop_session(visitor: str) -> None:
    with _LOCK:
        held = _COUNTS.get(visitor, 0) - 1
        if held > 0:
            _COUNTS[visitor] = held
        else:
            _COUNTS.pop(visitor, None)


async def _too_many(scope: dict, send, held: int, most: int) -> None:
    import html
    query = scope.get("query_string", b"").decode("latin-1")
    again = scope.get("path", "/") + (f"?{query}" if query else "")
    body = TOO_MANY.format(open=held, most=most, again=html.escape(again)).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"text/html; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), (b"retry-after", b"10"),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})


# --- page runs ------------------------------------------------------------------------------------------------
def take_token(visitor: str, now: float | None = None, rate: float | None = None) -> float:
    """Take one run from the visitor's bucket: 0 when it had one, else the seconds until it will (nothing taken)."""
    now, rate = time.monotonic() if now is None else now, runs_per_s() if rate is None else rate
    with _LOCK:
        tokens, last = _BUCKETS.get(visitor, [float(BURST), now])
        tokens = min(float(BURST), tokens + (now - last) * rate)
        if tokens >= 1.0:
            _BUCKETS[visitor] = [tokens - 1.0, now]
            return 0.0
        _BUCKETS[visitor] = [tokens, now]
        if len(_BUCKETS) > 20_000:                          # forget the visitors seen longest ago
            for old in sorted(_BUCKETS, key=lambda v: _BUCKETS[v][1])[:10_000]:
                del _BUCKETS[old]
        return (1.0 - tokens) / rate


def pace() -> None:
    """Before a page run: wait (no CPU) until the visitor's bucket has a run for it, at most `MAX_WAIT_S`; a newer
    move of this tab stops the waiting run at its next element, so the latest value wins."""
    import streamlit as st

    from .visitor import client_address
    visitor = visitor_of(browser_identity.browser_token(), client_address())
    if visitor is None:
        return
    deadline = time.monotonic() + MAX_WAIT_S
    while (wait := take_token(visitor)) > 0 and time.monotonic() < deadline:
        st.session_state[PACED_KEY] = True
        time.sleep(min(wait, max(0.0, deadline - time.monotonic())))
    if st.session_state.pop(PACED_KEY, False):
        st.caption("⏳ This browser asks for pages faster than the server shares out "
                   f"({runs_per_s():g} a second): the latest of your changes is shown.")

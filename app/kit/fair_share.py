"""Fair shares of the web process between visitors: a cap on the live sessions one visitor holds, and a pace for
the page runs one visitor asks for.

A visitor here is a learner seated in a class (their browser's identity cookie, app/kit/browser_identity.py,
whose learner holds a seat: lcsm_serving/class_store.py), else the client address as the server sees it (behind the
project's HAProxy, the forwarded one): a whole class may sit behind one school address, and each of its learners
gets a share, while a client outside any class cannot multiply its share by minting cookies (they are free; a
seat is not). A page asked for with a class link seats its browser before its tab opens (`take_seat`: the join
the page would make, made here first), so a class behind one address is never counted as one visitor. The
machine's own user (loopback) outside a class is the operator and is never held back. Without these, one client
opening a dozen sessions that move with no pause took the CPU of a class: every other learner's move waited behind
its page runs.

- **Sessions** (`FairShare`, ASGI middleware in app/serve.py): each visitor holds at most `max_sessions()` open
  websockets (a tab is one) over the whole tier (app/kit/session_ledger.py: the count is kept in the store file
  every web process shares; this process's own count stands when the store cannot be written). A browser asking for
  a page past that gets a short page that says so (HTTP 429, with a link to try again), not a hang; a websocket past
  it is closed before it opens (a client that skips the page).
- **Page runs** (`pace`, called by the router before a page is drawn): each visitor has a token bucket of
  `RUNS_PER_S` runs a second (bursts of `BURST`). A run past it waits for a token, at most `MAX_WAIT_S`; a newer
  move of the same tab meanwhile replaces it (Streamlit stops the waiting run at its next element), so moves are
  coalesced, the latest value winning, never dropped. A tab that waited says so in a caption.

- **Turns** (`page_turn`, around the router's page run): at most `page_seats()` visitors' page runs at once in a
  process; a run past them waits its visitor's turn — the visitors waiting are let in one run each, in turn — so
  one client's burst waits behind one run of each learner, not thirty learners behind it. The operator (loopback)
  takes no seat and never waits.

LCSM_MAX_SESSIONS (default 8), LCSM_RUNS_PER_S (default 4) and LCSM_PAGE_SEATS (default 4) set the shares.
"""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import os
import sqlite3
import threading
import time
from collections import deque

from . import browser_identity, session_ledger
from .client_address import client_address

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


def visitor_of(cookie: str | None, address: str | None, is_seated: bool | None = None) -> str | None:
    """Who a request or a script run counts under: its browser when the cookie is valid and its learner holds a seat
    in a class (`is_seated`, else looked up), else its address; None for the operator (no address, loopback)."""
    if browser_identity.valid(cookie) and (seated(cookie) if is_seated is None else is_seated):
        return "browser:" + hashlib.sha256(cookie.encode()).hexdigest()[:32]
    if not address or address == "local":
        return None
    try:
        if ipaddress.ip_address(address.strip("[]")).is_loopback:
            return None
    except ValueError:
        pass
    return "address:" + address


# --- seats: who counts as a learner of their own ----------------------------------------------------------------
SEATED_FOR_S, UNSEATED_FOR_S = 60.0, 5.0     # how long an answer is kept (a freed seat counts a minute longer)
_SEATS: dict[str, tuple[bool, float]] = {}  # browser cookie → (seated, until)


def _learner_of(cookie: str) -> str:
    from lcsm_serving import tokens
    return tokens.of_browser("learner", cookie)     # the learner token the browser's pages use (app/kit/owner.py)


def known_seat(cookie: str, now: float | None = None) -> bool | None:
    """The kept answer of `seated` for this browser, or None when there is none (or it is too old)."""
    now = time.monotonic() if now is None else now
    with _LOCK:
        answer = _SEATS.get(cookie)
    return answer[0] if answer is not None and answer[1] > now else None


def _remember_seat(cookie: str, is_seated: bool) -> None:
    with _LOCK:
        if len(_SEATS) > 20_000:
            _SEATS.clear()
        _SEATS[cookie] = (is_seated, time.monotonic() + (SEATED_FOR_S if is_seated else UNSEATED_FOR_S))


def seated(cookie: str) -> bool:
    """Whether the browser's learner holds a seat in a class on this server (kept a few seconds; a store that
    cannot be read: not seated, so the address counts)."""
    if (answer := known_seat(cookie)) is not None:
        return answer
    from lcsm_serving.progress_store import ProgressStore

    from .progress import store_file
    try:
        answer = ProgressStore(store_file()).class_of(_learner_of(cookie)) is not None
    except (sqlite3.Error, OSError):
        answer = False
    _remember_seat(cookie, answer)
    return answer


def take_seat(cookie: str, code: str, address: str | None) -> bool:
    """Seat the browser's learner in class `code` as its page would (`ClassStore.join`: a free seat, joins from the
    address within their daily count); False when it cannot (the page then says why)."""
    from lcsm_serving.class_store import CLASS_CODE, ClassStore

    from .progress import store_file
    code = code.strip().upper()
    if not CLASS_CODE.fullmatch(code):
        return False
    try:
        ClassStore(store_file()).join(_learner_of(cookie), code, address)
    except (ValueError, sqlite3.Error, OSError):       # no such class, full, joined too often, a store fault
        return False
    _remember_seat(cookie, True)
    return True


async def visitor_of_request(scope: dict) -> str | None:
    """`visitor_of` for a request: a page asked for with a class link (`?class=CODE`) first takes its seat; the
    store is read off the event loop, and only for a browser whose answer is not kept."""
    cookie, address = browser_identity.identity_of(scope), (scope.get("client") or (None,))[0]
    if cookie is None:
        return visitor_of(None, address, False)
    code = _class_param(scope) if scope["type"] == "http" and _asks_for_a_page(scope) else None
    if code and known_seat(cookie) is not True:
        await asyncio.to_thread(take_seat, cookie, code, address)
    is_seated = known_seat(cookie)
    if is_seated is None:
        is_seated = await asyncio.to_thread(seated, cookie)
    return visitor_of(cookie, address, is_seated)


def _class_param(scope: dict) -> str | None:
    from urllib.parse import parse_qs
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("class")
    return values[0] if values else None


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
        visitor = await visitor_of_request(scope)
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


def current_visitor() -> str | None:
    """The visitor this script run counts under (`visitor_of` its browser's cookie and its address)."""
    return visitor_of(browser_identity.browser_token(), client_address())


def pace() -> None:
    """Before a page run: wait (no CPU) until the visitor's bucket has a run for it, at most `MAX_WAIT_S`; a newer
    move of this tab stops the waiting run at its next element, so the latest value wins."""
    import streamlit as st
    visitor = current_visitor()
    if visitor is None:
        return
    deadline = time.monotonic() + MAX_WAIT_S
    while (wait := take_token(visitor)) > 0 and time.monotonic() < deadline:
        st.session_state[PACED_KEY] = True
        time.sleep(min(wait, max(0.0, deadline - time.monotonic())))
    if st.session_state.pop(PACED_KEY, False):
        st.caption("⏳ This browser asks for pages faster than the server shares out "
                   f"({runs_per_s():g} a second): the latest of your changes is shown.")


# --- turns --------------------------------------------------------------------------------------------------------
PAGE_SEATS = 4                # page runs at once: a run mostly holds the GIL, so more at once only share it thinner


def page_seats(environ=os.environ) -> int:
    try:
        return max(1, int(environ.get("LCSM_PAGE_SEATS", PAGE_SEATS)))
    except ValueError:
        return PAGE_SEATS


class Turns:
    """At most `seats` runs at once; the runs past them wait in a line per visitor, and the lines are let in one run
    each, in turn. A run that waited `MAX_WAIT_S` goes in anyway (late, never dropped)."""

    def __init__(self, seats: int):
        self.seats, self.running = seats, 0
        self._cond = threading.Condition()
        self._lines: dict[str, deque] = {}          # visitor → their waiting runs' tickets, first come first
        self._turns: deque = deque()                # visitors with a run waiting, the next to go in first

    def _first(self) -> object | None:
        return self._lines[self._turns[0]][0] if self._turns else None

    def _take(self, visitor: str, ticket: object) -> None:
        line = self._lines[visitor]
        line.remove(ticket)
        if visitor in self._turns:
            self._turns.remove(visitor)
            if line:
                self._turns.append(visitor)         # their next run waits for every other visitor's
        if not line:
            del self._lines[visitor]

    def enter(self, visitor: str, timeout: float = MAX_WAIT_S) -> bool:
        """Take a seat, waiting the visitor's turn (no CPU); False when it went in late, past `timeout`."""
        with self._cond:
            if self.running < self.seats and not self._turns:
                self.running += 1
                return True
            ticket = object()
            self._lines.setdefault(visitor, deque()).append(ticket)
            if visitor not in self._turns:
                self._turns.append(visitor)
            in_turn = self._cond.wait_for(lambda: self.running < self.seats and self._first() is ticket, timeout)
            self._take(visitor, ticket)
            self.running += 1
            self._cond.notify_all()
            return in_turn

    def leave(self) -> None:
        with self._cond:
            self.running -= 1
            self._cond.notify_all()


_TURNS = Turns(page_seats())


@contextlib.contextmanager
def page_turn():
    """The page run inside, in its visitor's turn (`Turns`); the operator's runs go straight in."""
    visitor = current_visitor()
    if visitor is None:
        yield
        return
    _TURNS.enter(visitor)
    try:
        yield
    finally:
        _TURNS.leave()

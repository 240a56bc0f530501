"""Fair shares of the web process (app/kit/fair_share.py): at most a few open tabs per visitor (a page past it is a
429 page that says why, a websocket past it is closed before it opens), page runs at a pace per visitor (a token
bucket: bursts, then the rate), and the operator never held back."""
from __future__ import annotations

import asyncio

import pytest

from app.kit import fair_share
from app.kit.browser_identity import COOKIE
from app.kit.fair_share import BURST, FairShare, take_token, visitor_of
from lcsm_core import tokens

VISITOR = "203.0.113.9"


@pytest.fixture(autouse=True)
def fresh_counts(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(fair_share, "_COUNTS", {})
    monkeypatch.setattr(fair_share, "_BUCKETS", {})


def test_a_visitor_is_its_browser_else_its_address_and_loopback_is_the_operator():
    browser = tokens.mint("browser")
    assert visitor_of(browser, VISITOR).startswith("browser:") and browser not in visitor_of(browser, VISITOR)
    assert visitor_of("0" * 64, VISITOR) == f"address:{VISITOR}"                 # a forged cookie: the address
    assert visitor_of(None, "127.0.0.1") is None and visitor_of(None, "::1") is None and visitor_of(None, None) is None


def test_the_bucket_gives_a_burst_then_runs_at_its_rate():
    now = 100.0
    assert all(take_token("v", now, rate=4.0) == 0 for _ in range(BURST))
    wait = take_token("v", now, rate=4.0)
    assert wait == pytest.approx(0.25)
    assert take_token("v", now + 0.25, rate=4.0) == 0                              # one more after a quarter second
    assert take_token("other", now, rate=4.0) == 0                                 # every visitor has their own


def scope(kind: str, path: str, address: str = VISITOR, cookie: str | None = None, accept: str = "text/html"):
    headers = [(b"host", b"testserver"), (b"accept", accept.encode())]
    if cookie:
        headers.append((b"cookie", f"{COOKIE}={cookie}".encode()))
    return {"type": kind, "path": path, "query_string": b"", "headers": headers, "client": (address, 5000)}


async def open_streams(app, count: int, address: str = VISITOR):
    """Open `count` websockets; each holds until `close` is set. Returns (what each got, the event, the tasks)."""
    close, answers, tasks = asyncio.Event(), [], []

    async def one(n):
        sent = []

        async def receive():
            if not sent:
                sent.append(1)
                return {"type": "websocket.connect"}
            await close.wait()
            return {"type": "websocket.disconnect", "code": 1000}

        async def send(message):
            answers.append((n, message["type"], message.get("code")))
        await app(scope("websocket", "/_stcore/stream", address), receive, send)
    for n in range(count):
        tasks.append(asyncio.create_task(one(n)))
        await asyncio.sleep(0.01)
    return answers, close, tasks


async def streamlit_like(scope_, receive, send):
    """A websocket accepted and held until the client leaves; a page answered."""
    if scope_["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
    await send({"type": "http.response.body", "body": b"page"})


def test_a_visitor_holds_at_most_its_tabs_and_a_closed_one_frees_its_place():
    async def run():
        app = FairShare(streamlit_like, most=2)
        answers, close, tasks = await open_streams(app, 3)
        assert sorted(a for a in answers if a[1] != "websocket.accept") == [(2, "websocket.close", 1013)]
        assert fair_share.open_sessions(f"address:{VISITOR}") == 2
        page = []

        async def send(message):
            page.append(message)

        async def receive():
            return {"type": "http.request", "body": b""}
        await app(scope("http", "/spring"), receive, send)
        assert page[0]["status"] == 429 and b"Too many open tabs" in page[1]["body"]
        page.clear()
        await app(scope("http", "/static/js/main.js", accept="*/*"), receive, send)     # its scripts still load
        assert page[0]["status"] == 200
        operator, _, _ = await open_streams(app, 3, address="127.0.0.1")              # never held back
        assert [a[1] for a in operator] == ["websocket.accept"] * 3
        close.set()
        await asyncio.gather(*tasks)
        assert fair_share.open_sessions(f"address:{VISITOR}") == 0
    asyncio.run(run())


def test_the_tabs_are_counted_over_every_web_process_of_the_tier(tmp_path):
    from app.kit.session_ledger import STALE_S, SessionLedger
    first, second = SessionLedger(tmp_path / "runs.sqlite"), SessionLedger(tmp_path / "runs.sqlite")
    second.process = "another-host:1:1"                          # a second web process on the same store file
    visitor, now = f"address:{VISITOR}", 1000.0
    assert first.take(visitor, 3, now) and second.take(visitor, 3, now) and first.take(visitor, 3, now)
    assert not second.take(visitor, 3, now) and first.held(visitor, now) == 3
    assert second.take("address:198.51.100.1", 3, now)          # every visitor has their own
    first.drop(visitor)
    assert second.take(visitor, 3, now)                         # a closed tab frees its place in the tier
    assert first.held(visitor, now + STALE_S + 1) == 0          # a killed process's rows age out

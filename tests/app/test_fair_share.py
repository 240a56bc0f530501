"""Fair shares of the web process (app/kit/fair_share.py): at most a few open tabs per visitor (a page past it is a
429 page that says why, a websocket past it is closed before it opens), page runs at a pace per visitor (a token
bucket: bursts, then the rate), and the operator never held back."""
from __future__ import annotations

import asyncio

import pytest

from lcsm_explorer.app.kit import fair_share
from lcsm_explorer.app.kit.browser_identity import COOKIE
from lcsm_explorer.app.kit.fair_share import BURST, FairShare, take_token, visitor_of
from lcsm_explorer.app.kit.progress import store_file
from lcsm_serving import tokens

VISITOR = "203.0.113.9"


@pytest.fixture(autouse=True)
def fresh_counts(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(fair_share, "_COUNTS", {})
    monkeypatch.setattr(fair_share, "_BUCKETS", {})
    monkeypatch.setattr(fair_share, "_SEATS", {})


def seat(browser: str, seats: int = 40) -> str:
    """A class made by the operator, and the browser's learner seated in it; the class code."""
    from lcsm_serving.class_store import ClassStore
    store = ClassStore(store_file())
    code, _ = store.create_class(seats=seats)
    store.join(tokens.of_browser("learner", browser), code)
    return code


def test_a_visitor_is_a_seated_learner_else_its_address_and_loopback_is_the_operator():
    browser, seated_browser = tokens.mint("browser"), tokens.mint("browser")
    seat(seated_browser)
    assert visitor_of(browser, VISITOR) == f"address:{VISITOR}"       # a cookie is free to mint: the address counts
    assert visitor_of(seated_browser, VISITOR).startswith("browser:") and seated_browser not in visitor_of(
        seated_browser, VISITOR)                                      # a seat is not free: its learner counts alone
    assert visitor_of("0" * 64, VISITOR) == f"address:{VISITOR}"                 # a forged cookie: the address
    assert visitor_of(None, "127.0.0.1") is None and visitor_of(None, "::1") is None and visitor_of(None, None) is None
    assert visitor_of(browser, "127.0.0.1") is None                              # the operator's own browser


def test_the_bucket_gives_a_burst_then_runs_at_its_rate():
    now = 100.0
    assert all(take_token("v", now, rate=4.0) == 0 for _ in range(BURST))
    wait = take_token("v", now, rate=4.0)
    assert wait == pytest.approx(0.25)
    assert take_token("v", now + 0.25, rate=4.0) == 0                              # one more after a quarter second
    assert take_token("other", now, rate=4.0) == 0                                 # every visitor has their own


def scope(kind: str, path: str, address: str = VISITOR, cookie: str | None = None, accept: str = "text/html",
          query: str = ""):
    headers = [(b"host", b"testserver"), (b"accept", accept.encode())]
    if cookie:
        headers.append((b"cookie", f"{COOKIE}={cookie}".encode()))
    return {"type": kind, "path": path, "query_string": query.encode(), "headers": headers, "client": (address, 5000)}


async def open_streams(app, count: int, address: str = VISITOR, cookies=None):
    """Open `count` websockets (the n-th with `cookies[n]`, if given); each holds until `close` is set. Returns
    (what each got, the event, the tasks)."""
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
        await app(scope("websocket", "/_stcore/stream", address, cookies[n] if cookies else None), receive, send)
    for n in range(count):
        tasks.append(asyncio.create_task(one(n)))
        for _ in range(2000):                       # the n-th is answered (accepted or closed) before the next opens:
            if any(a[0] == n for a in answers):     # its seat lookup runs in a thread, whose order a busy machine
                break                               # does not keep
            await asyncio.sleep(0.005)
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
    from lcsm_explorer.app.kit.session_ledger import STALE_S, SessionLedger
    first, second = SessionLedger(tmp_path / "runs.sqlite"), SessionLedger(tmp_path / "runs.sqlite")
    second.process = "another-host:1:1"                          # a second web process on the same store file
    visitor, now = f"address:{VISITOR}", 1000.0
    assert first.take(visitor, 3, now) and second.take(visitor, 3, now) and first.take(visitor, 3, now)
    assert not second.take(visitor, 3, now) and first.held(visitor, now) == 3
    assert second.take("address:198.51.100.1", 3, now)          # every visitor has their own
    first.drop(visitor)
    assert second.take(visitor, 3, now)                         # a closed tab frees its place in the tier
    assert first.held(visitor, now + STALE_S + 1) == 0          # a killed process's rows age out


def page_asked(app, **kw) -> int:
    """The status of a page asked for through `app`."""
    answer = []

    async def send(message):
        answer.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}
    asyncio.run(app(scope("http", "/spring", **kw), receive, send))
    return answer[0]["status"]


def test_fresh_cookies_do_not_multiply_a_clients_tabs_but_a_class_behind_one_address_gets_a_share_each():
    async def run(app, cookies):
        answers, close, tasks = await open_streams(app, len(cookies), cookies=cookies)
        close.set()
        await asyncio.gather(*tasks)
        return sorted(n for n, kind, _ in answers if kind == "websocket.close")
    app = FairShare(streamlit_like, most=2)
    minted = [tokens.mint("browser") for _ in range(4)]
    assert asyncio.run(run(app, minted)) == [2, 3]                  # four fresh cookies, one address: still 2 tabs
    code = seat(tokens.mint("browser"))                              # the teacher's class, made by the operator
    learners = [tokens.mint("browser") for _ in range(4)]
    for cookie in learners:                                          # each opens the class link: seated at the door
        assert page_asked(app, cookie=cookie, query=f"class={code}") == 200
    assert asyncio.run(run(app, learners)) == []                     # four learners behind one address: a tab each
    assert asyncio.run(run(app, [learners[0]] * 3)) == [2]           # and each learner holds at most 2


def test_a_first_page_with_a_class_link_seats_the_fresh_browser_before_its_tab_opens():
    from lcsm_explorer.app.kit.browser_identity import BrowserIdentity
    code = seat(tokens.mint("browser"))
    set_cookies = []

    async def send(message):
        if message["type"] == "http.response.start":
            set_cookies.extend(v.decode() for k, v in message["headers"] if k == b"set-cookie")

    async def receive():
        return {"type": "http.request", "body": b""}
    app = BrowserIdentity(FairShare(streamlit_like, most=2))
    asyncio.run(app(scope("http", "/spring", query=f"class={code}"), receive, send))
    fresh = set_cookies[0].split(";")[0].split("=", 1)[1]
    fair_share._SEATS.clear()                                        # read from the store, not the kept answer
    assert fair_share.seated(fresh) and visitor_of(fresh, VISITOR).startswith("browser:")


def test_runs_past_the_seats_go_in_one_visitor_at_a_time_in_turn():
    import threading
    import time

    from lcsm_explorer.app.kit.fair_share import Turns
    turns, order = Turns(seats=1), []
    assert turns.enter("address:hostile")                          # a seat free: straight in

    def run(visitor):
        turns.enter(visitor, timeout=10)
        order.append(visitor)
        turns.leave()
    waiting = []
    for visitor in ["address:hostile"] * 4 + ["browser:a", "browser:b"]:   # a burst, then two learners
        waiting.append(threading.Thread(target=run, args=(visitor,)))
        waiting[-1].start()
        time.sleep(0.05)
    turns.leave()
    for thread in waiting:
        thread.join(10)
    assert order == ["address:hostile", "browser:a", "browser:b", "address:hostile", "address:hostile",
                     "address:hostile"]
    assert turns.running == 0
    late = Turns(seats=1)
    late.enter("x")
    assert late.enter("y", timeout=0.05) is False and late.running == 2           # late, never dropped

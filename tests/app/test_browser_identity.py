"""One identity per browser (app/kit/browser_identity.py): the server's HttpOnly cookie, set on a page without a
valid one, from which the tab's owner and learner tokens are derived; a link carrying another browser's token is
not taken (the page says whose it is); a new learner on a shared computer by a same-origin POST only."""
from __future__ import annotations

import asyncio

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from streamlit.testing.v1 import AppTest

from lcsm_explorer.app.kit import browser_identity
from lcsm_explorer.app.kit.browser_identity import COOKIE, NEW_LEARNER_PATH, BrowserIdentity, back_to
from lcsm_explorer.app.kit.host_guard import HostGuard
from lcsm_serving import tokens


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return tmp_path


# --- tokens of a browser ----------------------------------------------------------------------------------------
def test_a_browsers_tokens_are_its_own_signed_and_the_same_every_time(data_dir):
    one, two = tokens.mint("browser"), tokens.mint("browser")
    owner = tokens.of_browser("owner", one)
    assert owner == tokens.of_browser("owner", one) and tokens.verify(owner, "owner")
    assert owner != tokens.of_browser("owner", two)
    assert tokens.of_browser("learner", one) not in (owner, tokens.of_browser("learner", two))
    assert not tokens.verify(owner, "learner") and not tokens.verify(one, "owner")
    with pytest.raises(ValueError):
        tokens.of_browser("browser", one)


# --- the cookie ---------------------------------------------------------------------------------------------
class Answer:
    def __init__(self, status: int, headers: list[tuple[str, str]], text: str):
        self.status_code, self.headers, self.text = status, headers, text

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k == name), None)


def site():
    """A page, a script and the new-learner route behind the guard and the identity, as app/serve.py stacks them."""
    async def page(request):
        return HTMLResponse("<html>page</html>")

    async def script(request):
        return Response("let x = 1;", media_type="text/javascript")
    return Starlette(routes=[Route("/", page), Route("/static/app.js", script), *browser_identity.routes()],
                     middleware=[Middleware(HostGuard, allowed=frozenset({"testserver"})),
                                 Middleware(BrowserIdentity)])


def ask(app, path: str = "/", method: str = "GET", scheme: str = "http", **headers: str) -> Answer:
    """One HTTP request through the ASGI app (no client library: the app is called as a server would)."""
    route, _, query = path.partition("?")
    sent = [(b"host", b"testserver")] + [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": scheme,
             "path": route, "raw_path": route.encode(), "query_string": query.encode(), "root_path": "",
             "headers": sent, "server": ("testserver", 443 if scheme == "https" else 80), "client": ("127.0.0.1", 5)}
    got: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        got.append(message)
    asyncio.run(app(scope, receive, send))
    start = next(m for m in got if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in got if m["type"] == "http.response.body")
    return Answer(start["status"], [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in start["headers"]],
                  body.decode())


def set_cookie(answer: Answer) -> str | None:
    found = [v for k, v in answer.headers if k == "set-cookie" and v.startswith(COOKIE)]
    assert len(found) <= 1
    return found[0] if found else None


def cookie_value(header: str) -> str:
    return header.split(";", 1)[0].split("=", 1)[1]


def test_a_page_without_an_identity_gets_one_httponly_samesite_and_its_scripts_do_not(data_dir):
    header = set_cookie(ask(site(), "/"))
    assert header is not None and tokens.verify(cookie_value(header), "browser")
    parts = {p.strip().split("=")[0] for p in header.split(";")}
    assert {"HttpOnly", "SameSite", "Path", "Max-Age"} <= parts and "Secure" not in parts
    assert "SameSite=Lax" in header and "Path=/" in header
    assert set_cookie(ask(site(), "/static/app.js")) is None       # parallel requests must not each mint one


def test_a_valid_identity_is_kept_and_a_forged_one_replaced(data_dir):
    held = tokens.mint("browser")
    assert set_cookie(ask(site(), "/", cookie=f"{COOKIE}={held}")) is None
    assert set_cookie(ask(site(), "/", cookie=f"a=1; {COOKIE}={held}; b=2")) is None
    for forged in ("0" * 64, held[:-1] + ("0" if held[-1] != "0" else "1"), tokens.mint("owner"), "x", ""):
        header = set_cookie(ask(site(), "/", cookie=f"{COOKIE}={forged}"))
        assert header is not None and cookie_value(header) != forged, forged
        assert tokens.verify(cookie_value(header), "browser")


def test_over_https_the_cookie_is_secure(data_dir):
    assert "Secure" in set_cookie(ask(site(), "/", scheme="https"))
    assert "Secure" in set_cookie(ask(site(), "/", x_forwarded_proto="https"))


# --- a new learner on this computer ---------------------------------------------------------------------------
def test_a_get_only_asks_and_a_same_origin_post_starts_a_new_learner(data_dir):
    held = tokens.mint("browser")
    path = f"{NEW_LEARNER_PATH}?next=%2Fspring%3Fclass%3DABC123"
    asked = ask(site(), path, cookie=f"{COOKIE}={held}")
    assert asked.status_code == 200 and '<form method="post"' in asked.text and set_cookie(asked) is None
    assert 'href="/spring?class=ABC123"' in asked.text                 # "keep learning as I am"
    done = ask(site(), path, method="POST", cookie=f"{COOKIE}={held}", origin="http://testserver")
    assert done.status_code == 303 and done.header("location") == "/spring?class=ABC123"
    new = cookie_value(set_cookie(done))
    assert new != held and tokens.verify(new, "browser")
    foreign = ask(site(), path, method="POST", cookie=f"{COOKIE}={held}", origin="https://evil.example")
    assert foreign.status_code == 403 and set_cookie(foreign) is None   # another site cannot reset a learner


@pytest.mark.parametrize("raw", ["//evil.example/x", "https://evil.example", "/\\evil.example", "evil", "", None,
                                 "http:/x"])
def test_the_way_back_is_a_path_of_this_app(raw):
    assert back_to(raw) == "/"
    assert back_to("/rings?class=AB12CD") == "/rings?class=AB12CD"


# --- tokens in a page ------------------------------------------------------------------------------------------
TOKENS_SCRIPT = """
import streamlit as st
from lcsm_explorer.app.kit.owner import owner_token
from lcsm_explorer.app.kit.progress import learner_token, score_keeper
st.write("owner:" + owner_token())
st.write("learner:" + learner_token())
st.write("keeper:" + score_keeper())
"""


def tab(monkeypatch, browser: str | None, query: dict | None = None) -> AppTest:
    monkeypatch.setattr(browser_identity, "browser_token", lambda: browser)
    at = AppTest.from_string(TOKENS_SCRIPT, default_timeout=30)
    for name, value in (query or {}).items():
        at.query_params[name] = value
    return at.run()


def shown(at: AppTest, name: str) -> str:
    return next(m.value for m in at.markdown if m.value.startswith(name + ":"))[len(name) + 1:]


def test_every_tab_of_a_browser_is_one_owner_and_one_learner(data_dir, monkeypatch):
    browser = tokens.mint("browser")
    first, second = tab(monkeypatch, browser), tab(monkeypatch, browser)
    assert shown(first, "owner") == shown(second, "owner") == tokens.of_browser("owner", browser)
    assert shown(first, "learner") == shown(second, "learner") == tokens.of_browser("learner", browser)
    assert shown(first, "keeper") == "this browser"
    assert first.query_params["owner"] == shown(first, "owner")
    assert not first.info                                             # nothing to say


def test_a_link_with_another_browsers_tokens_is_not_taken_and_says_so(data_dir, monkeypatch):
    victim, attacker = tokens.mint("browser"), tokens.mint("browser")
    link = {"owner": tokens.of_browser("owner", victim), "learner": tokens.of_browser("learner", victim)}
    at = tab(monkeypatch, attacker, link)
    assert shown(at, "owner") == tokens.of_browser("owner", attacker) != link["owner"]
    assert shown(at, "learner") == tokens.of_browser("learner", attacker) != link["learner"]
    notes = " ".join(i.value for i in at.info)
    assert "another browser's owner token" in notes and "read-only" in notes
    assert "another browser's learner token" in notes
    forged = tab(monkeypatch, attacker, {"owner": "0" * 64})
    assert "was not issued by this server" in " ".join(i.value for i in forged.info)


def test_without_an_identity_a_tab_keeps_its_own_signed_token(data_dir, monkeypatch):
    first = tab(monkeypatch, None)
    assert shown(first, "keeper") == "this tab"
    again = tab(monkeypatch, None, {"owner": shown(first, "owner")})      # a reload: the link's signed token
    assert shown(again, "owner") == shown(first, "owner")
    assert shown(tab(monkeypatch, None), "owner") != shown(first, "owner")

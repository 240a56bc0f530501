"""One identity per browser, set by the server: the HttpOnly cookie `lcsm_browser` that binds a tab's owner and
learner tokens to the browser that holds it.

A signed token in a link proves only that this server minted it, not that the browser opening the link owns it:
copied into a link, a Train live `?owner=` let whoever opened it drive the run its first holder started. So the
server gives each browser a token of its own (`lcsm_serving.tokens`, purpose "browser") in a cookie that page scripts
cannot read (HttpOnly), that other sites' requests do not carry (SameSite=Lax) and that the websocket of every tab
sends; a page reads it with Streamlit's public `st.context.cookies`, and the tab's owner and learner tokens are
derived from it (`tokens.of_browser`). Every tab, reload, reopened link and web process (the key is shared through
the data folder, and a backup of that folder keeps it) of one browser is then the same learner and owner; a link
carrying another browser's token opens as this browser's own, read-only where it shows another's run.

- `BrowserIdentity`, ASGI middleware (app/serve.py): a page (an HTML response) requested without a valid cookie
  gets a fresh one. Only HTML: the page's scripts and styles, requested in parallel, must not each mint another.
- `NEW_LEARNER_PATH` (a route, `routes()`): "a new learner on this computer", for a classroom's shared machines. A GET
  shows a one-button form; its POST (same origin only: app/kit/host_guard.py refuses another origin's) sets a fresh
  cookie and returns to the page it came from. A GET does not change the identity, so another site cannot reset
  a learner's by linking to it.
- `browser_token()`: the identity a script run sees, or None (no cookie: a bare `streamlit run
  app/streamlit_app.py`, AppTest, a browser that refuses cookies): tabs then keep per-tab tokens, as before.
"""
from __future__ import annotations

import html
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, urlsplit

from lcsm_serving import tokens

COOKIE = "lcsm_browser"
MAX_AGE_S = 400 * 24 * 3600          # the longest a browser keeps a cookie (Chromium caps Max-Age at 400 days)
NEW_LEARNER_PATH = "/lcsm-identity/new"


def browser_token() -> str | None:
    """The browser's own token from its cookie when this server signed it, else None."""
    import streamlit as st
    try:
        value = st.context.cookies.get(COOKIE)
    except Exception:                                  # outside a script run, or a context without cookies
        return None
    return value if valid(value) else None


def valid(value: object) -> bool:
    try:
        return tokens.verify(value, "browser")
    except OSError:                                    # no key: no identity (tabs keep their own tokens)
        return False


def cookie_of(scope: dict) -> str | None:
    """The `lcsm_browser` value of a request's Cookie header, or None."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"cookie":
            try:
                jar = SimpleCookie(value.decode("latin-1"))
            except CookieError:
                continue
            if COOKIE in jar:
                return jar[COOKIE].value
    return None


def set_cookie_header(scope: dict, token: str) -> tuple[bytes, bytes]:
    """The Set-Cookie header of a fresh identity; Secure when the page was asked for over HTTPS (directly, or
    through the TLS proxy that says so)."""
    secure = scope.get("scheme") == "https" or _header(scope, b"x-forwarded-proto") == "https"
    parts = [f"{COOKIE}={token}", "Path=/", f"Max-Age={MAX_AGE_S}", "HttpOnly", "SameSite=Lax"]
    return b"set-cookie", "; ".join(parts + (["Secure"] if secure else [])).encode("latin-1")


def _header(scope: dict, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", []):
        if name.lower() == wanted:
            return value.decode("latin-1").strip().lower()
    return None


FRESH = "lcsm.fresh_browser"          # the scope key of the identity a page's response is about to set


def identity_of(scope: dict) -> str | None:
    """The browser identity a request counts under: its valid cookie, else the fresh one its page's response sets
    (so the middleware after this one can seat a learner whose first page this is), else None."""
    cookie = cookie_of(scope)
    return cookie if valid(cookie) else scope.get(FRESH)


class BrowserIdentity:
    """ASGI middleware: an HTML response to a request without a valid identity cookie sets a fresh one (minted
    before the request goes on, for `identity_of`; set on HTML responses only)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or valid(cookie_of(scope)):
            await self.app(scope, receive, send)
            return
        try:
            token = tokens.mint("browser")
        except OSError:                                # no key can be kept: no identity, tabs keep their own
            await self.app(scope, receive, send)
            return
        scope = {**scope, FRESH: token}

        async def send_with_identity(message):
            if message["type"] == "http.response.start" and _is_html(message):
                message = {**message, "headers": [*message.get("headers", []), set_cookie_header(scope, token)]}
            await send(message)
        await self.app(scope, receive, send_with_identity)


def _is_html(message: dict) -> bool:
    return any(name.lower() == b"content-type" and value.lower().startswith(b"text/html")
               for name, value in message.get("headers", []))


# --- a new learner on this computer -------------------------------------------------------------------------
def back_to(raw: str | None) -> str:
    """Where to return after the new identity: a path of this app (never another site: "//host" or a scheme is
    refused), "/" by default."""
    if not raw or not raw.startswith("/") or raw.startswith("//") or "\\" in raw:
        return "/"
    parts = urlsplit(raw)
    if parts.scheme or parts.netloc:
        return "/"
    return raw


def new_learner_link(page_path: str, class_code: str | None = None) -> str:
    """The link to the new-learner form, returning to `page_path` (and rejoining the class, where there is one)."""
    from urllib.parse import quote, urlencode
    back = page_path + (f"?{urlencode({'class': class_code})}" if class_code else "")
    return f"{NEW_LEARNER_PATH}?next={quote(back, safe='')}"


FORM = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>New learner on this computer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font:18px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}}
button{{font:inherit;padding:.6rem 1.2rem;min-height:44px;border-radius:.5rem;border:2px solid #1f4e9c;
background:#1f4e9c;color:#fff;cursor:pointer}}
button:focus-visible{{outline:3px solid #111;outline-offset:3px}}a{{color:#1f4e9c}}</style>
</head><body><main><h1>A new learner on this computer</h1>
<p>This browser will start again as a new learner: no score, no runs of its own, as if opened for the first time.
The score so far stays with the learner who earned it (their teacher's class view still counts it), but this
browser will not return to it.</p>
<form method="post" action="{action}"><button type="submit">Start as a new learner</button></form>
<p><a href="{back}">Keep learning as I am</a></p></main></body></html>"""


def routes() -> list:
    """The new-learner route for `st.App(routes=...)`."""
    from starlette.responses import HTMLResponse, RedirectResponse
    from starlette.routing import Route

    async def new_learner(request):
        back = back_to((parse_qs(request.url.query).get("next") or ["/"])[0])
        if request.method == "GET":
            action = f"{NEW_LEARNER_PATH}?{request.url.query}" if request.url.query else NEW_LEARNER_PATH
            return HTMLResponse(FORM.format(action=html.escape(action), back=html.escape(back)),
                                headers={"Cache-Control": "no-store"})
        response = RedirectResponse(back, status_code=303, headers={"Cache-Control": "no-store"})
        name, value = set_cookie_header(request.scope, tokens.mint("browser"))
        response.raw_headers.append((name, value))
        return response
    return [Route(NEW_LEARNER_PATH, new_learner, methods=["GET", "POST"])]

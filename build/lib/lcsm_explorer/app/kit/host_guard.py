"""Refuse requests addressed to a host the app does not serve (DNS rebinding) or sent from another origin.

A page on evil.example whose DNS name is rebound to 127.0.0.1 reaches the app with `Host: evil.example`
and a matching `Origin`; Streamlit checks neither on plain HTTP, and on its websocket it accepts any
Host and any `http://localhost:<port>` Origin. This ASGI middleware, installed by app/serve.py (the
README's app command), answers 403 to every HTTP request and websocket upgrade whose Host is not in
the allowed list, or whose Origin, when one is sent, is not the very host and port the request went to.

LCSM_ALLOWED_HOSTS: comma-separated host names the app may be reached by (ports are not part of
them), default "127.0.0.1,localhost"; `server.address`, when set to a specific address, is added;
"*" turns the host check off (the Origin check stays).

Not this guard's doing: a lesson's deep link (`/spring`) makes the browser request `/spring/_stcore/health`
(and `/spring/_stcore/host-config`) and get 404 before it connects. Streamlit's frontend cannot tell a page
path from a base path (`server.baseUrlPath`), so it pings the link's own path first, then the root after its
first retry delay (measured in chromium: the 404s, then the root's pings 100 ms later). The 404 is
Streamlit's answer and the right one (answering 200 would make `/spring` the base path of every later
request); the guard passes both pings, as tests/app/test_host_guard.py checks.

No framing: every HTTP response the guard lets through or refuses carries
`X-Frame-Options: DENY` and `Content-Security-Policy: frame-ancestors 'none'`, so a foreign page cannot load
the app in an (invisible) iframe with a live websocket and click its buttons for the visitor.
"""
from __future__ import annotations

import os
from urllib.parse import urlsplit

ENV_ALLOWED_HOSTS = "LCSM_ALLOWED_HOSTS"
DEFAULT_ALLOWED_HOSTS = ("127.0.0.1", "localhost")
ANY_ADDRESS = ("", "0.0.0.0", "::")            # listen addresses, not names a browser uses
DEFAULT_PORTS = {"http": 80, "https": 443}
NO_FRAMING = ((b"x-frame-options", b"DENY"), (b"content-security-policy", b"frame-ancestors 'none'"))


def allowed_hosts(environ=os.environ, server_address: str | None = None) -> frozenset[str]:
    """The host names to accept: LCSM_ALLOWED_HOSTS (or the default) plus a specific server.address."""
    raw = environ.get(ENV_ALLOWED_HOSTS)
    names = list(raw.split(",") if raw is not None else DEFAULT_ALLOWED_HOSTS)
    if server_address and server_address.strip() not in ANY_ADDRESS:
        names.append(server_address)
    return frozenset(normal_name(n) for n in names if n.strip())


def normal_name(name: str) -> str:
    """Lower case, no trailing dot, no brackets around an IPv6 address."""
    return name.strip().lower().rstrip(".").strip("[]")


def split_host(host: str | None) -> tuple[str, int | None] | None:
    """A Host header as (name, port), or None when it is missing or not a plain host[:port]."""
    if not host:
        return None
    try:
        parts = urlsplit(f"//{host}")
        port = parts.port                                           # raises ValueError for a bad port
    except ValueError:
        return None
    if not parts.hostname or parts.username is not None or parts.password is not None or parts.path \
            or parts.query or parts.fragment:
        return None
    return normal_name(parts.hostname), port


def same_origin(origin: str, host: str) -> bool:
    """Whether an Origin header names the host and port the request was sent to.

    A Host without a port means the default port of the scheme the browser used, which for a page of
    this app is the origin's scheme (behind a TLS proxy the server itself may see plain http)."""
    try:
        parts = urlsplit(origin)
        origin_port = parts.port
    except ValueError:
        return False
    target = split_host(host)
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or target is None:
        return False
    default = DEFAULT_PORTS[parts.scheme]
    return normal_name(parts.hostname) == target[0] and (origin_port or default) == (target[1] or default)


def refusal(scope: dict, allowed: frozenset[str]) -> str | None:
    """Why a request is refused, or None when it may pass."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    host = headers.get("host")
    target = split_host(host)
    if target is None:
        return f"the Host header {host!r} is not a host name"
    if "*" not in allowed and target[0] not in allowed:
        return f"the host {target[0]!r} is not allowed (set {ENV_ALLOWED_HOSTS} to serve it)"
    origin = headers.get("origin")
    if origin is not None and not same_origin(origin, host):
        return f"the origin {origin!r} is not this app ({host})"
    return None


class HostGuard:
    """ASGI middleware: 403 for an HTTP request or websocket upgrade that `refusal` turns away."""

    def __init__(self, app, allowed: frozenset[str] | None = None):
        self.app = app
        self.allowed = allowed_hosts(server_address=configured_address()) if allowed is None else allowed

    async def __call__(self, scope, receive, send):
        reason = refusal(scope, self.allowed) if scope["type"] in ("http", "websocket") else None
        if reason is None:
            await self.app(scope, receive, without_framing(send) if scope["type"] == "http" else send)
        elif scope["type"] == "http":
            body = f"403 Forbidden: {reason}\n".encode()
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode()), *NO_FRAMING]})
            await send({"type": "http.response.body", "body": body})
        else:
            await receive()                                         # websocket.connect
            await send({"type": "websocket.close", "code": 1008})   # before accept: the server answers 403


def without_framing(send):
    """`send` with the no-framing headers added to the response's start (replacing any the app set)."""
    names = {name for name, _ in NO_FRAMING}

    async def send_unframed(message):
        if message["type"] == "http.response.start":
            kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
            message = {**message, "headers": [*kept, *NO_FRAMING]}
        await send(message)
    return send_unframed


def configured_address() -> str | None:
    from streamlit import config
    return config.get_option("server.address")

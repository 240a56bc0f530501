"""The host guard (issue 13, item 5): the app started as the README does refuses a forged Host (DNS
rebinding) and a foreign Origin, on HTTP and on the websocket, and still serves its own host. Loopback only."""
import asyncio
import base64
import os
import socket
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest

from lcsm_explorer.app.kit.host_guard import HostGuard, allowed_hosts, refusal, same_origin, split_host
from tests.browser.app_server import running_app

pytestmark = pytest.mark.xdist_group("host_guard")     # one test process starts its server (--dist loadgroup)


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("data")) as url:
        yield url


def port_of(url: str) -> int:
    return urlsplit(url).port


def get(url: str, path: str = "/", **headers) -> tuple[int, bytes]:
    status, body, _ = get_with_headers(url, path, **headers)
    return status, body


def get_with_headers(url: str, path: str = "/", **headers):
    """(status, body, response headers) of a GET."""
    request = urllib.request.Request(url + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers


def websocket_upgrade(port: int, host: str, origin: str | None = None) -> str:
    """The status line the server answers a websocket handshake on /_stcore/stream with."""
    lines = ["GET /_stcore/stream HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}", "Sec-WebSocket-Version: 13"]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        return conn.recv(4096).split(b"\r\n")[0].decode()


def test_the_allowed_host_loads_the_page_and_opens_the_websocket(app_url):
    port = port_of(app_url)
    status, body = get(app_url)
    assert status == 200 and b"<html" in body.lower()
    assert get(app_url, "/_stcore/health", Host=f"localhost:{port}") == (200, b"ok")
    assert " 101 " in websocket_upgrade(port, f"127.0.0.1:{port}", f"http://127.0.0.1:{port}")
    assert " 101 " in websocket_upgrade(port, f"localhost:{port}", f"http://localhost:{port}")
    assert " 101 " in websocket_upgrade(port, f"127.0.0.1:{port}")          # a non-browser client sends no Origin


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example:{port}"])
def test_a_forged_host_is_refused_on_http(app_url, host):
    status, body = get(app_url, "/", Host=host.format(port=port_of(app_url)))
    assert status == 403 and b"LCSM_ALLOWED_HOSTS" in body
    assert get(app_url, "/_stcore/health", Host=host.format(port=port_of(app_url)))[0] == 403


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}"])
def test_a_forged_host_is_refused_on_the_websocket_even_with_a_matching_origin(app_url, host):
    """The DNS-rebinding pattern: a page on evil.example, rebound to 127.0.0.1, talks to its own origin."""
    port = port_of(app_url)
    host = host.format(port=port)
    assert " 403 " in websocket_upgrade(port, host, f"http://{host}")


@pytest.mark.parametrize("origin", ["http://localhost:{other}", "http://127.0.0.1:{other}", "http://localhost:{port}",
                                    "http://evil.example:{port}", "null"])
def test_a_foreign_origin_is_refused_on_the_websocket_and_on_http(app_url, origin):
    port = port_of(app_url)
    origin = origin.format(port=port, other=port + 1)
    assert " 403 " in websocket_upgrade(port, f"127.0.0.1:{port}", origin)
    assert get(app_url, "/", Origin=origin)[0] == 403


@pytest.mark.parametrize("path, host", [("/", None), ("/paper_lab", None), ("/_stcore/health", None),
                                        ("/_stcore/host-config", None), ("/spring/_stcore/health", None),
                                        ("/", "evil.example")])
def test_every_response_forbids_framing(app_url, path, host):
    """Issue 24, item 8: a foreign page loaded /paper_lab in an invisible iframe with a live websocket. Every
    answer (the page, the endpoints, a 404, a refusal) now tells the browser not to frame it."""
    status, _, headers = get_with_headers(app_url, path, **({"Host": host} if host else {}))
    assert headers["X-Frame-Options"] == "DENY", (path, status)
    assert headers["Content-Security-Policy"] == "frame-ancestors 'none'", (path, status)


def test_the_guard_replaces_framing_headers_the_app_set():
    """One X-Frame-Options, ours, whatever the app behind the guard sent."""
    sent = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"X-Frame-Options", b"SAMEORIGIN"), (b"content-type", b"text/html")]})

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "headers": [(b"host", b"localhost:8501")]}
    asyncio.run(HostGuard(app, frozenset({"localhost"}))(scope, None, send))
    headers = [(k.lower(), v) for k, v in sent[0]["headers"]]
    assert [v for k, v in headers if k == b"x-frame-options"] == [b"DENY"]
    assert (b"content-security-policy", b"frame-ancestors 'none'") in headers
    assert (b"content-type", b"text/html") in headers


# -- the rules, without a server -------------------------------------------------------------------------

def test_a_deep_links_first_probe_is_streamlits_own_404_not_the_guards(app_url):
    """Issue 21: a lesson's deep link requests /<page>/_stcore/health and gets 404. Streamlit's frontend, opened
    at /spring, cannot tell a page path from a base path (server.baseUrlPath), so it pings /spring/_stcore/health
    first, then / after its first retry delay (100 ms). The 404 comes from Streamlit, not from the guard (a
    refusal is 403), and answering it would be wrong: the frontend would then take /spring as the base path."""
    for probe in ("/spring/_stcore/health", "/spring/_stcore/host-config"):
        status, body = get(app_url, probe)
        assert status == 404 and not body.startswith(b"403"), probe
    assert get(app_url, "/_stcore/health") == (200, b"ok")
    assert get(app_url, "/spring")[0] == 200


def test_allowed_hosts_come_from_the_setting_and_a_specific_server_address():
    assert allowed_hosts({}) == {"127.0.0.1", "localhost"}
    assert allowed_hosts({}, server_address="0.0.0.0") == {"127.0.0.1", "localhost"}
    assert allowed_hosts({}, server_address="192.168.1.5") == {"127.0.0.1", "localhost", "192.168.1.5"}
    assert allowed_hosts({"LCSM_ALLOWED_HOSTS": " Lab.Example. , localhost"}) == {"lab.example", "localhost"}


@pytest.mark.parametrize("host, parsed", [
    ("127.0.0.1:8501", ("127.0.0.1", 8501)), ("LOCALHOST", ("localhost", None)), ("[::1]:80", ("::1", 80)),
    ("", None), (None, None), ("a:b", None), ("user@localhost", None), ("localhost/x", None), ("h:99999", None),
])
def test_split_host(host, parsed):
    assert split_host(host) == parsed


def test_same_origin_needs_the_host_and_port_the_request_went_to():
    assert same_origin("http://localhost:8501", "localhost:8501")
    assert same_origin("https://lab.example", "lab.example")              # behind a TLS proxy: default ports
    assert same_origin("http://lab.example:80", "lab.example")
    assert not same_origin("https://lab.example", "lab.example:80")
    assert not same_origin("http://localhost:8502", "localhost:8501")
    assert not same_origin("http://127.0.0.1:8501", "localhost:8501")      # another name is another origin
    assert not same_origin("null", "localhost:8501")
    assert not same_origin("ftp://localhost:8501", "localhost:8501")


def test_a_star_turns_the_host_check_off_but_not_the_origin_check():
    scope = lambda host, origin=None: {"type": "http", "scheme": "http", "headers": [(b"host", host.encode())] + (
        [(b"origin", origin.encode())] if origin else [])}
    assert refusal(scope("lab.example:8501"), frozenset({"*"})) is None
    assert refusal(scope("lab.example:8501", "http://other.example:8501"), frozenset({"*"}))
    assert refusal(scope("lab.example:8501"), frozenset({"localhost"}))


def test_behind_haproxy_the_public_host_and_origin_pass_and_the_check_host_too():
    """HAProxy (app/web_tier.py) passes the browser's Host through: Host and Origin both name the public
    port, not the web process's own loopback port; its health check sends Host 127.0.0.1 with no Origin."""
    scope = lambda host, origin=None: {"type": "websocket", "headers": [(b"host", host.encode())] + (
        [(b"origin", origin.encode())] if origin else [])}
    web_process = allowed_hosts({}, server_address="127.0.0.1")
    assert refusal(scope("127.0.0.1:8501", "http://127.0.0.1:8501"), web_process) is None
    assert refusal(scope("localhost:8501", "http://localhost:8501"), web_process) is None
    assert refusal(scope("127.0.0.1"), web_process) is None                              # the health check
    assert refusal(scope("127.0.0.1:8501", "http://127.0.0.1:41001"), web_process)      # an internal port's page
    assert refusal(scope("evil.example:8501", "http://evil.example:8501"), web_process)  # rebinding, proxied

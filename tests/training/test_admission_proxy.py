"""Whose address a quota counts under, behind the project's HAProxy (issue 24 item 1): the web processes believe
X-Forwarded-For only from HAProxy, HAProxy replaces any the client sent, and one process with nothing in front
believes none. Streamlit's server is uvicorn, whose proxy-header middleware sets the client address
st.context.ip_address reports (app/kit/visitor.py) from the peers in FORWARDED_ALLOW_IPS."""
import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from lcsm_explorer.app import web_tier

FORGED = "203.0.113.99"


def client_seen(peer: str, forwarded: list[str], trusted: str) -> str:
    """The client address the app sees for a request from `peer` carrying these X-Forwarded-For headers, under
    uvicorn's middleware trusting `trusted` (the FORWARDED_ALLOW_IPS value)."""
    seen = {}

    async def app(scope, receive, send):
        seen["client"] = scope["client"][0]

    scope = {"type": "websocket", "client": (peer, 5000), "headers": [(b"x-forwarded-for", v.encode())
                                                                       for v in forwarded]}
    asyncio.run(ProxyHeadersMiddleware(app, trusted_hosts=trusted)(scope, None, None))
    return seen["client"]


def test_the_web_tier_trusts_haproxy_behind_it_and_nobody_for_one_process(tmp_path, monkeypatch):
    tier = web_tier.Tier(2, "127.0.0.1", 8600, tmp_path)
    assert {c.env["FORWARDED_ALLOW_IPS"] for c in tier.web} == {"127.0.0.1"}
    config = (tmp_path / "haproxy.cfg").read_text()
    assert "http-request del-header X-Forwarded-For" in config and "option forwardfor" in config

    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "restored after the test")
    monkeypatch.delenv("FORWARDED_ALLOW_IPS")
    monkeypatch.setattr(web_tier.os, "execv", lambda *args: (_ for _ in ()).throw(SystemExit("exec")))
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))     # main() puts the packages first on it
    with pytest.raises(SystemExit, match="exec"):
        web_tier.main(["--processes", "1"])
    assert os.environ["FORWARDED_ALLOW_IPS"] == ""                   # what the single process inherits
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.0.0.5")            # an operator's own proxy is kept
    with pytest.raises(SystemExit, match="exec"):
        web_tier.main(["--processes", "1"])
    assert os.environ["FORWARDED_ALLOW_IPS"] == "10.0.0.5"


def test_uvicorn_reads_the_setting_and_believes_the_header_only_from_the_proxy(monkeypatch):
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "127.0.0.1")
    assert Config(app=None).forwarded_allow_ips == "127.0.0.1"       # Streamlit passes no value: the env decides
    assert client_seen("127.0.0.1", ["198.51.100.9"], "127.0.0.1") == "198.51.100.9"     # via HAProxy
    assert client_seen("198.51.100.1", [FORGED], "127.0.0.1") == "198.51.100.1"          # a direct peer lies
    assert client_seen("127.0.0.1", [FORGED], "") == "127.0.0.1"                         # one process, no proxy
    # Why HAProxy must drop the client's header: a loopback client's own header would be believed.
    assert client_seen("127.0.0.1", [FORGED, "127.0.0.1"], "127.0.0.1") == FORGED


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ECHO_APP = """
import sys, uvicorn
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = b"ok" if scope["path"] == "/_stcore/health" else scope["client"][0].encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": body})
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def get(url: str, headers: dict) -> str | None:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as response:
            return response.read().decode()
    except OSError:
        return None


@pytest.mark.skipif(web_tier.haproxy_path() is None and os.environ.get("CI") != "true",
                    reason="HAProxy is not installed (bash scripts/install.sh --system-packages, as root)")
def test_through_the_real_haproxy_a_forged_forwarded_address_is_not_believed(tmp_path):
    backend, public = free_port(), free_port()
    env = dict(os.environ, FORWARDED_ALLOW_IPS="127.0.0.1")
    echo = subprocess.Popen([sys.executable, "-c", ECHO_APP, str(backend)], env=env)
    config = tmp_path / "haproxy.cfg"
    config.write_text(web_tier.haproxy_config("127.0.0.1", public, [("web1", backend)], tmp_path / "haproxy.sock"))
    proxy = subprocess.Popen([web_tier.haproxy_path(), "-f", str(config), "-db"], stdout=subprocess.DEVNULL)
    try:
        deadline, seen = time.monotonic() + 30, None
        while seen is None and time.monotonic() < deadline:
            seen = get(f"http://127.0.0.1:{public}/who", {"X-Forwarded-For": FORGED})
            time.sleep(0.2)
        assert seen == "127.0.0.1", seen                     # the address HAProxy saw, never the forged one
        # A process on this machine that skips HAProxy is believed: why the web processes listen on loopback only.
        assert get(f"http://127.0.0.1:{backend}/who", {"X-Forwarded-For": FORGED}) == FORGED
    finally:
        for proc in (proxy, echo):
            proc.terminate()
            proc.wait(10)

"""HTTPS through HAProxy: `lcsm-explorer serve --tls-cert --tls-key --http-port` with a self-signed certificate
(openssl) in front of one web process. A lesson opens over https, its websocket is wss, the identity cookie is
Secure, and plain HTTP answers with a redirect to the same path on https."""
import http.client
import os
import shutil
import signal
import subprocess
import sys

import pytest

from benchmarks.app_process import free_port
from lcsm_explorer.app import web_tier
from tests.browser.app_server import IN_CI, ROOT, needs_chromium, wait_healthy, wait_idle

HAPROXY_MISSING = "needs Debian's haproxy (bash scripts/install.sh --system-packages, as root); under CI=true: fails"
pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_chromium, pytest.mark.xdist_group("tls"),
              pytest.mark.skipif(web_tier.haproxy_path() is None and not IN_CI, reason=HAPROXY_MISSING),
              pytest.mark.skipif(shutil.which("openssl") is None and not IN_CI, reason="needs openssl")]


@pytest.fixture(scope="module")
def https_app(tmp_path_factory):
    where = tmp_path_factory.mktemp("tls")
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert],
                   check=True, capture_output=True, timeout=60)
    https, plain = free_port(), free_port()
    env = dict(os.environ, LCSM_DATA_DIR=str(where / "data"), LCSM_PREVIEW_MAX_LOAD="1e9")
    log = where / "serve.log"
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "lcsm_explorer", "serve", "--processes", "1", "--port",
                                   str(https), "--tls-cert", cert, "--tls-key", key, "--http-port", str(plain),
                                   "--run-dir", where / "run"], cwd=ROOT, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    url = f"https://127.0.0.1:{https}"
    try:
        wait_healthy(url, server, log, 240)
        yield url, plain, where
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(60)


def test_plain_http_redirects_to_the_same_path_on_https(https_app):
    url, plain_port, where = https_app
    connection = http.client.HTTPConnection("127.0.0.1", plain_port, timeout=10)
    connection.request("GET", "/spring?c=0.5", headers={"Host": f"127.0.0.1:{plain_port}"})
    answer = connection.getresponse()
    assert answer.status == 301 and answer.getheader("Location") == f"{url}/spring?c=0.5"
    assert "ssl crt" in (where / "run" / "haproxy.cfg").read_text()
    assert oct((where / "run" / "tls.pem").stat().st_mode & 0o777) == "0o600"


def test_a_lesson_over_https_talks_over_wss_and_its_cookie_is_secure(https_app, browser):
    url, _, _ = https_app
    context = browser.new_context(ignore_https_errors=True)
    try:
        page = context.new_page()
        sockets = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.goto(f"{url}/spring")
        wait_idle(page)
        assert "spring" in page.locator("h1").first.inner_text().lower()
        assert sockets and all(s.startswith("wss://127.0.0.1:") for s in sockets), sockets
        cookies = {c["name"]: c for c in context.cookies()}
        assert cookies["lcsm_browser"]["secure"] and cookies["LCSMWEB"]["secure"]     # identity and affinity
        response = page.request.get(f"{url}/_stcore/health")
        assert response.ok and "max-age" in response.headers.get("strict-transport-security", "")
    finally:
        context.close()

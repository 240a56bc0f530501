"""Real browser, issue 24 item 8: a foreign page that puts the app in an (invisible) iframe gets no app — the
browser refuses to draw it (X-Frame-Options / CSP frame-ancestors from the host guard) and no websocket opens, so
no hidden click can reach a button. The same page opened directly still loads."""
import http.server
import threading
import time

import pytest

from benchmarks.app_process import free_port
from tests.browser.app_server import needs_chromium

pytestmark = [pytest.mark.browser, needs_chromium]


def foreign_site(html: str):
    """An HTTP server on another loopback port (another origin) answering `html` to every GET."""
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_a_foreign_page_cannot_frame_the_app(app_url, browser):
    url = app_url
    before = len(browser.contexts)     # the pages this test opens: closed at its end
    site = foreign_site(f'<iframe id="app" src="{url}/paper_lab" style="opacity:0" width=800 height=600>'
                        "</iframe>")
    try:
        page = browser.new_page()
        sockets = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.goto(f"http://127.0.0.1:{site.server_address[1]}/")
        time.sleep(5)                                  # time enough for the app to connect, were it drawn
        frame = page.frame_locator("#app")
        assert frame.locator('[data-testid="stApp"]').count() == 0
        assert not [s for s in sockets if "_stcore/stream" in s], sockets
        direct = browser.new_page()
        direct.goto(f"{url}/paper_lab")
        direct.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
    finally:
        for context in browser.contexts[before:]:
            context.close()
        site.shutdown()

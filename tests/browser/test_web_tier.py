"""The web tier (issue 19, item 4): app/web_tier.py's HAProxy config and settings (no HAProxy needed), and
two web processes behind Debian's HAProxy driven by headless chromium: a tab sticks to one process (cookie
LCSMWEB), downloads work through the proxy, a tab whose process is killed -9 comes back on the other one from
its URL, and a run keeps training in the trainer service across the kill, still driven by its owner's tab."""
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from benchmarks.accessibility import PHONE
from benchmarks.app_process import AppServer, alive, children_of
from lcsm_explorer.app import web_tier
from tests.browser.app_server import IN_CI, ROOT, needs_chromium, wait_idle

SHOTS = ROOT / "tests" / "screenshots"

HAPROXY = web_tier.haproxy_path()
needs_haproxy = pytest.mark.skipif(HAPROXY is None and not IN_CI, reason="needs Debian's haproxy on PATH (bash "
                                   "scripts/install.sh --system-packages, as root, installs it); under CI=true: fails")
TRAINER_CLIENT = ROOT / "lcsm_serving" / "client.py"
HAS_SERVICE = web_tier.SERVICE_FILE.exists() and TRAINER_CLIENT.exists() \
    and "LCSM_TRAINER" in TRAINER_CLIENT.read_text(encoding="utf-8")
BACKENDS = [("web1", 41001), ("web2", 41002)]


# --- the config and the settings, without HAProxy ------------------------------------------------------------
def config_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_the_config_has_one_server_per_web_process_with_its_affinity_cookie(tmp_path):
    lines = config_lines(web_tier.haproxy_config("127.0.0.1", 8501, BACKENDS, tmp_path / "haproxy.sock"))
    assert "bind 127.0.0.1:8501" in lines
    assert [line for line in lines if line.startswith("server ")] == [
        "server web1 127.0.0.1:41001 check cookie web1", "server web2 127.0.0.1:41002 check cookie web2"]
    for essential in ("mode http", "balance roundrobin", "option redispatch 1", "timeout tunnel 1h",
                      "option httpchk", "http-check expect string ok", "http-response set-header X-LCSM-Web %s"):
        assert essential in lines, essential
    assert any(line.startswith("cookie LCSMWEB insert indirect nocache") for line in lines)
    # the host guard refuses a request without an allowed Host: the health check sends one
    assert "http-check send meth GET uri /_stcore/health ver HTTP/1.1 hdr Host 127.0.0.1" in lines
    assert f'stats socket "{tmp_path / "haproxy.sock"}" mode 600 level operator' in lines
    assert not any("$" in line for line in lines if not line.startswith("http-response"))


@pytest.mark.parametrize("address, bind", [("127.0.0.1", "127.0.0.1:8600"), ("0.0.0.0", "0.0.0.0:8600"),
                                           ("", "0.0.0.0:8600"), ("::", ":::8600 v4v6"), ("::1", "[::1]:8600"),
                                           ("lab.example.org", "lab.example.org:8600")])
def test_the_public_address_becomes_one_bind_line(address, bind):
    assert web_tier.bind_spec(address, 8600) == bind


@needs_haproxy
@pytest.mark.parametrize("address", ["127.0.0.1", "0.0.0.0", "::1"])
def test_haproxy_accepts_the_written_config(tmp_path, address):
    path = tmp_path / "haproxy.cfg"
    path.write_text(web_tier.haproxy_config(address, 8600, BACKENDS, tmp_path / "haproxy.sock"))
    result = subprocess.run([HAPROXY, "-c", "-f", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_number_of_web_processes_and_the_port_come_from_the_environment():
    assert web_tier.default_processes(1) == 1 and web_tier.default_processes(2) == 1
    assert web_tier.default_processes(8) == 7
    assert web_tier.processes_from({}) == web_tier.default_processes()
    assert web_tier.processes_from({"LCSM_WEB_PROCESSES": " 3 "}) == 3
    for bad in ("0", "-2", "two", "1.5"):
        with pytest.raises(web_tier.TierError, match="LCSM_WEB_PROCESSES"):
            web_tier.processes_from({"LCSM_WEB_PROCESSES": bad})
    assert web_tier.port_from(None) == web_tier.port_from("") == 8501
    assert web_tier.port_from("9000") == 9000
    for bad in ("http", "0", "70000"):
        with pytest.raises(web_tier.TierError, match="PORT"):
            web_tier.port_from(bad)


def test_the_web_processes_accept_the_public_address_as_a_host():
    """Behind the proxy each process listens on 127.0.0.1, which its guard allows by itself; a specific public
    address is what a single process would have added from its --server.address."""
    assert web_tier.web_allowed_hosts({}, "127.0.0.1") == "127.0.0.1,localhost"
    assert web_tier.web_allowed_hosts({}, "0.0.0.0") == "127.0.0.1,localhost"
    assert web_tier.web_allowed_hosts({}, "192.168.1.20") == "127.0.0.1,192.168.1.20,localhost"
    assert web_tier.web_allowed_hosts({"LCSM_ALLOWED_HOSTS": "Lab.Example.org"}, "0.0.0.0") == "lab.example.org"
    assert web_tier.web_allowed_hosts({"LCSM_ALLOWED_HOSTS": "*"}, "0.0.0.0") == "*"


def test_one_web_process_is_todays_single_command(monkeypatch):
    """LCSM_WEB_PROCESSES=1 execs `python3 -m streamlit run app/serve.py` on the public port: no HAProxy."""
    executed = []

    def fake_exec(path, argv):
        executed.append(argv)
        raise SystemExit(0)

    monkeypatch.setattr(web_tier.os, "execv", fake_exec)
    monkeypatch.setenv("LCSM_WEB_PROCESSES", "1")
    monkeypatch.setenv("PORT", "8765")
    monkeypatch.setenv("PYTHONPATH", "")                              # main() puts the packages' folder on it
    with pytest.raises(SystemExit):
        web_tier.main([])
    assert executed == [[sys.executable, "-m", "streamlit", "run", str(ROOT / "app" / "serve.py"),
                         "--server.address", "127.0.0.1", "--server.port", "8765", "--server.headless", "true",
                         "--browser.gatherUsageStats", "false", "--runner.postScriptGC", "false",
                         "--client.toolbarMode", "viewer"]]
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT)


def test_several_processes_without_haproxy_say_what_to_install(monkeypatch, capsys):
    monkeypatch.setattr(web_tier, "haproxy_path", lambda: None)
    assert web_tier.main(["--processes", "2", "--port", "8765"]) == 2
    err = capsys.readouterr().err
    assert "haproxy" in err and "LCSM_WEB_PROCESSES=1" in err


def test_a_bad_setting_is_a_message_not_a_traceback(monkeypatch, capsys):
    monkeypatch.setenv("LCSM_WEB_PROCESSES", "many")
    assert web_tier.main([]) == 2
    assert "LCSM_WEB_PROCESSES='many' is not a whole number" in capsys.readouterr().err


def test_app_sh_runs_the_launcher():
    text = (ROOT / "scripts" / "app.sh").read_text(encoding="utf-8")
    assert "scripts/install.sh" in text and 'exec python3 -m lcsm_explorer serve "$@"' in text


# --- two web processes behind HAProxy, in chromium -------------------------------------------------------------


def in_the_tier(test):
    """A test against the module's tier: headless chromium and HAProxy, skipped with the reason without them; all
    in one test process, which starts the tier once (scripts/test.sh: --dist loadgroup)."""
    for mark in (pytest.mark.browser, pytest.mark.slow, needs_chromium, needs_haproxy, pytest.mark.xdist_group("tier")):
        test = mark(test)
    return test


SLIDER_C = "damping c"                  # the spring's swept control, in its lesson instrument (app/kit/instrument.py)
EXACT_C = "damping c, exact value"      # the instrument's number box beside it: the value the tab shows
DYNAMICS = ("spring", "discretize", "rings", "lru_stability", "propagation")   # drawn by the lesson instrument
PHONE_CONTEXT = {"viewport": {"width": 390, "height": 844}, **PHONE}


def stored_run(data_dir: Path) -> int:
    """A finished 5-step run in the store (the CLI), for the CSV download of Train live's comparison."""
    subprocess.run([sys.executable, "-m", "lcsm_serving.train", "--max-steps", "5", "--eval-every", "5", "--data-dir",
                    str(data_dir), "--no-progress"], cwd=ROOT, check=True, capture_output=True, timeout=300)
    return runs_of(data_dir)[-1]["id"]


def runs_of(data_dir: Path) -> list[dict]:
    con = sqlite3.connect(f"file:{data_dir / 'runs.sqlite'}?mode=ro", uri=True, timeout=30)
    try:
        con.row_factory = sqlite3.Row
        return [dict(r) for r in con.execute("SELECT id, status, steps FROM runs ORDER BY id")]
    finally:
        con.close()


@pytest.fixture(scope="module")
def tier(tmp_path_factory):
    SHOTS.mkdir(parents=True, exist_ok=True)
    data = tmp_path_factory.mktemp("data")
    run_id = stored_run(data)
    server = AppServer(data, SHOTS / "web-tier.log", web_processes=2,
                       env={"LCSM_PREVIEW_MAX_LOAD": "1e9"})    # previews are not shed for load here (app_server)
    try:
        server.start(timeout_s=300)
    except RuntimeError as why:
        pytest.fail(f"{why} (see {SHOTS / 'web-tier.log'})")
    server.stored_run_id = run_id
    try:
        yield server
    finally:
        def whole_tree():       # HAProxy, web processes, service, their workers: each running (a web process a
            tree = descendants(server.pid)   # test killed may still wait for its restart: tier.json names it then)
            return tree if {server.haproxy_pid, server.service_pid, *server.web_pids.values()} <= set(tree) else None

        tree = wait_for(whole_tree, 60, "every process of the tier to be running (a killed one restarted)")
        server.stop()
        left = wait_for(lambda: [pid for pid in [server.pid, *tree] if alive(pid)] or None, 20,
                        "nothing to be left", negate=True)
        assert not left, f"processes left after the tier stopped: {left}"


class Tab:
    """One browser context (its own cookies) and page, recording which process answered each response."""

    def __init__(self, browser, tier, **context):
        context = {"viewport": {"width": 1400, "height": 1400}, **context}       # a phone: PHONE_CONTEXT
        self.context = browser.new_context(accept_downloads=True, **context)
        self.page = self.context.new_page()
        self.tier, self.sockets = tier, []
        self.answered_by: list[tuple[str, str | None]] = []    # (url, the process that answered)
        self.sent_at: list[float] = []                          # when each of those requests left (time.time())
        self.page.on("response", self.answered)
        self.page.on("websocket", self.opened)
        self.frames: list[int] = []                 # frames received on each websocket, in order

    def answered(self, response) -> None:
        if response.url.startswith(self.tier.url):
            self.answered_by.append((response.url, response.headers.get("x-lcsm-web")))
            self.sent_at.append(response.request.timing["startTime"] / 1000)

    def answered_since(self, moment: float) -> set[str | None]:
        """The processes that answered the requests sent after `moment` (time.time()). The app's static files
        and the lesson instrument's plotly.js and KaTeX (app/kit/vendor.py, cached a day), the same in every
        process, are left out: a reload takes them from the browser's cache, with the header of the process that
        first sent them."""
        return {name for (url, name), sent in zip(self.answered_by, self.sent_at)
                if sent > moment and not cached_file(url)}

    def answers_since(self, moment: float) -> list[tuple[str, str | None]]:
        """(url, process) of the requests `answered_since` counts, for a failure message."""
        return [(url, name) for (url, name), sent in zip(self.answered_by, self.sent_at)
                if sent > moment and not cached_file(url)]

    def opened(self, ws) -> None:
        index = len(self.sockets)
        self.sockets.append(ws)
        self.frames.append(0)
        ws.on("framereceived", lambda _: self.frames.__setitem__(index, self.frames[index] + 1))

    def open(self, path: str) -> None:
        self.page.goto(f"{self.tier.url}/{path}")
        self.page.wait_for_selector('[data-testid="stMain"]', timeout=120_000)
        wait_idle(self.page, timeout=120)
        if path.split("?")[0] in DYNAMICS:               # its instrument drawn (the component runs after the script)
            self.instrument_settled()

    def instrument_settled(self, timeout_s: float = 120) -> None:
        """Until the lesson instrument has drawn the server's page (no commit pending)."""
        self.page.wait_for_selector(".lcsm-instrument[data-drawn]:not(.lcsm-pending)", timeout=timeout_s * 1000)

    def swept_by_family(self, timeout_s: float = 120) -> None:
        """Until the instrument's swept control steps through the drag preview's family (computed off the request
        path, on a fresh process a few seconds after its page): an arrow key then moves to the next member."""
        self.page.wait_for_selector(".lcsm-instrument .lcsm-swept input[type=range]", timeout=timeout_s * 1000)

    def shown(self, exact: str) -> str:
        """The value the instrument's number box labelled `exact` shows."""
        return self.page.get_by_role("spinbutton", name=exact).input_value()

    def quiet(self, seconds: float) -> bool:
        """Whether the tab's websocket received nothing for `seconds` (an idle page: no run, no fragment polling,
        e.g. for a drag preview's family)."""
        before = self.frames[-1]
        self.page.wait_for_timeout(seconds * 1000)
        return self.frames[-1] == before

    def process(self) -> str | None:
        """The web process this tab is bound to: its LCSMWEB cookie."""
        return next((c["value"] for c in self.context.cookies(self.tier.url) if c["name"] == "LCSMWEB"), None)

    def describe(self) -> str:
        """What the tab saw, for a failure message."""
        sockets = [(ws.is_closed(), n) for ws, n in zip(self.sockets, self.frames)]
        return (f"cookie {self.process()}, websockets (closed?, frames) {sockets}, "
                f"last responses {self.answered_by[-4:]}, url {self.page.url}")

    def exceptions(self) -> int:
        return self.page.locator('[data-testid="stException"]').count()

    def close(self) -> None:
        self.context.close()


def cached_file(url: str) -> bool:
    """A file every web process serves the same, which the browser keeps in its cache."""
    return "/static/" in url or "/lcsm-vendor/" in url or url.endswith("/favicon.png")


def proxied_streams(tier) -> list[str]:
    """The server of each stream HAProxy now holds to a web process (`show sess` on its stats socket)."""
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(tier.tier()["stats_socket"])
        conn.sendall(b"show sess\n")
        text = b""
        while chunk := conn.recv(65536):
            text += chunk
    return [field.split("=", 1)[1] for line in text.decode().splitlines() if " be=web " in line
            for field in line.split() if field.startswith("srv=")]


def url_setting(url: str, name: str) -> str | None:
    return parse_qs(urlsplit(url).query).get(name, [None])[0]


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (children, their children, …)."""
    found, frontier = [], [pid]
    while frontier:
        children = [c for p in frontier for c in children_of(p)]
        found += children
        frontier = children
    return found


def wait_for(condition, timeout_s: float, what: str, tab: "Tab | None" = None, poll_s: float = 0.3,
             negate: bool = False):
    """Until `condition()` is truthy (its value). With a tab, the wait lets Playwright deliver its events (the
    sync API delivers them only inside its own calls). `negate`: until it is falsy, then its last value (no
    failure: the caller asserts)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if bool(value) != negate:
            return value
        if negate and time.monotonic() >= deadline:
            return value
        assert time.monotonic() < deadline, f"timed out after {timeout_s:g} s waiting for {what}" + (
            f" ({tab.describe()})" if tab is not None else "")
        if tab is not None:
            tab.page.wait_for_timeout(poll_s * 1000)
        else:
            time.sleep(poll_s)


def wait_both_processes_up(tier) -> None:
    """After a kill the launcher starts the process again; HAProxy sees it after two good checks."""
    wait_for(lambda: all(web_tier.health_ok(f"http://127.0.0.1:{w['port']}") for w in tier.tier()["web"]),
             240, "both web processes to answer again")
    time.sleep(2 * 3 + 1)                               # `rise 2` checks, `inter 3s` (app/haproxy.cfg.in)


@in_the_tier
def test_a_tab_sticks_to_one_web_process_and_a_new_tab_goes_to_the_other(tier, browser):
    first, second = Tab(browser, tier), Tab(browser, tier)
    try:
        first.open("spring")
        bound = first.process()
        assert bound in tier.web_pids, f"no LCSMWEB cookie naming a web process: {bound!r}"
        assert first.answered_by and {name for _, name in first.answered_by} == {bound}, first.answered_by
        assert first.sockets and all(not ws.is_closed() for ws in first.sockets[-1:])
        assert set(proxied_streams(tier)) == {bound}            # its websocket, through HAProxy, to that process
        slider = first.page.get_by_role("slider", name=SLIDER_C)    # the instrument's swept control
        c_before = url_setting(first.page.url, "c")
        slider.focus()
        slider.press("ArrowRight")                              # a move rides the same websocket
        wait_for(lambda: url_setting(first.page.url, "c") not in (None, c_before), 60, "the move to reach the URL",
                 first)
        wait_idle(first.page)
        first.instrument_settled()
        assert first.exceptions() == 0 and {name for _, name in first.answered_by} == {bound}

        second.open("rings")                                    # no cookie yet: round robin picks the other
        other = second.process()
        assert other in tier.web_pids and other != bound
        assert {name for _, name in second.answered_by} == {other}
        assert set(proxied_streams(tier)) == {bound, other}
        assert second.exceptions() == 0
    finally:
        first.close()
        second.close()


def choose(page, label: str, option: str, attempts: int = 4) -> None:
    """Pick an option of a multiselect (its list can close again when a rerun redraws the page: retried)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.get_by_role("combobox", name=label)
    for attempt in range(attempts):
        wait_idle(page)
        box.click()
        try:
            page.get_by_role("option", name=option).first.click(timeout=10_000)
            break
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    wait_idle(page)


def downloaded(tab, button: str):
    """The file a download button gives, clicked once more if the first click brought nothing in 45 s (a click
    that landed while a rerun replaced the button)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    for attempt in range(2):
        try:
            with tab.page.expect_download(timeout=45_000) as download:
                tab.page.get_by_role("button", name=button).click()
            return download.value
        except sync_api.TimeoutError:
            if attempt:
                raise
            wait_idle(tab.page, timeout=120)


@in_the_tier
def test_the_snippet_and_the_runs_csv_download_through_the_proxy(tier, browser):
    tab = Tab(browser, tier)
    try:
        tab.open("spring?c=0.5")
        # the drag preview's family is computed on a fresh process: its poll reruns the page, and a click on a
        # button that run replaces is lost (a CI run timed out waiting for the download)
        wait_for(lambda: tab.quiet(3.0), 120, "the tab to be idle (no fragment polling)", tab)
        tab.page.get_by_text("Reproduce these numbers in Python").click()
        download = downloaded(tab, "Download the script")
        script = Path(download.path()).read_text(encoding="utf-8")
        assert download.suggested_filename.endswith(".py") and "lcsm_core" in script and "0.5" in script

        run_id = tier.stored_run_id
        tab.open(f"train_live?run={run_id}")
        choose(tab.page, "Compare runs (up to 4)", f"{run_id} ·")
        download = downloaded(tab, "Runs as CSV")
        csv = Path(download.path()).read_text(encoding="utf-8").splitlines()
        assert download.suggested_filename == "runs.csv" and len(csv) >= 2, csv[:3]
        media = [name for url, name in tab.answered_by if "/media/" in url]
        assert media and set(media) == {tab.process()}      # the files live in the memory of the tab's process
        assert tab.exceptions() == 0
    finally:
        tab.close()


@in_the_tier
def test_a_killed_web_process_sends_its_tab_to_the_other_with_the_url_settings(tier, browser):
    wait_both_processes_up(tier)
    tab = Tab(browser, tier)
    try:
        tab.open("spring?c=0.5")
        wait_for(lambda: tab.quiet(3.0), 120, "the tab to be idle (no fragment polling)", tab)
        slider = tab.page.get_by_role("slider", name=SLIDER_C)    # the instrument's swept control
        assert tab.shown(EXACT_C) == "0.5"
        killed = tab.process()
        old_pid = tier.web_pids[killed]
        sockets_before = len(tab.sockets)
        helpers = descendants(old_pid)                  # a process's own workers must not outlive it
        killed_at = tier.kill9_web(killed)

        survivor = wait_for(lambda: (p := tab.process()) != killed and p, 90, "the tab to move to the other process",
                            tab)
        # The frontend reconnects to the survivor, which opens a new session. The tab was idle, and nothing
        # touches it: its page runs there by itself, from its URL and widgets (app/kit/internals/reconnect.py:
        # Streamlit's frontend reruns on a reconnect when the page has an auto-rerun fragment). A commit of the
        # instrument that is the new session's first event is applied by app/kit/instrument.py `recover_commit`.
        wait_for(lambda: len(tab.sockets) > sockets_before and not tab.sockets[-1].is_closed(), 90,
                 "a new websocket", tab)
        assert set(proxied_streams(tier)) >= {survivor}
        wait_for(lambda: tab.frames[-1] >= 10, 90, "the idle tab's page to run on the new process by itself", tab)
        wait_idle(tab.page, timeout=120)
        tab.instrument_settled()
        assert tab.exceptions() == 0
        assert url_setting(tab.page.url, "c") == "0.5" and tab.shown(EXACT_C) == "0.5"
        assert url_setting(tab.page.url, "m") == "1" and url_setting(tab.page.url, "forcing") == "impulse"

        tab.swept_by_family()                                   # c's members: −1, −0.5, 0, 0.5, 1, … (13 over −1…5)
        ran = tab.frames[-1]
        slider.focus()                                          # the page is live on the survivor
        slider.press("ArrowRight")                              # 0.5 → the next member, 1; committed 350 ms later
        wait_for(lambda: tab.frames[-1] >= ran + 5, 90, "the move's run to arrive on the new websocket", tab)
        wait_idle(tab.page, timeout=120)
        # The move runs with the value the instrument committed: it is kept, and no other setting snaps back.
        wait_for(lambda: url_setting(tab.page.url, "c") == "1", 60, "the first move after the reconnect to reach "
                 "the URL", tab)
        wait_idle(tab.page, timeout=120)
        tab.instrument_settled()
        tab.page.screenshot(path=str(SHOTS / "web-tier-after-kill.png"), full_page=True)
        assert tab.exceptions() == 0 and tab.shown(EXACT_C) == "1"
        assert tab.page.locator(".lcsm-instrument").get_attribute("data-member") == "1"
        assert url_setting(tab.page.url, "m") == "1" and url_setting(tab.page.url, "forcing") == "impulse"

        tab.open(tab.page.url.split("/", 3)[3])                 # a reload: the page from its URL, on the survivor
        assert tab.exceptions() == 0 and tab.shown(EXACT_C) == "1"
        assert tab.answered_since(killed_at) == {survivor}, [
            answer for answer in tab.answers_since(killed_at) if answer[1] != survivor]
        assert tab.process() == survivor

        wait_for(lambda: tier.web_pids[killed] != old_pid, 60, "the launcher to start the killed process again")
        orphans = wait_for(lambda: [pid for pid in helpers if alive(pid)] or None, 20, "no orphans", negate=True)
        assert not orphans, f"children of the killed web process {old_pid} outlived it: {orphans}"
    finally:
        tab.close()


@in_the_tier
@pytest.mark.skipif(not HAS_SERVICE, reason="the trainer service (lcsm_serving/service.py and a client "
                    "that honours LCSM_TRAINER=external) is not in this tree yet")
def test_a_run_keeps_training_across_the_kill_and_its_tab_still_drives_it(tier, browser):
    wait_both_processes_up(tier)
    tab = Tab(browser, tier)
    data = tier.data_dir
    try:
        # a learning rate too small to reach 99 % soon: the run is still training when its process dies
        tab.open("train_live?lr=0.0001&steps=5000")                # 5000: the server's step cap
        known = {r["id"] for r in runs_of(data)}
        tab.page.get_by_role("button", name="▶ Play").click()
        run = wait_for(lambda: next((r for r in runs_of(data) if r["id"] not in known and r["status"] == "running"
                                     and r["steps"] > 0), None), 120, "the run to train", tab)
        wait_for(lambda: f"run={run['id']}" in tab.page.url and "owner=" in tab.page.url, 30, "the run in the URL", tab)
        url_before = tab.page.url
        killed = tab.process()
        tier.kill9_web(killed)
        steps_at_kill = next(r for r in runs_of(data) if r["id"] == run["id"])["steps"]

        wait_for(lambda: (p := tab.process()) != killed and p, 90, "the tab to move to the other process", tab)
        wait_for(lambda: next(r for r in runs_of(data) if r["id"] == run["id"])["steps"] > steps_at_kill + 5, 60,
                 "the run to go on training after the kill", tab)
        wait_idle(tab.page, timeout=120)
        assert tab.exceptions() == 0 and tab.page.url == url_before
        assert next(r for r in runs_of(data) if r["id"] == run["id"])["status"] == "running"
        pause = tab.page.get_by_role("button", name="⏸ Pause")
        wait_for(pause.is_enabled, 30, "⏸ Pause to be enabled for the owner's tab", tab)
        pause.click()
        wait_for(lambda: next(r for r in runs_of(data) if r["id"] == run["id"])["status"] == "paused", 60,
                 "the run to pause", tab)
        tab.page.screenshot(path=str(SHOTS / "web-tier-train-after-kill.png"), full_page=True)
    finally:
        tab.close()


@in_the_tier
def test_a_phone_tab_keeps_its_first_move_on_the_copy_with_the_chart_after_its_process_is_killed(tier, browser):
    """Issue 21: on a phone the main chart's controls are a copy of the sidebar's (app/kit/chart_controls.py). After
    a kill -9 the tab's next move may be the first event of a fresh session, which has not drawn the copy and
    cannot run its callback (url_state.sent_widget_values reads the copy's value instead): the move is kept, in
    the URL and in the sidebar's widget, and no other setting moves."""
    wait_both_processes_up(tier)
    tab = Tab(browser, tier, **PHONE_CONTEXT)
    try:
        tab.open("online_learners?key_scale=1.5&beta=0.5")
        copy = tab.page.locator(".st-key-chart_controls").get_by_role("slider", name="key length ‖k‖")
        copy.wait_for(timeout=120_000)
        assert copy.is_visible() and copy.input_value() == "1.5"
        killed = tab.process()
        sockets_before = len(tab.sockets)
        tier.kill9_web(killed)

        wait_for(lambda: (p := tab.process()) != killed and p, 90, "the tab to move to the other process", tab)
        wait_for(lambda: len(tab.sockets) > sockets_before and not tab.sockets[-1].is_closed(), 90,
                 "a new websocket", tab)
        wait_idle(tab.page, timeout=120)
        wait_for(copy.is_enabled, 60, "the copy to take moves again (the frontend is connected)", tab)
        copy.focus()
        copy.press("ArrowRight")                                # 1.5 → 1.55 (step 0.05)
        wait_for(lambda: url_setting(tab.page.url, "key_scale") == "1.55", 90,
                 "the first move on the copy after the kill to reach the URL", tab)
        wait_idle(tab.page, timeout=120)
        tab.page.screenshot(path=str(SHOTS / "web-tier-phone-after-kill.png"))
        assert tab.exceptions() == 0
        wait_for(lambda: copy.input_value() == "1.55", 30, "the copy to hold the move", tab)
        assert url_setting(tab.page.url, "beta") == "0.5" and url_setting(tab.page.url, "n_keys") == "8"
        sidebar = tab.page.get_by_test_id("stSidebar").get_by_role("slider", name="key length ‖k‖")
        wait_for(lambda: sidebar.input_value() == "1.55", 30, "the sidebar's widget to follow (one value)", tab)
    finally:
        tab.close()


@needs_haproxy
def test_the_harness_frontend_names_the_client_address_and_the_public_one_does_not(tmp_path):
    """LCSM_HARNESS_PORT (tests and load runs, loopback only): X-Harness-Client becomes the address the web
    processes are told (a hostile client of a load run gets an address of its own: loopback is the operator); the
    public frontend drops a client's own X-Forwarded-For, harness header or not."""
    import http.server
    import threading
    import urllib.request

    seen = []

    class Echo(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.headers.get_all("X-Forwarded-For") or [])
            body = b"ok"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass
    backend = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    public, harness = web_tier.free_loopback_ports(2)
    path = tmp_path / "haproxy.cfg"
    path.write_text(web_tier.haproxy_config("127.0.0.1", public, [("web1", backend.server_address[1])],
                                            tmp_path / "haproxy.sock", harness_port=harness))
    assert subprocess.run([HAPROXY, "-c", "-q", "-f", str(path)], capture_output=True).returncode == 0
    proxy = subprocess.Popen([HAPROXY, "-f", str(path), "-db"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def ask(port, **headers):
            request = urllib.request.Request(f"http://127.0.0.1:{port}/x", headers=headers)
            for _ in range(50):
                try:
                    with urllib.request.urlopen(request, timeout=5):
                        return seen[-1]
                except OSError:
                    time.sleep(0.1)
            raise AssertionError(f"HAProxy did not answer on {port}")
        named = ask(harness, **{"X-Harness-Client": "198.51.100.9", "X-Forwarded-For": "10.9.9.9"})
        assert ", ".join(named).split(",")[0].strip() == "198.51.100.9" and "10.9.9.9" not in ", ".join(named)
        public_seen = ask(public, **{"X-Harness-Client": "198.51.100.9", "X-Forwarded-For": "10.9.9.9"})
        assert "198.51.100.9" not in ", ".join(public_seen) and "10.9.9.9" not in ", ".join(public_seen)
    finally:
        proxy.terminate()
        proxy.wait(10)
        backend.shutdown()

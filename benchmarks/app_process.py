"""Start the app on loopback as the README does (app/serve.py: the app behind its host guard; a free port, its
own data directory) and end it — for the browser tests (tests/browser/app_server.py) and the reliability
scripts, which also kill it -9 on purpose and look for the processes it leaves behind.

With `web_processes` > 1 it starts the web tier as scripts/app.sh does (app/web_tier.py: the trainer
service, that many Streamlit processes and HAProxy in front on the public port) and reads where each process
runs from the tier's tier.json, so a test or a benchmark can kill one web process."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "app/serve.py"             # the README's entry point: the app behind its host guard
WEB_TIER = ("-m", "lcsm_explorer", "serve")   # scripts/app.sh's launcher: several web processes behind HAProxy
# Debian's chromium, headless and with nothing that reaches the network (FIELD-NOTES); found the way
# scripts/install.sh looks for it (`command -v chromium`), so install, tests and scripts agree.
CHROMIUM = shutil.which("chromium")
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]


SCRIPT_STATE = """() => { const a = document.querySelector('[data-testid="stApp"]');
                  return a ? a.getAttribute('data-test-script-state') : null }"""
# The page script (app/kit/internals/page_script.js: the fixes CSS cannot make) has run where the page mounts it:
# Streamlit loads the code of an st.html element only when one is first drawn, so on a loaded machine the page can
# be idle a while before the script is.
PAGE_SCRIPT_RAN = """() => !document.querySelector('.st-key-lcsm_page_script') || window.__lcsmPageScript === true"""


def wait_idle(page, timeout: float = 90.0, page_script: bool = False) -> None:
    """Until the script finished and no element is stale (three calm polls in a row); `page_script`: and the page
    script has run (what an audit of the page as a learner gets must wait for)."""
    deadline, calm = time.monotonic() + timeout, 0
    while calm < 3:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{page.url} did not finish running")
        busy = (page.evaluate(SCRIPT_STATE) != "notRunning" or page.locator('[data-stale="true"]').count() > 0
                or (page_script and not page.evaluate(PAGE_SCRIPT_RAN)))
        calm = 0 if busy else calm + 1
        page.wait_for_timeout(150)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class AppServer:
    """`python -m streamlit run app/serve.py` on 127.0.0.1; runs stored under `data_dir`.

    `web_processes` > 1: app/web_tier.py with that many web processes behind HAProxy on `url`
    (needs `haproxy` on PATH); `web_pids`, `haproxy_pid`, `service_pid` say where they run. `python`: the
    interpreter that runs it (default: this one; another venv's tries the app on another Streamlit)."""

    def __init__(self, data_dir: Path, log_path: Path | None = None, env: dict | None = None,
                 web_processes: int = 1, python: str = sys.executable):
        self.data_dir, self.log_path, self.python = Path(data_dir), log_path, python
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, LCSM_DATA_DIR=str(self.data_dir), **(env or {}))
        self.web_processes = web_processes
        self.run_dir: Path | None = None       # the web tier's haproxy.cfg, stats socket and tier.json
        self.proc: subprocess.Popen | None = None

    def command(self) -> list[str]:
        if self.web_processes > 1:
            self.run_dir = Path(tempfile.mkdtemp(prefix="lcsm-web-tier-"))
            return [self.python, *WEB_TIER, "--processes", str(self.web_processes), "--address", "127.0.0.1",
                    "--port", str(self.port), "--run-dir", str(self.run_dir)]
        return [self.python, "-m", "streamlit", "run", ENTRY, "--server.address", "127.0.0.1",
                "--server.port", str(self.port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
                "--server.fileWatcherType", "none"]

    def start(self, timeout_s: float = 90.0) -> AppServer:
        log = open(self.log_path, "a") if self.log_path else subprocess.DEVNULL
        what = "the web tier" if self.web_processes > 1 else "streamlit"
        self.proc = subprocess.Popen(self.command(), cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        if self.log_path:
            log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{what} exited with {self.proc.returncode} before answering")
            try:
                if urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2).read() == b"ok" \
                        and (self.web_processes == 1 or self.tier()):
                    return self
            except OSError:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"{what} did not answer /_stcore/health within {timeout_s:g} s")

    @property
    def pid(self) -> int:
        """The process started: streamlit itself, or the web tier's launcher."""
        return self.proc.pid

    def tier(self) -> dict | None:
        """The web tier's tier.json (pids, ports, stats socket), or None before it is written."""
        try:
            return json.loads((self.run_dir / "tier.json").read_text())
        except (OSError, TypeError, ValueError):
            return None

    @property
    def web_pids(self) -> dict[str, int]:
        """Web process name (its LCSMWEB cookie value) → pid; {"web1": pid} for a single process."""
        if self.web_processes == 1:
            return {"web1": self.proc.pid}
        return {w["name"]: w["pid"] for w in self.tier()["web"]}

    @property
    def haproxy_pid(self) -> int | None:
        return self.tier()["haproxy"] if self.web_processes > 1 else None

    @property
    def service_pid(self) -> int | None:
        """The trainer service's pid (None with one process: it runs in a thread there)."""
        return self.tier()["service"] if self.web_processes > 1 else None

    def kill9(self) -> float:
        """SIGKILL the server process alone (not its children: that is what a crash does); the time.time()."""
        killed_at = time.time()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        return killed_at

    def kill9_web(self, name: str) -> float:
        """SIGKILL one web process of the tier (the launcher starts it again); the time.time()."""
        killed_at = time.time()
        os.kill(self.web_pids[name], signal.SIGKILL)
        return killed_at

    def stop(self) -> None:
        try:
            if self.proc is None or self.proc.poll() is not None:
                return
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60 if self.web_processes > 1 else 15)
            except subprocess.TimeoutExpired:
                self.proc.kill()                # the tier's children get SIGTERM when their launcher dies
                self.proc.wait(timeout=10)
        finally:
            if self.run_dir is not None:
                shutil.rmtree(self.run_dir, ignore_errors=True)


def children_of(pid: int) -> list[int]:
    """Live processes whose parent is `pid` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
                out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] not in ("Z", "X")


def rss_bytes(pid: int) -> int | None:
    """Resident memory of one process now; None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None

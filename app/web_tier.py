"""The explorer's web tier: one Streamlit process, or several behind HAProxy.

    lcsm-explorer serve [--processes N] [--address 127.0.0.1] [--port 8501] [--run-dir DIR]
    (or python -m lcsm_explorer serve; scripts/app.sh runs it after installing)

Settings come from the environment (the options override):

- LCSM_WEB_PROCESSES: Streamlit processes to run (default: the core count minus one, at least 1);
- PORT: the public port (default 8501), on --address (default 127.0.0.1: loopback only);
- LCSM_DATA_DIR, LCSM_ALLOWED_HOSTS: passed to every process (the run store; the host guard's names).

One process: this execs today's single command, `python3 -m streamlit run app/serve.py` on the public
port, which trains in a thread of its own (no HAProxy, no trainer service).

Several: the trainer service (`python -m lcsm_serving.service`, one for the store) starts first, then
the N web processes on free loopback ports with LCSM_TRAINER=external, each behind its host guard; once each
answers /_stcore/health, HAProxy (Debian's `haproxy`) runs in front on the public port from
app/haproxy.cfg.in: cookie session affinity (LCSMWEB), websockets, health checks, redispatch when a
process dies. This process then supervises: a child that exits is logged and started again (with a growing
delay when it keeps dying); HAProxy exiting ends the tier; SIGTERM or SIGINT stops HAProxy, the web
processes, then the service, and every child also gets SIGTERM if this process dies (PR_SET_PDEATHSIG), so
nothing is left behind. The run directory holds haproxy.cfg, HAProxy's stats socket and tier.json (the pids
and ports, for tests and operators).

HTTPS (--tls-cert FILE --tls-key FILE): HAProxy terminates TLS in front of the web processes, one or several;
pages and their websockets go over https and wss, the web processes learn the scheme (X-Forwarded-Proto, believed
from HAProxy only) so the identity cookie is Secure, and --http-port N answers plain HTTP with a redirect to https.
"""
from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import string
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from lcsm_explorer.app.kit.host_guard import ANY_ADDRESS, ENV_ALLOWED_HOSTS, allowed_hosts  # (stdlib only)

APP_DIR = Path(__file__).resolve().parent
ENTRY = str(APP_DIR / "serve.py")                 # the app behind its host guard
TEMPLATE = APP_DIR / "haproxy.cfg.in"
SERVICE_MODULE = "lcsm_serving.service"
# Found without importing serving (torch): the launcher stays light. Its folder's parent goes on the children's
# PYTHONPATH, so `python -m lcsm_serving.service` works from any working directory, checkout or install.
SERVING_SPEC = importlib.util.find_spec("lcsm_serving")
SERVICE_FILE = Path(SERVING_SPEC.origin).parent / "service.py" if SERVING_SPEC else Path("lcsm_serving/service.py")
PACKAGES_ROOT = SERVICE_FILE.parent.parent
# What .streamlit/config.toml says in a checkout, passed as options: an installed app has no such file beside it.
STREAMLIT_OPTIONS = ("--server.headless", "true", "--browser.gatherUsageStats", "false",
                     "--runner.postScriptGC", "false", "--client.toolbarMode", "viewer")
ENV_PROCESSES = "LCSM_WEB_PROCESSES"
ENV_TRAINER = "LCSM_TRAINER"                      # "external": the web processes leave training to the service
# Peers whose X-Forwarded-For the web processes believe (uvicorn reads it: the client address Streamlit's
# st.context.ip_address reports, which app/kit/visitor.py keys admission quotas by). Behind HAProxy: HAProxy only
# (it connects from loopback and replaces any client-sent header); one process with nothing in front: nobody,
# unless the operator names their own proxy in FORWARDED_ALLOW_IPS.
ENV_FORWARDED_ALLOW = "FORWARDED_ALLOW_IPS"
ENV_HARNESS_PORT = "LCSM_HARNESS_PORT"      # tests and load runs: a loopback frontend naming the client address
PROXY_PEER = "127.0.0.1"
# Streamlit signs its cookies with this secret; every replica must share it (its own config docs say so).
ENV_COOKIE_SECRET = "STREAMLIT_SERVER_COOKIE_SECRET"
COOKIE = "LCSMWEB"                                # HAProxy's affinity cookie: the name of a tab's web process
SERVED_BY_HEADER = "X-LCSM-Web"                   # HAProxy's response header: the same name
STATE_FILE = "tier.json"
DEFAULT_PORT = 8501
DEFAULT_ADDRESS = "127.0.0.1"
START_TIMEOUT_S = 300.0                           # N cold Pythons importing torch at once on a busy machine
STOP_TIMEOUT_S = 15.0
MAX_RESTART_DELAY_S = 60.0
STABLE_AFTER_S = 60.0                             # a child that lived this long starts again at once
PR_SET_PDEATHSIG = 1


class TierError(RuntimeError):
    """A setting or a start that cannot work, said in words for the terminal."""


# --- settings ----------------------------------------------------------------------------------------------
def default_processes(cores: int | None = None) -> int:
    """The core count minus one (a core for HAProxy, the trainer and the OS), at least 1."""
    cores = cores if cores is not None else len(os.sched_getaffinity(0))
    return max(1, cores - 1)


def processes_from(environ) -> int:
    """LCSM_WEB_PROCESSES as a count ≥ 1, or the default when it is unset or empty."""
    raw = environ.get(ENV_PROCESSES, "").strip()
    if not raw:
        return default_processes()
    try:
        count = int(raw)
    except ValueError:
        raise TierError(f"{ENV_PROCESSES}={raw!r} is not a whole number of web processes") from None
    if count < 1:
        raise TierError(f"{ENV_PROCESSES}={count} must be at least 1")
    return count


def port_from(raw: str | int | None) -> int:
    """A TCP port 1–65535 (PORT, or DEFAULT_PORT when unset)."""
    if raw is None or str(raw).strip() == "":
        return DEFAULT_PORT
    try:
        port = int(str(raw).strip())
    except ValueError:
        raise TierError(f"PORT={raw!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise TierError(f"PORT={port} is outside 1–65535")
    return port


def web_allowed_hosts(environ, public_address: str) -> str:
    """LCSM_ALLOWED_HOSTS for the web processes behind the proxy.

    A single process adds its own --server.address to the allowed names; behind HAProxy each process listens
    on 127.0.0.1, so the public address (when it names one address) is added here instead, and a browser
    that reaches the proxy by it is still served."""
    names = allowed_hosts(environ, server_address=public_address)
    return ",".join(sorted(names))


def with_packages_path(env) -> dict:
    """`env` (changed in place and returned) with the folder holding lcsm_serving and lcsm_explorer first on
    PYTHONPATH: the children import them wherever they are started from."""
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(PACKAGES_ROOT) not in parts:
        env["PYTHONPATH"] = os.pathsep.join([str(PACKAGES_ROOT), *parts])
    return env


# --- commands and config -----------------------------------------------------------------------------------
def streamlit_command(address: str, port: int, python: str = sys.executable, internal: bool = False) -> list[str]:
    """Today's app command (scripts/app.sh before the web tier); `internal`: a process behind the proxy,
    which watches no files."""
    command = [python, "-m", "streamlit", "run", ENTRY, "--server.address", address, "--server.port", str(port),
               *STREAMLIT_OPTIONS]
    return command + ["--server.fileWatcherType", "none"] if internal else command


def service_command(python: str = sys.executable) -> list[str]:
    """The trainer service of the store that $LCSM_DATA_DIR names (its own default, as the web processes')."""
    return [python, "-m", SERVICE_MODULE]


def bind_spec(address: str, port: int) -> str:
    """HAProxy's `bind` argument for an address and port: IPv4 or a name as is, IPv6 in brackets."""
    if address in ("", "0.0.0.0"):
        return f"0.0.0.0:{port}"
    if address == "::":
        return f":::{port} v4v6"
    if ":" in address:
        return f"[{address.strip('[]')}]:{port}"
    return f"{address}:{port}"


def server_lines(backends: list[tuple[str, int]]) -> str:
    """One `server` line per web process: its name is also its LCSMWEB cookie value."""
    return "\n".join(f"    server {name} 127.0.0.1:{port} check cookie {name}" for name, port in backends)


HARNESS = """frontend harness
    # Tests and load runs only (LCSM_HARNESS_PORT; loopback, never public): a request's X-Harness-Client names
    # the client address the web processes see, so a load run can give a hostile client an address of its own
    # (loopback is the operator, never held back). HAProxy's own address is added after it, as on the public side.
    bind 127.0.0.1:${port}
    http-request del-header X-Forwarded-For
    http-request set-header X-Forwarded-For %[req.hdr(X-Harness-Client)] if { req.hdr(X-Harness-Client) -m found }
    default_backend web
"""


def harness_frontend(port: int | None) -> str:
    """The harness frontend's lines (none without a port)."""
    return "" if port is None else string.Template(HARNESS).substitute(port=port)


# With TLS: the web processes learn the browser's scheme (uvicorn believes X-Forwarded-Proto from HAProxy only,
# like X-Forwarded-For), so the identity cookie is Secure; browsers are told to stay on https.
TLS_HEADERS = """    http-request set-header X-Forwarded-Proto https
    http-response set-header Strict-Transport-Security "max-age=31536000"
"""
# Plain HTTP on --http-port answers every request with a redirect to the same path on the https port.
REDIRECT = """
frontend plain_http
    bind ${bind}
    http-request redirect location https://%[req.hdr(host),field(1,:)]${port}%[capture.req.uri] code 301
"""


def redirect_frontend(address: str, http_port: int | None, https_port: int) -> str:
    """The plain-HTTP frontend's lines (none without an HTTP port)."""
    if http_port is None:
        return ""
    return string.Template(REDIRECT).substitute(bind=bind_spec(address, http_port),
                                                port="" if https_port == 443 else f":{https_port}")


def haproxy_config(address: str, port: int, backends: list[tuple[str, int]], stats_socket: str | Path,
                   maxconn: int = 2000, template: str | None = None, harness_port: int | None = None,
                   tls_pem: str | Path | None = None, http_port: int | None = None) -> str:
    """app/haproxy.cfg.in with its fields filled in.

    Parameters
    ----------
    address, port : where the public frontend listens.
    backends : [(name, loopback port)] of the web processes, e.g. [("web1", 41231), ("web2", 41232)].
    stats_socket : HAProxy's operator socket (a path in the run directory).
    harness_port : a loopback port for the test harness's frontend (`harness_frontend`), or None.
    tls_pem : the certificate and its key in one PEM file: the public frontend speaks HTTPS (and wss) only.
    http_port : with tls_pem, a plain-HTTP port that redirects to it.
    """
    if not backends:
        raise TierError("the web tier needs at least one web process")
    template = TEMPLATE.read_text(encoding="utf-8") if template is None else template
    bind = bind_spec(address, port) + (f' ssl crt "{tls_pem}"' if tls_pem else "")
    return string.Template(template).substitute(bind=bind, servers=server_lines(backends),
                                                stats_socket=str(stats_socket), maxconn=maxconn,
                                                harness=harness_frontend(harness_port),
                                                tls_headers=TLS_HEADERS if tls_pem else "",
                                                cookie_secure=" secure" if tls_pem else "",
                                                redirect=redirect_frontend(address, http_port, port) if tls_pem
                                                else "")


def free_loopback_ports(count: int) -> list[int]:
    """`count` distinct ports free on 127.0.0.1 now (held open together so they differ)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def haproxy_path() -> str | None:
    """Debian's haproxy: on PATH, or in /usr/sbin (not on a normal user's PATH)."""
    return shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")


def health_ok(url: str, timeout_s: float = 2.0) -> bool:
    """Whether the app at `url` answers its health check (https: any certificate, it is our own proxy's)."""
    context = None
    if url.startswith("https:"):
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout_s, context=context) as response:
            return response.read() == b"ok"
    except OSError:
        return False


def die_with_parent(parent: int) -> None:
    """In the child, before exec: SIGTERM when the launcher dies (even by kill -9), so nothing is orphaned."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):       # not Linux: SIGTERM/SIGINT to the launcher still ends everything
        return
    if os.getppid() != parent:              # the launcher died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)


# --- supervision -------------------------------------------------------------------------------------------
@dataclass
class Child:
    """One supervised process: what to run, the running one, and when it may start again."""

    name: str
    command: list[str]
    env: dict
    stdout: int | None = None                # None: the launcher's stdout
    proc: subprocess.Popen | None = None
    started_at: float = 0.0
    quick_deaths: int = 0
    restart_at: float | None = None
    port: int | None = None
    starts: int = 0

    def start(self) -> None:
        parent = os.getpid()
        self.proc = subprocess.Popen(self.command, env=self.env, stdout=self.stdout,
                                     process_group=0, preexec_fn=lambda: die_with_parent(parent))
        self.started_at, self.restart_at = time.monotonic(), None
        self.starts += 1

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def exited(self) -> int | None:
        """Its exit status once it has ended (reaped), else None."""
        return self.proc.poll() if self.proc is not None else None

    def schedule_restart(self) -> float:
        """When to start it again: at once after a long life, else after 1, 2, 4 … 60 s."""
        lived = time.monotonic() - self.started_at
        self.quick_deaths = 0 if lived >= STABLE_AFTER_S else self.quick_deaths + 1
        delay = 0.0 if self.quick_deaths == 0 else min(MAX_RESTART_DELAY_S, 2.0 ** (self.quick_deaths - 1))
        self.restart_at = time.monotonic() + delay
        return delay

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM, then SIGKILL after `timeout_s`; reaped either way."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@dataclass(frozen=True)
class Tls:
    """HTTPS in HAProxy: a certificate (its chain) and its private key, PEM files; `http_port`: a plain-HTTP port
    that redirects to https (None: none)."""

    cert: Path
    key: Path
    http_port: int | None = None

    def check(self) -> None:
        for what, path in (("--tls-cert", self.cert), ("--tls-key", self.key)):
            try:
                text = Path(path).read_text(encoding="ascii", errors="replace")
            except OSError as err:
                raise TierError(f"{what} {path}: cannot read it ({err.strerror})") from None
            if "-----BEGIN" not in text:
                raise TierError(f"{what} {path} is not a PEM file")

    def write_pem(self, run_dir: Path) -> Path:
        """HAProxy reads the certificate and its key from one file: written into the run directory, mode 0600."""
        pem = run_dir / "tls.pem"
        fd = os.open(pem, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(Path(self.cert).read_text().rstrip("\n") + "\n" + Path(self.key).read_text())
        return pem


class Tier:
    """The trainer service, N web processes and HAProxy, started in that order and stopped in reverse."""

    def __init__(self, processes: int, address: str, port: int, run_dir: Path, environ=os.environ,
                 tls: Tls | None = None):
        self.address, self.port, self.run_dir = address, port, run_dir
        scheme = "https" if tls else "http"
        self.public_url = f"{scheme}://{'127.0.0.1' if address in ANY_ADDRESS else address}:{port}"
        self.stopping = False
        env = with_packages_path(dict(environ))
        if env.get("LCSM_DATA_DIR"):             # one folder for every child, whatever its working directory
            env["LCSM_DATA_DIR"] = str(Path(env["LCSM_DATA_DIR"]).resolve())
        env[ENV_ALLOWED_HOSTS] = web_allowed_hosts(environ, address)
        env.setdefault(ENV_COOKIE_SECRET, secrets.token_hex(32))
        web_env = dict(env, **{ENV_TRAINER: "external", ENV_FORWARDED_ALLOW: PROXY_PEER,
                               "LCSM_TIER_PROCESSES": str(processes)})   # a visitor's share of page runs, split
        ports = free_loopback_ports(processes)
        self.web = [Child(f"web{i + 1}", streamlit_command("127.0.0.1", p, internal=True), web_env,
                          stdout=subprocess.DEVNULL, port=p)    # its stdout only says "open http://…:<internal>"
                    for i, p in enumerate(ports)]
        # LCSM_TRAINER=external given to the launcher: the service runs elsewhere (its own container or unit).
        own_service = SERVICE_FILE.exists() and environ.get(ENV_TRAINER, "").strip() != "external"
        self.service = Child("trainer service", service_command(), env) if own_service else None
        self.config_path = run_dir / "haproxy.cfg"
        harness = environ.get(ENV_HARNESS_PORT, "").strip()
        self.harness_port = port_from(harness) if harness else None
        pem = tls.write_pem(run_dir) if tls else None
        self.config_path.write_text(haproxy_config(address, port, [(c.name, c.port) for c in self.web],
                                                   run_dir / "haproxy.sock", harness_port=self.harness_port,
                                                   tls_pem=pem, http_port=tls.http_port if tls else None),
                                    encoding="utf-8")
        self.haproxy = Child("haproxy", [haproxy_path() or "haproxy", "-f", str(self.config_path), "-db"],
                             env)

    def children(self) -> list[Child]:
        return ([self.service] if self.service else []) + self.web + [self.haproxy]

    def check_config(self) -> None:
        result = subprocess.run([self.haproxy.command[0], "-c", "-q", "-f", str(self.config_path)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise TierError(f"HAProxy refuses {self.config_path}:\n{result.stdout}{result.stderr}")

    def start(self) -> None:
        self.check_config()
        if self.service is None:
            say("LCSM_TRAINER=external: the trainer service runs elsewhere" if SERVICE_FILE.exists()
                else f"{SERVICE_FILE} is missing: no trainer service started")
        else:
            self.service.start()
        for child in self.web:
            child.start()
        self.wait_until(lambda: all(health_ok(f"http://127.0.0.1:{c.port}") for c in self.web), self.web,
                        "the web processes to answer /_stcore/health")
        self.haproxy.start()
        self.wait_until(lambda: health_ok(self.public_url), [self.haproxy], f"HAProxy to answer on {self.public_url}")
        self.write_state()
        say(f"serving {self.public_url} — {len(self.web)} web processes behind HAProxy "
            f"(pid {self.haproxy.pid}), ports {', '.join(str(c.port) for c in self.web)}"
            + (f", trainer service pid {self.service.pid}" if self.service else ""))

    def wait_until(self, ready, watched: list[Child], what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready():
            if self.stopping:
                raise TierError("stopped while starting")
            for child in watched:
                if child.exited() is not None:
                    raise TierError(f"{child.name} exited with {child.exited()} while waiting for {what}")
            if time.monotonic() > deadline:
                raise TierError(f"no answer within {START_TIMEOUT_S:g} s while waiting for {what}")
            time.sleep(0.3)

    def supervise(self) -> int:
        """Until asked to stop (0) or HAProxy ends (1): restart web processes and the service that exit."""
        while not self.stopping:
            if self.haproxy.exited() is not None:
                say(f"HAProxy exited with {self.haproxy.exited()}: stopping the tier")
                return 1
            for child in [c for c in self.children() if c is not self.haproxy]:
                if child.restart_at is None and child.exited() is not None:
                    delay = child.schedule_restart()
                    say(f"{child.name} (pid {child.pid}) exited with {child.exited()}; "
                        f"starting it again in {delay:g} s" + ("; its tabs reconnect to the others"
                                                             if child in self.web else ""))
                elif child.restart_at is not None and time.monotonic() >= child.restart_at:
                    child.start()
                    self.write_state()
                    say(f"{child.name} started again (pid {child.pid})")
            time.sleep(0.3)
        return 0

    def stop(self) -> None:
        """Front to back: no new requests, then the web processes, then the service (which stops its runs)."""
        for child in [self.haproxy, *self.web, *([self.service] if self.service else [])]:
            child.stop()

    def write_state(self) -> None:
        """tier.json: where everything runs, for tests and operators (rewritten on every restart)."""
        state = {"public_url": self.public_url, "launcher": os.getpid(), "haproxy": self.haproxy.pid,
                 "service": self.service.pid if self.service else None,
                 "stats_socket": str(self.run_dir / "haproxy.sock"),
                 "harness_url": f"http://127.0.0.1:{self.harness_port}" if self.harness_port else None,
                 "web": [{"name": c.name, "port": c.port, "pid": c.pid} for c in self.web]}
        tmp = self.run_dir / f"{STATE_FILE}.tmp"
        tmp.write_text(json.dumps(state, indent=1), encoding="utf-8")
        tmp.replace(self.run_dir / STATE_FILE)


def say(message: str) -> None:
    print(f"web tier: {message}", flush=True)


def run_tier(processes: int, address: str, port: int, run_dir: Path | None, tls: Tls | None = None) -> int:
    if haproxy_path() is None and tls is not None:
        raise TierError("HTTPS is served by HAProxy in front of the web processes: install Debian's package "
                        "(apt-get install haproxy; scripts/install.sh --system-packages does it as root)")
    if haproxy_path() is None:
        raise TierError(f"{ENV_PROCESSES}={processes} needs HAProxy in front of the web processes: install "
                        "Debian's package (apt-get install haproxy; scripts/install.sh does it as root), or "
                        f"run one web process with {ENV_PROCESSES}=1")
    own_dir = run_dir is None
    run_dir = Path(tempfile.mkdtemp(prefix="lcsm-web-tier-")) if own_dir else run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    tier = Tier(processes, address, port, run_dir, tls=tls)

    def ask_to_stop(signum, _frame):
        if not tier.stopping:
            say(f"{signal.Signals(signum).name}: stopping")
        tier.stopping = True

    signal.signal(signal.SIGTERM, ask_to_stop)
    signal.signal(signal.SIGINT, ask_to_stop)
    try:
        tier.start()
        return tier.supervise()
    except TierError as err:
        say(str(err))
        return 0 if tier.stopping else 1
    finally:
        tier.stop()
        (run_dir / STATE_FILE).unlink(missing_ok=True)     # no stale pids for a reader
        if own_dir:
            shutil.rmtree(run_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lcsm-explorer serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=None, help=f"web processes (default: ${ENV_PROCESSES}, "
                        "else the core count minus one, at least 1)")
    parser.add_argument("--address", default=DEFAULT_ADDRESS, help="the public address (default 127.0.0.1)")
    parser.add_argument("--port", default=None, help="the public port (default: $PORT, else 8501)")
    parser.add_argument("--run-dir", type=Path, default=None,
                        help="where haproxy.cfg, its stats socket and tier.json go (default: a temporary one)")
    parser.add_argument("--tls-cert", type=Path, default=None, help="HTTPS: the certificate (PEM, its chain too); "
                        "HAProxy terminates TLS, even in front of one web process")
    parser.add_argument("--tls-key", type=Path, default=None, help="HTTPS: the certificate's private key (PEM)")
    parser.add_argument("--http-port", type=int, default=None,
                        help="with --tls-cert: a plain-HTTP port that redirects every request to https")
    args = parser.parse_args(argv)
    try:
        processes = processes_from(os.environ) if args.processes is None else args.processes
        if processes < 1:
            raise TierError(f"--processes {processes} must be at least 1")
        port = port_from(args.port if args.port is not None else os.environ.get("PORT"))
        tls = None
        if (args.tls_cert is None) != (args.tls_key is None):
            raise TierError("HTTPS needs both --tls-cert and --tls-key")
        if args.tls_cert is not None:
            tls = Tls(args.tls_cert.resolve(), args.tls_key.resolve(), args.http_port)
            tls.check()
            return run_tier(processes, args.address, port, args.run_dir, tls)
        if args.http_port is not None:
            raise TierError("--http-port redirects to HTTPS: it needs --tls-cert and --tls-key")
        if processes == 1:
            with_packages_path(os.environ)
            os.environ.setdefault(ENV_FORWARDED_ALLOW, "")     # no proxy of ours in front: trust no header
            command = streamlit_command(args.address, port)
            os.execv(command[0], command)           # today's single command, nothing in front
        return run_tier(processes, args.address, port, args.run_dir)
    except TierError as err:
        print(f"web tier: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

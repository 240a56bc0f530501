"""Training on a Ray cluster without the run store: the Ray worker that trains a run (a RemoteTrainer actor) keeps
the store calls record_run makes in a RunOutbox, and the process that owns the store (the trainer service, the
paper lab's CLI) takes them every POLL_S and replays them into its own store (`drive`). No Ray worker opens the
store, so a node on another host needs nothing but the code and its requirements: no data directory, no shared
file system, no LCSM_DATA_DIR.

What travels, in order: the run's start (its device and numerics fingerprint), its metric rows and eigenvalue
snapshots (buffered as record_run buffers them), its status changes and its end. A run's checkpoint goes out with
its `train` call and comes back as a call of its own when the run gives its slot back (before the "queued" write,
as the recorder orders them). Commands (pause, step, stop, a learning rate) go to the actor's `command`. Progress
is pulled rather than pushed (the driver asks `take`): the store sees a run at most POLL_S plus one flush behind,
as it sees a local worker's, and a driver that dies takes nothing with it but its own store handle.

Connecting (`connect`): the address as given (host:port of the cluster's GCS, "auto", or `ray://host:10001`
through Ray's client, which needs `ray[client]`); a cluster with token authentication (RAY_AUTH_MODE=token)
wants its token in RAY_AUTH_TOKEN, a file named by RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token — `token_file`
(the CLI's --ray-token-file, the service's LCSM_RAY_TOKEN_FILE) sets the first two for this process. A refused
token is a RayAuthError that says what to do instead of Ray's retry trace; through `ray://` a refused token
looks like any unreachable server (Ray's client times out), so that RayConnectError names the token too.
"""
from __future__ import annotations

import os
import sys
import threading
from contextlib import nullcontext

from lcsm_core.training.control import WORKER_COMMANDS, RunControl

POLL_S = 0.5                      # how often the driver takes a run's calls
TOKEN_FILE_ENV = "LCSM_RAY_TOKEN_FILE"
REPLAYED = ("start_run", "write", "set_status", "save_checkpoint")


class RayConnectError(ValueError):
    """This process could not connect to the Ray cluster (its words say why, and what to check)."""


class RayAuthError(RayConnectError):
    """The Ray cluster refused this process's token (or it has token authentication and this process has none)."""


class RunOutbox:
    """The run store as a Ray worker sees it: record_run's calls are kept, in order, until the driver takes them
    (`take`); the checkpoint the run resumes from is the one its train call brought. Thread-safe."""

    def __init__(self, run_id: int, checkpoint: bytes | None = None):
        self._run_id, self._checkpoint = run_id, checkpoint
        self._calls: list[tuple] = []
        self._lock = threading.Lock()

    def _keep(self, *call) -> None:
        with self._lock:
            self._calls.append(call)

    def take(self) -> list[tuple]:
        """The calls kept since the last take, oldest first."""
        with self._lock:
            calls, self._calls = self._calls, []
        return calls

    def start_run(self, run_id: int, device: str, status: str = "running", numerics: dict | None = None) -> None:
        self._keep("start_run", run_id, device, status, numerics)

    def write(self, run_id: int, metrics: list[tuple], snapshots: list[tuple], status: str, steps: int,
              wall_s: float, test_acc: float | None, reason: str | None = None) -> None:
        self._keep("write", run_id, list(metrics), list(snapshots), status, steps, wall_s, test_acc, reason)

    def set_status(self, run_id: int, status: str, reason: str | None = None) -> None:
        self._keep("set_status", run_id, status, reason)

    def checkpoint(self, run_id: int) -> bytes | None:
        return self._checkpoint if run_id == self._run_id else None

    def save_checkpoint(self, run_id: int, checkpoint: bytes) -> None:
        self._keep("save_checkpoint", run_id, checkpoint)


def replay(store, calls: list[tuple]) -> None:
    """Apply a worker's kept calls to `store` (a RunStore), in order."""
    for name, *args in calls:
        if name not in REPLAYED:
            raise ValueError(f"a worker sent an unknown store call {name!r}")
        getattr(store, name)(*args)


class RemoteTrainer:
    """The Ray actor that trains one run into a RunOutbox: `train` in one thread, `command` and `take` in others
    (create it with max_concurrency=3). `repeatable`: train as a paper-lab cell does (numerics.repeatable: one
    thread count, torch's deterministic algorithms on)."""

    def __init__(self, threads: int, repeatable: bool = False):
        import torch
        self.threads, self.repeatable = threads, repeatable
        torch.set_num_threads(threads)
        self.lock = threading.Lock()
        self.control: RunControl | None = None
        self.outbox: RunOutbox | None = None
        self.early: list[tuple[str, tuple]] = []     # commands that arrived before train() started

    def train(self, run_id: int, config: dict, state: dict, checkpoint: bytes | None = None) -> tuple[str, list]:
        """Train the run; ("ended" or PREEMPTED, the calls not taken yet)."""
        from lcsm_core.training.config import RunConfig
        from lcsm_core.training.numerics import repeatable
        from lcsm_serving.recorder import record_run, turn_end
        control = RunControl.from_state(state)
        outbox = RunOutbox(run_id, checkpoint)
        with self.lock:
            self.control, self.outbox = control, outbox
            for name, args in self.early:
                getattr(control, name)(*args)
        with repeatable(self.threads) if self.repeatable else nullcontext():
            end = turn_end(record_run(outbox, run_id, RunConfig.from_dict(config), control))
        return end, outbox.take()

    def take(self) -> list[tuple]:
        with self.lock:
            outbox = self.outbox
        return [] if outbox is None else outbox.take()

    def command(self, run_id: int, name: str, args: tuple) -> None:
        if name not in WORKER_COMMANDS:
            return
        with self.lock:
            if self.control is None:
                self.early.append((name, tuple(args)))
            else:
                getattr(self.control, name)(*args)


def drive(ray, actor, ref, store, poll_s: float = POLL_S, between=None) -> str:
    """Replay the run's calls into `store` while its `train` call (`ref`) runs, and the rest when it returns; the
    run's end ("ended" or PREEMPTED). `between()`, when given, is called at every poll (a CLI cell forwards a stop
    asked through the store). What ray.get raises when the actor dies is raised here, after every call taken
    before it was replayed."""
    taking = None
    while not ray.wait([ref], timeout=poll_s)[0]:
        if taking is not None and ray.wait([taking], timeout=0)[0]:
            replay(store, ray.get(taking))
            taking = None
        if taking is None:
            taking = actor.take.remote()
        if between is not None:
            between()
    if taking is not None:                     # taken before the end: its calls come first
        replay(store, ray.get(taking))
    end, rest = ray.get(ref)
    replay(store, rest)
    return end


def end_actor(ray, actor) -> None:
    """Kill a run's actor; nothing when it (or this process's Ray connection) is gone already."""
    try:
        ray.kill(actor)
    except Exception:  # noqa: BLE001 — a dead actor or a closed connection has nothing left to end
        pass


def gpu_refusal(gpus: float, resources: dict, address: str) -> str | None:
    """Why a run asking Ray for `gpus` GPUs cannot start on a cluster with `resources` (None: it can). Ray would
    keep such a request pending for ever; refusing says so at once."""
    have = float(resources.get("GPU", 0))
    if gpus > 0 and have < gpus:
        return (f"each run asks for {gpus:g} GPU(s) but the Ray cluster at {address} has {have:g}: ask for none "
                "(--gpus-per-cell 0, device cpu or auto) or add a GPU node")
    return None


def use_token_file(path: str | os.PathLike | None) -> None:
    """Make this process (and the Ray workers it starts locally) present the token in `path` to Ray: token
    authentication on (RAY_AUTH_MODE=token) and RAY_AUTH_TOKEN_PATH set. Nothing when `path` is None. Before this
    process connects: a connection made already keeps the token it was made with."""
    if path is None:
        return
    path = os.path.abspath(os.path.expanduser(os.fspath(path)))
    if not os.path.isfile(path):
        raise RayAuthError(f"the Ray token file {path} does not exist")
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN_PATH"] = path
    os.environ.pop("RAY_AUTH_TOKEN", None)          # Ray would prefer it to the file
    if "ray._raylet" in sys.modules:                # Ray read its settings already: read them again (as Ray does)
        from ray._raylet import AuthenticationTokenLoader, Config
        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()


def auth_refused(err: BaseException) -> bool:
    """Whether `err` (what ray.init raised) comes from a refused or missing token."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if type(err).__name__ == "AuthenticationError" or "InvalidAuthToken" in str(err):
            return True
        err = err.__cause__ or err.__context__
    return False


def auth_message(address: str) -> str:
    return (f"the Ray cluster at {address} refused this process's token (InvalidAuthToken): it runs with token "
            "authentication (RAY_AUTH_MODE=token), so give its token with --ray-token-file FILE (the CLI), "
            f"{TOKEN_FILE_ENV}=FILE (the trainer service), or RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH; every node "
            "needs the same token (see the README's Ray section)")


def connect(address: str, token_file: str | os.PathLike | None = None, **options):
    """The `ray` module, connected to the cluster at `address` once per process (spawning.connected_ray), with
    `token_file` (default $LCSM_RAY_TOKEN_FILE) presented as its token. RayAuthError when the cluster refuses
    the token, RayConnectError when it cannot be reached; ImportError when Ray (or, for a ray:// address,
    `ray[client]`) is not installed."""
    from lcsm_serving.spawning import connected_ray
    use_token_file(token_file or os.environ.get(TOKEN_FILE_ENV) or None)
    if address.startswith("ray://"):
        try:
            import grpc  # noqa: F401 — what Ray's client needs beyond plain ray
        except ImportError:
            raise ImportError(f"a ray:// address ({address}) needs Ray's client: pip install 'ray[client]'") from None
    try:
        return connected_ray(address, **options)
    except Exception as err:
        if auth_refused(err):
            raise RayAuthError(auth_message(address)) from None
        if isinstance(err, ConnectionError):
            hint = (": Ray's client shows a refused token as this timeout too, so check the token as well "
                    f"(--ray-token-file, {TOKEN_FILE_ENV}, RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH)"
                    if address.startswith("ray://") else "")
            raise RayConnectError(f"could not connect to the Ray cluster at {address} ({err}){hint}") from None
        raise

"""Grids on a real Ray cluster: the driver (the paper lab's CLI) writes every cell into its store, and no Ray
worker opens it. The cluster is `ray start --head` (no CPUs of its own) in its own process group and a second
`ray start --address` node — the stand-in for another host: its environment names no data directory, has a HOME
of its own, and makes any SQLite open fail — with token authentication on; the CLI reaches it with
--ray-token-file, by its GCS address and through ray://. On a one-node local instance (local_ray): the trainer
service's manager on Ray (a grid cell's numerics, a CUDA run refused, live runs taking turns through checkpoints
that travel back to the service) and a CLI grid's stop reaching its cells. Plus what needs no cluster: the outbox
round trip, the GPU refusal, the token errors' words."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import types
import uuid
from pathlib import Path

import numpy as np
import pytest

from lcsm_core.training.numerics import CELL_THREADS, repeatable
from lcsm_serving import RunStore, record_run
from lcsm_serving.remote import RayAuthError, RayConnectError, RunOutbox, auth_refused, connect, gpu_refusal, replay
from tests.training.test_paper_lab_cli import lines, run_cli
from tests.training.tiny import tiny_config

RAY = Path(sys.executable).with_name("ray")
STARTED = "Ray runtime started"
# A Ray worker of the "other host" may not open any SQLite file: the run store must come back through Ray.
NO_STORE = """import os, sqlite3, sys
def _refused(*args, **kwargs):
    raise RuntimeError(f"a Ray worker opened a SQLite file: {args[:1]}")
sqlite3.connect = _refused
with open(os.path.join(os.path.dirname(__file__), f"python-{os.getpid()}"), "w") as f:
    f.write(" ".join(sys.argv))
"""


def test_a_run_recorded_into_an_outbox_and_replayed_equals_one_recorded_into_the_store(tmp_path):
    config = tiny_config(max_steps=12, eval_every=4, snapshot_every=4)
    direct, relayed = RunStore(tmp_path / "direct.sqlite"), RunStore(tmp_path / "relayed.sqlite")
    a, b = (store.create_run(config.to_dict(), "tiny") for store in (direct, relayed))
    with repeatable(CELL_THREADS):
        record_run(direct, a, config)
        outbox = RunOutbox(b)
        record_run(outbox, b, config)
    replay(relayed, outbox.take())
    assert outbox.take() == []
    one, two = direct.get_run(a), relayed.get_run(b)
    assert (one.status, one.steps, one.test_acc, one.numerics) == (two.status, two.steps, two.test_acc, two.numerics)
    assert two.status == "completed" and two.numerics["threads"] == CELL_THREADS and two.numerics["deterministic"]
    np.testing.assert_array_equal(direct.metrics(a)["loss"], relayed.metrics(b)["loss"])     # step 0: NaN in both
    assert len(direct.snapshots(a)) == len(relayed.snapshots(b)) > 0
    replay(relayed, [("save_checkpoint", b, b"weights")])             # a turn's checkpoint lands beside the store
    assert relayed.checkpoint(b) == b"weights" and RunOutbox(b, b"weights").checkpoint(b) == b"weights"
    with pytest.raises(ValueError, match="unknown store call"):
        replay(relayed, [("create_run", {}, "x")])


def test_a_gpu_asked_of_a_cluster_without_one_is_refused_in_words():
    assert gpu_refusal(0, {"CPU": 2}, "h:1") is None and gpu_refusal(0.5, {"GPU": 1}, "h:1") is None
    assert "has 0" in gpu_refusal(1, {"CPU": 2}, "h:6379") and "h:6379" in gpu_refusal(1, {}, "h:6379")


def test_a_refused_token_is_one_readable_error(monkeypatch, tmp_path):
    from lcsm_serving import remote, spawning
    monkeypatch.setattr(remote, "sys", types.SimpleNamespace(modules={}))     # leave this process's Ray settings be

    class AuthenticationError(Exception):
        pass

    def refused(address, **options):
        try:
            raise AuthenticationError("RPC error: InvalidAuthToken: Authentication token is missing or incorrect")
        except AuthenticationError as cause:
            raise ConnectionError(f"Failed to connect to Ray cluster at {address}") from cause
    monkeypatch.setattr(spawning, "connected_ray", refused)
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_TOKEN"):
        monkeypatch.setenv(name, "")        # recorded as it was (unset, say), so what connect() sets below goes
        monkeypatch.delenv(name)            # at the end: a local Ray started later by this process asks no token
    token = tmp_path / "token"
    token.write_text("0" * 32)
    with pytest.raises(RayAuthError, match="--ray-token-file") as refusal:
        connect("10.0.0.1:6379", token)
    assert "10.0.0.1:6379" in str(refusal.value) and auth_refused(ConnectionError("x: InvalidAuthToken"))
    assert os.environ["RAY_AUTH_MODE"] == "token" and os.environ["RAY_AUTH_TOKEN_PATH"] == str(token)
    with pytest.raises(RayAuthError, match="does not exist"):
        connect("10.0.0.1:6379", tmp_path / "missing")

    def timed_out(address, **options):
        raise ConnectionError("ray client connection timeout")
    monkeypatch.setattr(spawning, "connected_ray", timed_out)
    with pytest.raises(RayConnectError, match="ray://10.0.0.1:10001 .ray client connection timeout.*check the token"):
        connect("ray://10.0.0.1:10001", token)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(log: Path, proc: subprocess.Popen, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if STARTED in log.read_text(errors="replace"):
            return True
        time.sleep(0.5)
    return False


def _end(proc: subprocess.Popen) -> None:
    """End a `ray start --block` process group (its raylet, GCS, workers): SIGTERM, then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, 8), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            time.sleep(1)                                # its children leave the group a moment later
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture
def two_node_cluster():
    """A head with no CPUs and a worker node with one (a cell can only run on the worker node), both with token
    authentication on. Yields (GCS address, Ray client address, token file, the cluster's folder); both process
    groups end after."""
    if not RAY.exists():
        pytest.skip(f"no `ray` command beside {sys.executable}")
    root = Path(tempfile.mkdtemp(prefix="lcsm-ray-", dir="/tmp"))      # short: Ray's socket paths have a limit
    token = root / "token"
    token.write_text(uuid.uuid4().hex)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "LCSM_"))}
    base.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token), RAY_USAGE_STATS_ENABLED="0",
                OMP_NUM_THREADS="1")
    port, client_port = _free_port(), _free_port()
    procs = []

    def start(args, env, log):
        proc = subprocess.Popen([str(RAY), "start", "--block", "--node-ip-address=127.0.0.1", *args], env=env,
                                stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
        procs.append(proc)
        return proc

    try:
        head_log = root / "head.log"
        head = start(["--head", f"--port={port}", "--num-cpus=0", "--include-dashboard=false",
                      f"--ray-client-server-port={client_port}", f"--temp-dir={root / 't'}"], base, head_log)
        if not _wait_for(head_log, head, 60):
            pytest.skip(f"ray start --head did not start here: {head_log.read_text()[-1500:]}")
        (root / "guard").mkdir()
        (root / "guard" / "sitecustomize.py").write_text(NO_STORE)
        (root / "home").mkdir()
        other_host = dict(base, HOME=str(root / "home"), PYTHONPATH=str(root / "guard"))
        worker_log = root / "worker.log"
        worker = start([f"--address=127.0.0.1:{port}", "--num-cpus=1"], other_host, worker_log)
        if not _wait_for(worker_log, worker, 60):
            pytest.skip(f"the second Ray node did not start here: {worker_log.read_text()[-1500:]}")
        yield f"127.0.0.1:{port}", f"ray://127.0.0.1:{client_port}", token, root
    finally:
        for proc in reversed(procs):
            _end(proc)
        shutil.rmtree(root, ignore_errors=True)


CLIENT_SERVER_FAILED = "Starting Ray client server failed"


def _through_client(args, env, root: Path):
    """The CLI through ray://. The head's proxy starts a Ray client server per connection; on a busy machine that
    server has been seen to die while starting (Ray's side, before our code runs), so one such failure is tried
    again, and a second one fails with the server's own log instead of our generic connection words."""
    out = run_cli(args, env, timeout=120)
    if CLIENT_SERVER_FAILED in out.stderr:
        time.sleep(5)
        out = run_cli(args, env, timeout=120)
    if CLIENT_SERVER_FAILED in out.stderr:
        logs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}"
                         for p in sorted(root.rglob("ray_client_server*")) if p.is_file())
        pytest.fail(f"Ray's client server did not start twice:\n{out.stderr[-1500:]}\n{logs}")
    return out


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_a_grid_cell_on_another_node_lands_in_the_drivers_store(tmp_path, subprocess_env, two_node_cluster):
    address, client_address, token, root = two_node_cluster
    db = tmp_path / "lab.sqlite"
    grid = ["--grid", "parameterization", "--seq-lens", "32", "--kv-pairs", "2", "--d-model", "8",
            "--expand-dim", "8", "--lrs", "0.01", "--steps", "3", "--batch-size", "4", "--seeds", "0",
            "--ray-token-file", str(token), "--cpus-per-cell", "1", "--db", str(db)]

    # through Ray's client (ray[client]), which sees the cluster's resources: a GPU it lacks is refused in words
    refused = _through_client([*grid, "--ray", client_address, "--gpus-per-cell", "1"], subprocess_env, root)
    assert refused.returncode == 2 and "asks for 1 GPU(s)" in refused.stderr, refused.stderr[-3000:]
    assert f"the Ray cluster at {client_address} has 0" in refused.stderr
    assert RunStore(db).list_runs() == []                               # refused before anything was admitted

    out = run_cli([*grid, "--ray", address, "--gpus-per-cell", "0"], subprocess_env, timeout=150)
    assert out.returncode == 0, out.stderr[-3000:]
    *cells, summary = lines(out.stdout)
    assert len(cells) == 3 and {c["status"] for c in cells} == {"completed"} and summary["ran_now"] == 3
    store = RunStore(db)
    for row in store.list_runs():
        assert row.status == "completed" and row.steps == 3 and row.config["task"]["seq_len"] == 32
        assert row.numerics["threads"] == 1 and row.numerics["deterministic"] is True
        losses = store.metrics(row.id)["loss"]
        assert np.isfinite(losses).sum() == 3 and store.snapshots(row.id)          # steps 1-3 and the evaluations
    guarded = [p.read_text() for p in (root / "guard").glob("python-*")]
    assert any("default_worker" in argv for argv in guarded), guarded      # the guard was on in the node's workers
    assert "a Ray worker opened a SQLite file" not in out.stderr
    assert not list((root / "home").rglob("*.sqlite"))                  # the other host kept no store of its own


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_the_services_grid_lane_on_ray_trains_cells_as_the_cli_does_and_refuses_a_gpu_it_lacks(tmp_path, local_ray):
    """The trainer service's manager on Ray: a grid cell trains on one thread, deterministic (its row's numerics
    say so), written by the manager's process; a live run asking for CUDA on this GPU-less cluster fails at once
    with the reason instead of waiting for a GPU."""
    from lcsm_core.training import SizeLimits
    from lcsm_serving import RunManager
    from lcsm_serving.store import GRID_JOB
    from tests.training.test_manager import wait_for
    manager = RunManager(tmp_path / "runs.sqlite", max_concurrent=1, grid_workers=1, ray_address="auto",
                         limits=SizeLimits(max_steps=1000))
    store = manager.store
    try:
        config = tiny_config(max_steps=6, eval_every=3, snapshot_every=3)
        cell, = store.admit_grid("g", [(config.to_dict(), "cell", 1.0)], "grid:g", job=GRID_JOB)
        manager.adopt_cell(cell, config)
        gpu = manager.submit(tiny_config(device="cuda"), "alice")
        assert manager.wait(cell, 120) and manager.wait(gpu, 30)
        row = store.get_run(cell)
        assert (row.status, row.steps) == ("completed", 6) and len(store.metrics(cell)["step"]) > 6
        assert row.numerics["threads"] == CELL_THREADS and row.numerics["deterministic"] is True
        assert wait_for(lambda: store.get_run(gpu).status == "failed", 10)
        assert "asks for 1 GPU(s) but the Ray cluster at auto has 0" in store.get_run(gpu).reason
    finally:
        manager.shutdown()


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_live_runs_on_ray_take_turns_through_checkpoints_the_service_keeps(tmp_path, local_ray):
    """A turn's checkpoint comes back from the actor and is written beside the service's store; the next turn (a new
    actor) gets it with its train call: both runs store exactly what uninterrupted runs store."""
    from lcsm_serving import RunManager
    from lcsm_serving.checkpoints import checkpoints_dir
    from tests.training.test_time_slice import assert_stored_equal, config, stored, turns, uninterrupted
    manager = RunManager(tmp_path / "runs.sqlite", max_concurrent=1, ray_address="auto", torch_threads=1,
                         slice_s=0.2)
    try:
        # each turn starts an actor: few turns, short runs — yet each run longer than two 0.2-s slices on a fast CPU,
        # where a 40-step run ends within its first turn
        first, second = config(80), config(60, seed=1)
        a, b = manager.submit(first, "alice"), manager.submit(second, "bob")
        assert manager.wait(a, 300) and manager.wait(b, 300)            # turns start actors: slow on a busy machine
        assert [manager.store.get_run(r).status for r in (a, b)] == ["completed", "completed"]
        assert len(turns(manager.db_path, [a, b])) >= 3
        assert_stored_equal(uninterrupted(tmp_path, first, "alone-a"), stored(manager.store, a))
        assert_stored_equal(uninterrupted(tmp_path, second, "alone-b"), stored(manager.store, b))
        assert not any(checkpoints_dir(manager.db_path).iterdir())
    finally:
        manager.shutdown()


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_stopping_a_cli_grid_on_ray_reaches_its_training_cells_and_cancels_the_rest(tmp_path, local_ray):
    """GridRunner.stop asks through the store; the thread driving a cell forwards it to the actor, which ends the
    cell "stopped" with the reason; a cell still waiting for a CPU never starts."""
    from lcsm_core.paper_lab import GridSpec
    from lcsm_serving.paper_lab import GridRunner
    from tests.training.test_manager import wait_for
    runner = GridRunner(tmp_path / "lab.sqlite", ray_address="auto")
    spec = GridSpec(ablation="parameterization", seq_lens=(16,), kv_pairs=2, d_model=8, expand_dim=8, lrs=(1e-2,),
                    steps=1_000_000, batch_size=4, seeds=(0,))
    _, launched = runner.launch(spec)
    store = RunStore(runner.db_path)
    ids = [run_id for _, run_id, _ in launched]
    assert wait_for(lambda: sum(store.get_run(i).steps > 0 for i in ids) == 2, 60)     # 2 CPUs: 2 cells train
    assert runner.stop(reason="enough") == 3
    futures = [future for _, _, future in launched]
    assert sum(future.cancelled() for future in futures) == 1                       # the one waiting for a CPU
    assert all(future.cancelled() or future.result(60)["status"] == "stopped" for future in futures)
    assert [store.get_run(i).status for i in ids] == ["stopped"] * 3
    assert {store.get_run(i).reason for i in ids} == {"enough"}
    assert runner.active_grid is None

"""Training worker processes: each trains one run at a time with one torch thread, so trainings run beside the
server (not inside its GIL) and several can run at once on a machine with cores to spare.

Workers are started with the spawn method (a forked copy of a threaded server could inherit held locks) and
stay up between runs (torch imported once). Messages, in order, on one queue per worker:

    server → worker:  ("run", run_id, config dict, RunControl.state())  then  ("command", run_id, name, args)
                      ... ; None: exit
    worker → server:  (worker index, run_id, "ended" | PREEMPTED) on the manager's events queue
                      (PREEMPTED: the run gave its slot back, its checkpoint saved; it waits for another turn)

The worker writes the run into the SQLite store itself (record_run, as a thread would); the server keeps only
the controls (RemoteControl). A worker whose server died stops its run and marks it "interrupted".
RayWorker places a run on a Ray cluster instead, with the same calls (the service with LCSM_RAY_ADDRESS); there the
worker sends its store calls back to the service, which writes them (remote.py).
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import queue
import sqlite3
import threading
import time

from lcsm_core.training.control import WORKER_COMMANDS, RemoteControl, RunControl
from lcsm_serving.spawning import main_hidden_from_workers
from lcsm_serving.store_faults import fault_kind, log_store_fault, run_fault_reason

PARENT_CHECK_S = 0.5                      # how often a worker looks for its server
PARENT_GONE_GRACE_S = 1.0                 # then how long its run may take to end itself (its step, its last evaluation)
PARENT_GONE_MARK_S = 1.5                  # and how long marking the run "interrupted" may take before the worker exits
ORPHAN_REASON = "its server process stopped before it finished"
RETRY_WRITE_S = 1.0                       # how often a run the store could not save retries writing its end
NOT_COMING_BACK = ("moved", "damaged")    # store faults that waiting does not cure


class WorkerProcess:
    """The server's handle on one worker process."""

    def __init__(self, index: int, db_path: str, events, threads: int, nice: int = 0, repeatable: bool = False):
        """`nice`: the worker's CPU priority, added to this process's (a grid cell's worker: GRID_NICE, low).
        `repeatable`: torch's deterministic algorithms on in the worker (a grid cell's: numerics.repeatable)."""
        ctx = multiprocessing.get_context("spawn")
        self.index = index
        self.inbox = ctx.Queue()
        self.run_id: int | None = None
        self.process = ctx.Process(target=worker_main,
                                   args=(index, db_path, self.inbox, events, threads, os.getpid(), nice, repeatable),
                                   daemon=True, name=f"lcsm-train-worker-{index}")
        with main_hidden_from_workers():
            self.process.start()

    @property
    def alive(self) -> bool:
        return self.process.is_alive()

    @property
    def exitcode(self) -> int | None:
        return self.process.exitcode

    def start(self, run_id: int, config: dict, control: RemoteControl) -> None:
        """Hand run `run_id` to this worker; `control` sends its commands here from now on."""
        self.run_id = run_id
        state = control.attach(lambda name, args: self.inbox.put(("command", run_id, name, args)))
        self.inbox.put(("run", run_id, config, state))

    def resident_bytes(self) -> int | None:
        """The worker's resident memory now (Linux /proc), None when unknown."""
        try:
            with open(f"/proc/{self.process.pid}/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            return None

    def close(self, timeout: float = 5.0) -> None:
        """Ask the worker to exit; terminate it if it does not within `timeout` seconds."""
        if self.alive:
            self.inbox.put(None)
            self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(2.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(2.0)
        self.inbox.close()
        self.inbox.cancel_join_thread()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
            self.process.join(2.0)


def worker_main(index: int, db_path: str, inbox, events, threads: int, parent_pid: int, nice: int = 0,
                repeatable: bool = False) -> None:
    """The worker process: run jobs from `inbox` until None (or until its server is gone); `repeatable`: with torch's
    deterministic algorithms on (a grid cell's worker, as numerics.repeatable)."""
    jobs: queue.Queue = queue.Queue()
    current: dict = {}
    ended = threading.Event()
    # Watched from the start: a server killed while this worker still imports torch must not leave it behind.
    threading.Thread(target=_watch_parent, args=(parent_pid, jobs, current, db_path, ended), daemon=True).start()
    if nice:
        os.nice(nice)
    import torch

    from lcsm_serving.recorder import record_run, turn_end
    from lcsm_serving.store import RunStore
    torch.set_num_threads(threads)
    if repeatable:
        torch.use_deterministic_algorithms(True, warn_only=True)
    torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))])       # pay the optimiser's lazy import now
    threading.Thread(target=_read_inbox, args=(inbox, jobs, current), daemon=True).start()
    store = RunStore(db_path)
    try:
        while (job := jobs.get()) is not None:
            run_id, config, control = job
            from lcsm_core.training.config import RunConfig
            end = "ended"
            try:
                end = turn_end(record_run(store, run_id, RunConfig.from_dict(config), control))
                if os.getppid() != parent_pid:
                    store.set_status(run_id, "interrupted", ORPHAN_REASON)
            except sqlite3.Error as fault:           # a full disk mid-run: the worker lives, the run ends in words
                end_when_writable(store, run_id, fault, lambda: os.getppid() == parent_pid)
            current.clear()
            _give_memory_back()
            events.put((index, run_id, end))
    finally:
        store.close()
        ended.set()


def end_when_writable(store, run_id: int, fault: sqlite3.Error, server_alive, retry_s: float = RETRY_WRITE_S) -> bool:
    """The store refused a run's write (a full disk): mark the run "failed", with the reason, as
    soon as the store takes a write again (tried every `retry_s` while `server_alive()`), so the page shows why
    it ended instead of "running", then "lost". The steps saved before stay. A fault waiting does not cure (the
    file deleted, replaced or damaged) is logged and left. True once the end is written."""
    reason = run_fault_reason(fault)
    log_store_fault(fault, f"run {run_id}")
    while fault_kind(fault) not in NOT_COMING_BACK and server_alive():
        try:
            store.set_status(run_id, "failed", reason)
            return True
        except sqlite3.Error as again:
            fault = again
            time.sleep(retry_s)
    return False


def _read_inbox(inbox, jobs: queue.Queue, current: dict) -> None:
    """Messages in order: a run's controls exist before any command for it is applied."""
    while True:
        try:
            message = inbox.get()
        except (EOFError, OSError):
            message = None
        if message is None:
            jobs.put(None)
            return
        if message[0] == "run":
            _, run_id, config, state = message
            control = RunControl.from_state(state)
            current.update(run_id=run_id, control=control)
            jobs.put((run_id, config, control))
        elif message[0] == "command":
            _, run_id, name, args = message
            if current.get("run_id") == run_id and name in WORKER_COMMANDS:
                getattr(current["control"], name)(*args)


def _watch_parent(parent_pid: int, jobs: queue.Queue, current: dict, db_path: str, ended: threading.Event) -> None:
    """The server died (kill -9): stop the run and exit within a few seconds whatever it is doing. The run ends
    itself ("interrupted", its last rows saved) when its step and last evaluation finish within
    PARENT_GONE_GRACE_S; a niced grid worker on a busy machine takes far longer (12–19 s were seen), so past that
    this thread marks the run and ends the process (the steps saved before are kept)."""
    while os.getppid() == parent_pid:
        time.sleep(PARENT_CHECK_S)
    control = current.get("control")
    if control is not None:
        control.stop("its server process stopped")
    jobs.put(None)
    run_id = None if ended.wait(PARENT_GONE_GRACE_S) else current.get("run_id")   # read once: the main loop clears it
    if run_id is not None:
        marking = threading.Thread(target=_mark_orphaned, args=(db_path, run_id), daemon=True)
        marking.start()
        marking.join(PARENT_GONE_MARK_S)     # a store busy for longer: the next reader marks the run instead
    os._exit(0)


def _mark_orphaned(db_path: str, run_id: int) -> None:
    """Mark the run "interrupted" on a connection of its own (the main thread may hold the worker's)."""
    from lcsm_serving.store import RunStore
    try:
        store = RunStore(db_path)
        try:
            store.set_status(run_id, "interrupted", ORPHAN_REASON)
        finally:
            store.close()
    except (sqlite3.Error, OSError) as fault:
        log_store_fault(fault, f"run {run_id}")


def _give_memory_back() -> None:
    """Return freed heap pages to the system after a run (glibc keeps them otherwise): an idle worker should
    not hold a big run's peak."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class RayWorker:
    """A run placed on a Ray cluster instead of a local worker process (the service with LCSM_RAY_ADDRESS):
    one actor per run (remote.RemoteTrainer), holding one CPU, or one GPU when the run asks for CUDA (or for
    "auto" on a cluster that has GPUs); a run that asks for CUDA on a cluster without GPUs fails at once, with
    the reason, instead of waiting for ever. The same calls as WorkerProcess, so RunManager's policy does not
    change. The actor never opens the run store: a thread here takes its calls and writes them into this
    process's store (remote.drive), so the Ray nodes need no path to the store. Actors share the service's fate:
    a service that dies takes them with it, and its runs end "interrupted" (the store sees their owner gone).
    `repeatable`: train as a paper-lab cell does (a grid cell: one thread, deterministic algorithms)."""

    def __init__(self, index: int, db_path: str, events, threads: int, address: str, repeatable: bool = False):
        from lcsm_serving.remote import connect
        connect(address, log_to_driver=False)
        self.index, self.db_path, self.events, self.threads = index, db_path, events, threads
        self.address, self.repeatable = address, repeatable
        self.run_id: int | None = None
        self.exitcode: str | None = None
        self._actor = None

    @property
    def alive(self) -> bool:
        return self.exitcode is None

    def start(self, run_id: int, config: dict, control: RemoteControl) -> None:
        import ray

        from lcsm_serving.remote import RemoteTrainer, gpu_refusal
        from lcsm_serving.store import RunStore
        self.run_id = run_id
        store = RunStore(self.db_path)
        device = config["optim"].get("device", "auto")
        resources = ray.cluster_resources()
        refusal = gpu_refusal(1, resources, self.address) if device == "cuda" else None
        if refusal:
            store.set_status(run_id, "failed", refusal.replace("each run asks", "it asks"))
            store.close()
            self.events.put((self.index, run_id, "ended"))
            return
        gpus = 1 if _wants_gpu(device, resources) else 0
        actor_type = ray.remote(num_cpus=0 if gpus else 1, num_gpus=gpus, max_concurrency=3)(RemoteTrainer)
        actor = self._actor = actor_type.remote(self.threads, self.repeatable)
        state = control.attach(lambda name, args: actor.command.remote(run_id, name, args))
        ref = actor.train.remote(run_id, config, state, store.checkpoint(run_id))
        threading.Thread(target=self._drive, args=(ray, actor, ref, run_id, store), daemon=True,
                         name=f"lcsm-ray-run-{run_id}").start()

    def _drive(self, ray, actor, ref, run_id: int, store) -> None:
        """Write the run's calls into the store until it ends (or its turn does), then tell the manager, as a worker
        process would; or say how the actor died (the manager fails the run with it)."""
        from lcsm_serving.remote import drive, end_actor
        try:
            self.events.put((self.index, run_id, drive(ray, actor, ref, store)))
        except Exception as err:  # noqa: BLE001 — the manager fails the run with this description
            self.exitcode = f"Ray: {type(err).__name__}"
        finally:
            end_actor(ray, actor)
            store.close()

    def resident_bytes(self) -> int | None:
        return None                          # the node's memory is Ray's to watch

    def close(self, timeout: float = 5.0) -> None:
        self.kill()

    def kill(self) -> None:
        if self._actor is not None:
            import ray

            from lcsm_serving.remote import end_actor
            end_actor(ray, self._actor)
            self._actor = None


def _wants_gpu(device: str, resources: dict) -> bool:
    return device == "cuda" or (device == "auto" and resources.get("GPU", 0) > 0)

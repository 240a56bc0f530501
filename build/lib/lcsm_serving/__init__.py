"""Serving the core to many people: runs kept in SQLite, trained by worker processes or on Ray, admitted fairly,
shared with a class. It imports lcsm_core and never the reverse (tests/test_house_rules.py).

- store:       RunStore: SQLite (WAL) runs, metrics, eigenvalue snapshots, jobs and commands; store_faults: its
               errors in words
- recorder:    record_run(): drive a training loop into the store, flushed every ≤ 0.5 s
- checkpoints: where a run between two turns keeps its checkpoint (a file beside the store)
- worker:      training worker processes (spawned, one torch thread each) driven through RemoteControl
- remote:      training on a Ray cluster: the actor sends its store calls back, the launcher writes them
- spawning:    starting worker processes and reaching Ray without re-running the caller's script
- manager:     RunManager: worker processes, server-wide cap, queue, one place per session, paused-slot release,
               turns; shared_manager() (one process's own manager: the policy engine the trainer service runs)
- admission:   who may start what: per-visitor and per-class shares, budgets, the words of a refusal
- service:     the trainer service (`python -m lcsm_serving.service`): jobs and commands from the store
- client:      TrainerClient / shared_client(): what a web process submits and drives runs with
- compare:     two stored runs side by side
- tokens, class_store, progress_store: signed browser identities, classes and their seats, a learner's progress
- train:       `python -m lcsm_serving.train`: one run from the command line into a store
- paper_lab:   GridRunner and the paper lab's command line (`python -m lcsm_serving.paper_lab`)
"""
from .client import TrainerClient, shared_client
from .manager import RunManager, describe, shared_manager
from .recorder import record_run
from .store import RunRow, RunStore, default_db_path, owner_hash

__all__ = ["RunManager", "RunRow", "RunStore", "TrainerClient", "default_db_path", "describe", "owner_hash",
           "record_run", "shared_client", "shared_manager"]

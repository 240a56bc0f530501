"""Training small EOS models on the synthetic tasks, and keeping the runs.

- config:   RunConfig = task + ModelConfig + OptimConfig; run_config() from flat settings; SizeLimits
- model:    embedding → N × [norm → EOS layer → norm → MLP] → head
- loop:     Trainer / train(): the training loop as an iterator of TrainRecord
- control:  RunControl: pause / step / resume / stop / learning rate, thread-safe
- store:    RunStore: SQLite (WAL) runs, metrics, eigenvalue snapshots
- recorder: record_run(): drive a loop into the store, flushed every ≤ 0.5 s
- cost:     estimate_cost(): peak memory and time of a training step from a config (SizeLimits' budget)
- numerics: fingerprint() of what a run's numbers depend on beyond its config; repeatable() settings
- worker:   training worker processes (spawned, one torch thread each) driven through RemoteControl
- remote:   training on a Ray cluster: the actor sends its store calls back, the launcher writes them
- checkpoints: where a run between two turns keeps its checkpoint (a file beside the store)
- manager:  RunManager: worker processes, server-wide cap, queue, one place per session, paused-slot release, turns;
            shared_manager() (one process's own manager: the policy engine the trainer service runs)
- service:  the trainer service (`python -m lcsm_core.training.service`): jobs and commands from the store
- client:   TrainerClient / shared_client(): what a web process submits and drives runs with
"""
from .client import TrainerClient, shared_client
from .config import ModelConfig, OptimConfig, RunConfig, SizeLimits, run_config
from .control import RunControl
from .loop import Trainer, TrainRecord, train
from .manager import RunManager, describe, shared_manager
from .recorder import record_run
from .store import RunRow, RunStore, default_db_path, owner_hash

__all__ = ["ModelConfig", "OptimConfig", "RunConfig", "RunControl", "RunManager", "RunRow", "RunStore",
           "SizeLimits", "TrainRecord", "Trainer", "TrainerClient", "default_db_path", "describe", "owner_hash",
           "record_run", "run_config", "shared_client", "shared_manager", "train"]

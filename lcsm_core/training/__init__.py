"""Training small EOS models on the synthetic tasks, and keeping the runs.

- config:   RunConfig = task + ModelConfig + OptimConfig; run_config() from flat settings; SizeLimits
- model:    embedding → N × [norm → EOS layer → norm → MLP] → head
- loop:     Trainer / train(): the training loop as an iterator of TrainRecord
- control:  RunControl: pause / step / resume / stop / learning rate, thread-safe
- store:    RunStore: SQLite (WAL) runs, metrics, eigenvalue snapshots
- recorder: record_run(): drive a loop into the store, flushed every ≤ 0.5 s
- manager:  RunManager: worker threads, server-wide cap, queue, one run per session; shared_manager()
"""
from .config import ModelConfig, OptimConfig, RunConfig, SizeLimits, run_config
from .control import RunControl
from .loop import Trainer, TrainRecord, train
from .manager import RunManager, describe, shared_manager
from .recorder import record_run
from .store import RunRow, RunStore, default_db_path

__all__ = ["ModelConfig", "OptimConfig", "RunConfig", "RunControl", "RunManager", "RunRow", "RunStore",
           "SizeLimits", "TrainRecord", "Trainer", "default_db_path", "describe", "record_run", "run_config",
           "shared_manager", "train"]

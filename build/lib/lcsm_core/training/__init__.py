"""Training small EOS models on the synthetic tasks (keeping, serving and sharing runs is lcsm_serving's).

- config:   RunConfig = task + ModelConfig + OptimConfig; run_config() from flat settings; SizeLimits
- model:    embedding → N × [norm → EOS layer → norm → MLP] → head
- loop:     Trainer / train(): the training loop as an iterator of TrainRecord
- control:  RunControl: pause / step / resume / stop / learning rate, thread-safe
- cost:     estimate_cost(): peak memory and time of a training step from a config (SizeLimits' budget)
- numerics: fingerprint() of what a run's numbers depend on beyond its config; repeatable() settings
"""
from .config import ModelConfig, OptimConfig, RunConfig, SizeLimits, run_config
from .control import RunControl
from .loop import Trainer, TrainRecord, train

__all__ = ["ModelConfig", "OptimConfig", "RunConfig", "RunControl", "SizeLimits", "TrainRecord", "Trainer",
           "run_config", "train"]

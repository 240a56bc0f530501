"""Synthetic sequence tasks that separate sequence-model variants.

Each task is a function `(sizes..., num_examples, seed) -> (inputs, labels)` with
LongTensors (N, seq_len) and labels -100 where nothing is asked, plus a typed config
whose `build(num_examples, seed)` calls it.
"""
from __future__ import annotations

from typing import Literal

from .mqar import IGNORE, MQARConfig, mqar
from .selective_copying import SelectiveCopyingConfig, selective_copying

TaskName = Literal["mqar", "selective_copying"]
TASK_NAMES: tuple[str, ...] = ("mqar", "selective_copying")
TaskConfig = MQARConfig | SelectiveCopyingConfig


def task_config(name: str, **sizes) -> TaskConfig:
    """The config of task `name` with the given sizes (others at their defaults)."""
    if name == "mqar":
        return MQARConfig(**sizes)
    if name == "selective_copying":
        return SelectiveCopyingConfig(**sizes)
    raise ValueError(f"unknown task {name!r}; choose one of {TASK_NAMES}")


__all__ = ["IGNORE", "MQARConfig", "SelectiveCopyingConfig", "TASK_NAMES", "TaskConfig", "TaskName",
           "mqar", "selective_copying", "task_config"]

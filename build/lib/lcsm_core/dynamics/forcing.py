"""External forces f(t) for the spring, sampled on a uniform grid t (T,)."""
from __future__ import annotations

import numpy as np

FORCINGS = ("impulse", "step", "pulse train", "sine")


def forcing_signal(kind: str, t: np.ndarray, *, frequency: float = 1.0, period: float = 5.0) -> np.ndarray:
    """f (T,) on the grid t (T,), uniform step dt = t[1] - t[0].

    impulse: unit area in the first step (height 1/dt); step: 1 from t = 0;
    pulse train: a unit-area pulse every `period` seconds; sine: sin(frequency · t) (rad/s).
    """
    t = np.asarray(t, dtype=float)
    dt = float(t[1] - t[0]) if t.size > 1 else 1.0
    f = np.zeros_like(t)
    if kind == "impulse":
        f[0] = 1.0 / dt
    elif kind == "step":
        f[:] = 1.0
    elif kind == "pulse train":
        every = max(1, int(round(period / dt)))
        f[::every] = 1.0 / dt
    elif kind == "sine":
        f = np.sin(frequency * t)
    else:
        raise ValueError(f"forcing must be one of {FORCINGS}, got {kind!r}")
    return f

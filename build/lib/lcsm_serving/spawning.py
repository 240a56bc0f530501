"""Starting workers from inside a Streamlit server: spawn-method processes (the paper lab's pool, the training
workers), which hide the app's `__main__` while they start, and the one connection to a Ray cluster (the paper
lab's grids, the trainer service's runs)."""
from __future__ import annotations

import contextlib
import sys
import types


@contextlib.contextmanager
def main_hidden_from_workers():
    """A spawned worker first re-runs the parent's `__main__` from its file (multiprocessing's rule). Under
    Streamlit that file is the app's script (the page that started the worker), which must not run in a
    worker; so while workers start, `__main__` is a blank module and they import only what their target needs."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def connected_ray(address: str, **options):
    """The `ray` module, connected to the cluster at `address` once per process (later calls reuse it).
    `options` go to `ray.init` (e.g. log_to_driver=False). ImportError when Ray is not installed."""
    import ray
    if not ray.is_initialized():
        ray.init(address=address, **options)
    return ray

"""Starting spawn-method worker processes from inside a Streamlit server (the paper lab's pool, the training
workers): both hide the app's `__main__` while their workers start."""
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

"""Loaded by test subprocesses (PYTHONPATH) so they get the stand-in registry too."""
try:
    from tests.training.standin import install

    install()
except Exception:  # noqa: BLE001 — never break the interpreter start
    pass

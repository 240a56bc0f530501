"""What every test shares: a trainer a test started in this process ends with it.

A page under AppTest, or a test of its own, starts the trainer service in a thread of the test process (client.py:
one per store file, kept for the process's life as a server keeps it), and with it a worker process holding torch
(~400 MB). Kept, a test process ends the suite with dozens of them. Here a service, manager or shared client
whose store lies in a test's own `tmp_path` is shut down when that test ends, and any other one a module started
when the module ends."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

REGISTRIES = (("lcsm_serving.client", "_SERVICES"), ("lcsm_serving.client", "_CLIENTS"),
              ("lcsm_serving.manager", "_SHARED"), ("lcsm_serving.paper_lab.runner", "_SHARED"))


def _held() -> list[tuple[dict, Path]]:
    """(registry, store path) of every trainer this process holds (modules not imported hold none)."""
    found = []
    for module, name in REGISTRIES:
        registry = getattr(sys.modules.get(module), name, None)
        if registry:
            found += [(registry, key) for key in list(registry)]
    return found


def _end(registry: dict, key: Path) -> None:
    held = registry.pop(key, None)
    shutdown = getattr(held, "shutdown", None)
    if shutdown is not None:
        shutdown()


def _test_dir_name(node_name: str) -> str:
    """How pytest names a test's `tmp_path` folder (tmpdir.py: word characters, at most 30, then a number)."""
    return re.sub(r"[\W]", "_", node_name)[:30]


@pytest.fixture(autouse=True, scope="module")
def _module_trainers_end():
    before = {(id(registry), key) for registry, key in _held()}
    yield
    for registry, key in _held():
        if (id(registry), key) not in before:
            _end(registry, key)


@pytest.fixture(autouse=True)
def _test_trainers_end(request, tmp_path_factory):
    before = {(id(registry), key) for registry, key in _held()}
    yield
    base, own = tmp_path_factory.getbasetemp().resolve(), _test_dir_name(request.node.name)
    for registry, key in _held():
        if (id(registry), key) in before:
            continue
        try:
            top = Path(key).resolve().relative_to(base).parts[0]
        except (ValueError, IndexError):
            continue
        if re.fullmatch(re.escape(own) + r"\d+", top):
            _end(registry, key)

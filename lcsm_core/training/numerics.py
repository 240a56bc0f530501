"""What a run's numbers depend on beyond its config, and the settings that make them repeat.

On one machine a training run's metrics are a pure function of its config (the data is drawn from the run's
seed and the step, the init from its seed: loop.py) and of five things the config does not say:

- the scan form the EOS layers run (what `form="auto"` picks from the shapes, or LCSM_SCAN_FORM's): the forms
  agree to rounding, not to the last bit;
- torch's CPU threads: a reduction split over more threads adds in another order;
- the torch build and the CPU's instruction set (torch's kernels differ by both);
- the code that computes the numbers: the scan, the variants, the tasks, the model and the loop (`code_version`:
  a hash of their syntax trees without docstrings, so a comment or a docstring changes nothing);
- on CUDA, whether torch's deterministic algorithms were asked for.

`fingerprint` records them for a run (the run store keeps it beside the run, a cell's result carries it), and
`differences` says in words why two results may differ. `repeatable` holds a run to one thread count with
torch's deterministic algorithms on, and gives the process's settings back afterwards.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

    from .config import RunConfig

CELL_THREADS = 1                 # torch threads a paper-lab cell trains on (a grid worker's one core)
_CORE = Path(__file__).resolve().parents[1]
# The code a run's numbers come from, relative to lcsm_core/ (directories: every .py file in them).
NUMERICS_SOURCES = ("scan", "variants", "tasks", "activations.py", "codes.py", "divergence.py",
                    "training/model.py", "training/loop.py", "training/config.py")
KERNEL_SOURCES = _CORE.parent / "kernels"       # the Triton kernels: part of a CUDA run's code
FIELDS = ("form", "threads", "torch", "cpu", "device", "deterministic", "code")


def _source_files(cuda: bool) -> list[Path]:
    files = []
    for name in NUMERICS_SOURCES:
        path = _CORE / name
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    if cuda and KERNEL_SOURCES.is_dir():
        files += sorted(KERNEL_SOURCES.rglob("*.py"))
    return files


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


# CPython 3.11's ast.parse is not safe from two threads at once ("AST constructor recursion depth mismatch"): runs
# trained on threads (a service's workers="thread", a grid's cells) ask for the version together.
_PARSING = threading.Lock()


@functools.lru_cache(maxsize=2)
def _code_version(cuda: bool) -> str:
    digest = hashlib.sha1()
    for path in _source_files(cuda):
        digest.update(str(path.relative_to(_CORE.parent)).encode())
        digest.update(ast.dump(_without_docstrings(ast.parse(path.read_text()))).encode())
    return digest.hexdigest()[:12]


def code_version(cuda: bool = False) -> str:
    """12 hex digits of a hash of the number-making code (NUMERICS_SOURCES; with `cuda`, the kernels too): its
    syntax trees without docstrings, so an edit of a comment, a docstring or the layout keeps the version."""
    with _PARSING:
        return _code_version(bool(cuda))


def run_form(config: RunConfig, device: torch.device) -> str:
    """The scan form the run's EOS layers train in: the config's, LCSM_SCAN_FORM's, or the chooser's pick for the
    layer's shapes at the training batch (lcsm_core.scan.choose, as eos_scan asks it)."""
    from lcsm_core.scan.choose import ScanShape, choose_form

    from .cost import oscillation_of, scan_form
    m = config.model
    if device.type != "cuda" or m.form not in ("auto", "kernel"):
        return scan_form(m, oscillation_of(m), config.optim.batch_size, config.task.seq_len)
    osc = oscillation_of(m)
    return choose_form(ScanShape(psi=osc.psi, T=config.task.seq_len, k=osc.memory_rows, d=osc.memory_cols,
                                 o_rows=osc.rows, o_cols=osc.cols,
                                 sequences=config.optim.batch_size * (osc.channels or 1), cuda=True,
                                 structure=osc.structure, per_step=osc.per_step))


def fingerprint(config: RunConfig, device: torch.device) -> dict:
    """What the run's numbers depend on beyond its config, now, in this process (FIELDS): the scan form, torch's
    threads, torch's version, the CPU's instruction set as torch uses it, the device, whether deterministic
    algorithms are on, and code_version."""
    import torch
    cuda = device.type == "cuda"
    return dict(form=run_form(config, device), threads=torch.get_num_threads(), torch=torch.__version__,
                cpu=torch.backends.cpu.get_cpu_capability(),
                device=torch.cuda.get_device_name(device) if cuda else "cpu",
                deterministic=torch.are_deterministic_algorithms_enabled(), code=code_version(cuda))


def differences(ours: dict | None, theirs: dict | None) -> list[str]:
    """Why two results may differ although their configs agree, one phrase per field that differs ("ours vs
    theirs"); [] when the fingerprints agree. A missing fingerprint is a difference of its own."""
    if not ours or not theirs:
        return ["no fingerprint recorded" if not theirs else "no fingerprint here"]
    return [f"{name} {ours.get(name)!r} vs {theirs.get(name)!r}" for name in FIELDS
            if ours.get(name) != theirs.get(name)]


@contextmanager
def repeatable(threads: int = CELL_THREADS) -> Iterator[None]:
    """Train inside this to get the same numbers from the same config on the same machine: torch on `threads` CPU
    threads with its deterministic algorithms on (on a CPU they change almost nothing; on CUDA they pick the
    deterministic kernels, and cuBLAS needs CUBLAS_WORKSPACE_CONFIG set before it starts, set here when unset).
    The process's thread count and deterministic setting come back afterwards."""
    import torch
    before = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled(), \
        torch.is_deterministic_algorithms_warn_only_enabled()
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        yield
    finally:
        torch.set_num_threads(before[0])
        torch.use_deterministic_algorithms(before[1], warn_only=before[2])

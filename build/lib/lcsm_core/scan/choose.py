"""The one form chooser: which path runs a scan with `form="auto"`.

Everything that asks "which form will run?" asks `choose_form`: `eos_scan` itself (shapes read from its
validated inputs), the dynamics lessons (they simply pass form="auto"), and the training cost model
(`lcsm_core.training.cost`, shapes read from a config before any tensor exists).

CUDA: the Triton kernels (the torch chunked form when they are missing). CPU: the chunked or the recurrent
torch form, by the shapes alone (`cpu_form`). LCSM_SCAN_FORM=recurrent|parallel|chunked|kernel forces a
choice for debugging.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

import torch

from .inputs import ScanInputs
from .structured import steps

ENV_FORM = "LCSM_SCAN_FORM"
FORCEABLE = ("recurrent", "parallel", "chunked", "kernel")

# Largest k·d of a full k×d oscillation for which the chunked form still wins on a CPU.
FULL_OSCILLATION_MAX_KD = 128
# A narrow memory (k or d below 4) goes chunked only when the whole batch's memory is at most SMALL_STEP numbers
# (each of the T steps is then mostly Python overhead) and the sequence at least LONG_SEQUENCE steps long, its
# oscillation not growing: the dynamics lessons' few modes.
SMALL_STEP = 32
LONG_SEQUENCE = 256


@dataclass(frozen=True)
class ScanShape:
    """What the chooser reads: psi, T, the memory k × d, the oscillation's o_rows × o_cols per step, how many
    sequences run side by side (the product of the batch dims), whether some |o| > 1 (known only for a small
    static o), and whether the states live on CUDA."""

    psi: str
    T: int
    k: int
    d: int
    o_rows: int
    o_cols: int
    sequences: int = 1
    growing: bool = False
    cuda: bool = False
    structure: str = "dense"     # "outer" / "delta": a structured o (structured.py), given by its factors
    per_step: bool = True        # False: one o for every step (a static decay)


def shape_of(inp: ScanInputs) -> ScanShape:
    """The chooser's view of validated inputs. Reads o's values (one |o| > 1 check) only for a small static
    o on a CPU, where it costs microseconds."""
    o = inp.o
    if inp.structure != "dense":
        rows, cols = (inp.k, inp.d) if inp.structure == "outer" else (inp.k, inp.k)
        return ScanShape(psi=inp.psi, T=inp.T, k=inp.k, d=inp.d, o_rows=rows, o_cols=cols,
                         sequences=math.prod(inp.batch), cuda=inp.i.is_cuda, structure=inp.structure,
                         per_step=steps(o) > 1)
    small_static = o.shape[-3] == 1 and not o.is_cuda and o.numel() <= SMALL_STEP
    growing = small_static and bool((o.abs() > 1).any())
    rows, cols = (o.shape[-2], o.shape[-1]) if inp.psi == "elementwise" else (inp.k, inp.k)
    return ScanShape(psi=inp.psi, T=inp.T, k=inp.k, d=inp.d, o_rows=rows, o_cols=cols,
                     sequences=math.prod(inp.batch), growing=growing, cuda=inp.i.is_cuda, per_step=o.shape[-3] > 1)


def forced_form() -> str | None:
    value = os.environ.get(ENV_FORM, "").strip().lower()
    return value or None


def choose_form(shape: ScanShape | ScanInputs) -> str:
    """The form `form="auto"` runs: LCSM_SCAN_FORM's, else the kernels on CUDA, else `cpu_form`."""
    if isinstance(shape, ScanInputs):
        shape = shape_of(shape)
    forced = forced_form()
    if forced:
        if forced not in FORCEABLE:
            raise ValueError(f"{ENV_FORM}={forced!r} is not a form; use recurrent, parallel, chunked or kernel")
        return forced
    if shape.cuda:
        from .choose_cuda import cuda_form  # the CUDA rule, beside this CPU one
        return cuda_form(shape) if kernels_available() else "chunked"
    return cpu_form(shape)


def cpu_form(shape: ScanShape) -> str:
    """"chunked" or "recurrent": whichever torch form is faster on a CPU for these shapes (the timings behind each
    rule: benchmarks/results/form_choice-cpu.md).

    The chunked form wins where its blocks are real matmuls: a k×1 or 1×d oscillation. A full k×d
    oscillation per step is expanded to (T, k, d) decays in every block, which costs more
    than the T steps of the recurrent form unless k·d is tiny. LRU (d=1 per output), HGRN/RWKV4 (1×1 per channel)
    and S4/S5 (matrix) are faster recurrent, at any T.

    A narrow memory with a tiny batch still goes chunked for a long sequence (the dynamics lessons: k = n
    modes, d = 1, o = the eigenvalues, a handful of outputs as the batch); many modes over many sequences run
    faster recurrent. Growing modes stay on the exact step-by-step form.

    A static full k×d o (model code 0) goes chunked whenever k, d ≥ 4: that form steps it in groups of
    sequences, one (k, d) tensor for the whole batch and every step, and keeps only the memories entering the
    blocks (chunked_static.py), in a fraction of the recurrent form's time and memory.

    A structured o (`Outer`, `DeltaRule`, structured.py) goes chunked whenever k, d ≥ 4: its chunked forms are
    matmuls over the block and never build the (T, k, d|k) tensor.
    """
    if shape.structure != "dense" and min(shape.k, shape.d) >= 4:
        return "chunked"
    if shape.psi == "matrix":
        return "recurrent"
    if min(shape.k, shape.d) >= 4:
        full = shape.o_rows > 1 and shape.o_cols > 1
        if full and not shape.per_step:
            return "chunked"
        return "chunked" if not full or shape.k * shape.d <= FULL_OSCILLATION_MAX_KD else "recurrent"
    tiny = shape.sequences * shape.k * shape.d <= SMALL_STEP and not shape.growing
    return "chunked" if tiny and shape.T >= LONG_SEQUENCE else "recurrent"


def kernels_available() -> bool:
    try:
        from lcsm_explorer import kernels
        return hasattr(kernels, "eos_kernel_scan")
    except ImportError:
        return False


def device_summary() -> dict:
    """What the core runs on, for the Home page."""
    cuda = torch.cuda.is_available()
    name = torch.cuda.get_device_name(0) if cuda else "CPU"
    if cuda:
        default_path = "Triton kernels" if kernels_available() else "torch chunked form"
    else:
        default_path = "torch chunked or recurrent form, picked per layer shape"
    forced = forced_form()
    return {
        "device": f"CUDA · {name}" if cuda else "CPU",
        "scan_path": f"{forced} (forced by {ENV_FORM})" if forced else default_path,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
    }

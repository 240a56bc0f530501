"""Which path runs a scan (`form="auto"`): the Triton kernels on CUDA (the torch chunked form when they are
missing); on a CPU, the chunked or the recurrent torch form, chosen per layer from its shapes.

LCSM_SCAN_FORM=recurrent|parallel|chunked|kernel forces a choice for debugging.
"""
from __future__ import annotations

import os

import torch

from .scan_inputs import ScanInputs

ENV_FORM = "LCSM_SCAN_FORM"


def forced_form() -> str | None:
    value = os.environ.get(ENV_FORM, "").strip().lower()
    return value or None


def choose_form(inp: ScanInputs) -> str:
    forced = forced_form()
    if forced:
        if forced not in ("recurrent", "parallel", "chunked", "kernel"):
            raise ValueError(f"{ENV_FORM}={forced!r} is not a form; use recurrent, parallel, chunked or kernel")
        return forced
    if inp.i.is_cuda:
        return "kernel" if kernels_available() else "chunked"
    return "chunked" if cpu_prefers_chunked(inp) else "recurrent"


# Largest k·d of a full, per-step k×d oscillation for which the chunked form still wins on a CPU.
FULL_OSCILLATION_MAX_KD = 1024


def cpu_prefers_chunked(inp: ScanInputs) -> bool:
    """Whether the chunked torch form beats the step-by-step one on a CPU, from the shapes alone.

    The chunked form wins where its blocks are real matmuls; elsewhere the T python steps of the
    recurrent form cost less than the extra work. Measured fwd+bwd, B=8, T=64, one thread:
    GLA k=d=16 2.2 vs 12 ms (chunked wins), LRU (d=1 per output) 35 vs 13 ms, HGRN/RWKV4 (1×1 per
    channel) ~1.5× slower chunked, S4/S5 (matrix) > 30 s vs 0.8 s, Longhorn full k×d: 16×64 20 vs
    28 ms but 64×64 131 vs 95 ms.
    """
    if inp.psi == "matrix" or min(inp.k, inp.d) < 4:
        return False
    ko, do = inp.o.shape[-2], inp.o.shape[-1]
    full_per_step = ko > 1 and do > 1 and inp.o.shape[-3] > 1
    return not full_per_step or inp.k * inp.d <= FULL_OSCILLATION_MAX_KD


def kernels_available() -> bool:
    try:
        import kernels  # noqa: F401
        return hasattr(kernels, "eos_kernel_scan")
    except ImportError:
        return False


def scan_kernel(inp: ScanInputs, m0):
    try:
        import kernels
        fn = kernels.eos_kernel_scan
    except (ImportError, AttributeError) as err:
        raise ValueError("form='kernel' needs the Triton kernels in `kernels/`, which are not available") from err
    return fn(inp, m0)


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

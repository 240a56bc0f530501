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


# Largest k·d of a full k×d oscillation for which the chunked form still wins on a CPU.
FULL_OSCILLATION_MAX_KD = 128


def cpu_prefers_chunked(inp: ScanInputs) -> bool:
    """Whether the chunked torch form beats the step-by-step one on a CPU, from the shapes alone.

    The chunked form wins where its blocks are real matmuls: a k×1 or 1×d oscillation. A full k×d
    oscillation, static or per step, is expanded to (T, k, d) decays in every block, which costs more
    than the T steps of the recurrent form unless k·d is tiny. Measured fwd+bwd, T=64, one thread,
    batch 8 / 32: GLA k=d=16 10.5/32.8 recurrent vs 6.2/7.8 ms chunked; Longhorn 16×64 18/70 vs
    28/123 ms; code 1-0-1-0 (static k×d) 32×32 17/23 vs 25/138 ms, 8×8 13.5/13.6 vs 2.6/6.6 ms;
    LRU (d=1 per output), HGRN/RWKV4 (1×1 per channel) and S4/S5 (matrix) are faster recurrent.
    """
    if inp.psi == "matrix" or min(inp.k, inp.d) < 4:
        return False
    full = inp.o.shape[-2] > 1 and inp.o.shape[-1] > 1
    return not full or inp.k * inp.d <= FULL_OSCILLATION_MAX_KD


def kernels_available() -> bool:
    try:
        import kernels  # noqa: F401
        return hasattr(kernels, "eos_kernel_scan")
    except ImportError:
        return False


def scan_kernel(inp: ScanInputs, m0):
    if 0 in inp.batch:
        # An empty batch is a grid of zero programs: nothing to launch. The torch chunked form returns the
        # same empty y and m_T as every other form, still attached to the graph.
        from .scan_chunked import scan_chunked
        return scan_chunked(inp, m0, inp.T)
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

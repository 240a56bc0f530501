"""Which path runs a scan: Triton kernels on CUDA, the torch chunked form on CPU.

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
    if inp.i.is_cuda and kernels_available():
        return "kernel"
    return "chunked"


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
    default_path = "Triton kernels" if cuda and kernels_available() else "torch chunked form"
    forced = forced_form()
    return {
        "device": f"CUDA · {name}" if cuda else "CPU",
        "scan_path": f"{forced} (forced by {ENV_FORM})" if forced else default_path,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
    }

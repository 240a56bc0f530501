"""Triton kernels behind `eos_scan(form="kernel")`. The readable reference is
`lcsm_core.eos_scan(form="recurrent")`; every kernel is tested against it."""

"""Kernel tests run under Triton's interpreter on CPU.

Triton decides at decoration time whether a @triton.jit function is interpreted, so
TRITON_INTERPRET must be set before `kernels` is first imported — conftest is imported
before the test modules (by every xdist worker too), which makes this the place.
"""
import os

os.environ["TRITON_INTERPRET"] = "1"

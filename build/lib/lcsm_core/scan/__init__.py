"""The EOS scan: one public entry point, `eos_scan`, and every form of the recurrence behind it.

    inputs.py     validation and broadcasting of (i, e, o, s): every form starts there
    structured.py an o given by its factors: Outer(k_part, d_part), DeltaRule(k, beta), Diagonal(values)
    reference.py  the recurrence one step at a time: the readable truth every other form is tested against
    backward.py   the hand-written backward of the reference (LCSM appendix 5.1, corrected)
    blocks.py     the attention-like form of one block (shared by the parallel and chunked forms)
    parallel.py   the whole sequence as one block (quadratic in T)
    chunked.py    blocks of C steps joined by the recurrence: the fast CPU form
    chunked_factors.py  its matmul blocks for a k-vector, a d-vector or an Outer (no (T, k, d) decay)
    chunked_delta.py    its WY/UT blocks for a DeltaRule (no k×k matrix)
    chunked_static.py   its blocks for one static k×d o (never copied over batch and time)
    kernel.py     the adapter to the Triton kernels in `kernels/` (validation, flattening)
    choose.py     the one form chooser (`form="auto"`), also asked by the dynamics and the cost model
    entry.py      `eos_scan` itself
"""
from .choose import ScanShape, choose_form, device_summary
from .entry import BACKWARDS, FORMS, eos_scan
from .inputs import ScanInputs, prepare
from .structured import DeltaRule, Diagonal, Outer

__all__ = ["BACKWARDS", "FORMS", "DeltaRule", "Diagonal", "Outer", "ScanInputs", "ScanShape", "choose_form",
           "device_summary", "eos_scan", "prepare"]

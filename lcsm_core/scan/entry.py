"""`eos_scan`: one entry point for every form of the EOS recurrence."""
from __future__ import annotations

from .inputs import check_initial_state, output_real, prepare

FORMS = ("recurrent", "parallel", "chunked", "kernel", "auto")
BACKWARDS = ("autograd", "manual")


def eos_scan(i, e, o, s, *, psi="elementwise", form="recurrent", chunk_size=64,
             initial_state=None, return_state=False, backward="autograd"):
    """Run the Expand–Oscillation–Shrink recurrence.

    Parameters
    ----------
    i : (..., T, d) input state.
    e : (..., T, k) expand state.
    o : oscillation state. psi="elementwise": broadcastable to (..., T, k, d), real or
        complex — per step (..., T, k|1, d|1) or static (k, d), (k, 1), (1, d), scalar.
        psi="matrix": (..., T, k, k) or static (k, k).
    s : (..., T, k) shrink state.
    psi : "elementwise" (m = o ⊙ m + e iᵀ) or "matrix" (m = o m + e iᵀ).
    form : "recurrent" (reference, streaming), "parallel" (masked attention-like,
        elementwise only), "chunked" (blocks of `chunk_size`), "kernel" (Triton),
        "auto" (kernel on CUDA; on a CPU chunked or recurrent by the layer's shapes, see choose.py;
        env LCSM_SCAN_FORM overrides).
    initial_state : optional (..., k, d) memory before step 1 (m_0 = 0 otherwise).
    return_state : also return the final memory m_T (..., k, d).
    backward : "autograd" (differentiate the torch ops) or "manual" (the hand-written
        backward of LCSM appendix 5.1, corrected; recurrent form only).

    Returns
    -------
    y (..., T, d): the real part when the memory is complex; with return_state, (y, m_T).
    """
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    if backward not in BACKWARDS:
        raise ValueError(f"backward must be one of {BACKWARDS}, got {backward!r}")
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
    inp = prepare(i, e, o, s, psi)
    m0 = check_initial_state(initial_state, inp)
    if form == "auto":
        from .choose import choose_form
        form = choose_form(inp)
    if backward == "manual":
        if form != "recurrent":
            raise ValueError(f"backward='manual' is the hand-written backward of the recurrent form; "
                             f"got form={form!r}")
        from .backward import scan_recurrent_manual
        y, m = scan_recurrent_manual(inp, m0)
    elif form == "recurrent":
        from .reference import scan_recurrent
        y, m = scan_recurrent(inp, m0)
    elif form == "parallel":
        from .parallel import scan_parallel
        y, m = scan_parallel(inp, m0)
    elif form == "chunked":
        from .chunked import scan_chunked
        y, m = scan_chunked(inp, m0, chunk_size)
    else:
        from .kernel import scan_kernel
        y, m = scan_kernel(inp, m0)
    y = output_real(y)
    return (y, m) if return_state else y

"""`eos_scan`: one entry point for every form of the EOS recurrence."""
from __future__ import annotations

from .inputs import check_initial_state, output_real, prepare

FORMS = ("recurrent", "parallel", "chunked", "kernel", "auto")
BACKWARDS = ("autograd", "manual")


def eos_scan(i, e, o, s, *, psi="elementwise", form="recurrent", chunk_size=64,
             initial_state=None, return_state=False, backward="autograd", nonfinite="refuse"):
    """Run the Expand–Oscillation–Shrink recurrence.

    Parameters
    ----------
    i : (..., T, d) input state.
    e : (..., T, k) expand state.
    o : oscillation state. psi="elementwise": broadcastable to (..., T, k, d), real or
        complex — per step (..., T, k|1, d|1) or static (k, d), (k, 1), (1, d), scalar.
        A k-vector (..., T, k, 1) or d-vector (..., T, 1, d) stays that size in every form.
        psi="matrix": (..., T, k, k) or static (k, k).
        Structured (lcsm_core.scan.structured), given by their factors and never expanded by the
        recurrent and chunked forms:
          `Outer(k_part, d_part)`, psi="elementwise": o_t = k_part_t d_part_tᵀ, k_part (..., T, k) and
            d_part (..., T, d) per step or static (k,), (d,) — GLA-like gates on both axes (codes 1, 8, 9);
          `DeltaRule(k, beta)`, psi="matrix": o_t = I − β_t k_t k_tᵀ, k (..., T, k), beta (..., T),
            (..., T, 1) or a number — DeltaNet/FWP, M1, M2. The chunked form runs it in WY/UT form.
        The parallel form, backward="manual" and form="kernel" without a kernel for the structure
        (kernel.scan_kernel_delta / scan_kernel_outer) build the dense o from them.
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
    nonfinite : "refuse" (the default: NaN or inf in a state is a ValueError naming it) or "propagate"
        (they flow through to NaN outputs: what the model layers use, whose training loop has the one
        divergence policy, lcsm_core.divergence — a diverging model's loss turns non-finite and the run
        stops as "diverged" with its step, where a refusal inside layer 2 would end it as an error).

    Returns
    -------
    y (..., T, d): the real part when the memory is complex; with return_state, (y, m_T).

    Refused with a ValueError (never a NaN output or an allocator failure): NaN or inf in any state or
    initial_state (named; unless nonfinite="propagate"); T = 0 (a scan has at least one step); an
    initial_state whose dtype the memory cannot hold without loss (complex with real states, float64 with
    float32 states); form="parallel" when its (..., T, T, k|1, d|1) decays (one without a d axis counted as
    spread over k, as its scores build it: `parallel.parallel_bytes`) would pass `parallel.PARALLEL_MAX_BYTES`,
    1 GiB (use form="chunked").
    Outputs of finite inputs can still grow to inf when |o| > 1: that is the recurrence's own growth.
    """
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    if backward not in BACKWARDS:
        raise ValueError(f"backward must be one of {BACKWARDS}, got {backward!r}")
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
    inp = prepare(i, e, o, s, psi, nonfinite)
    m0 = check_initial_state(initial_state, inp, nonfinite)
    if form == "auto":
        from .choose import choose_form
        form = choose_form(inp)
    if backward == "manual":
        if form != "recurrent":
            raise ValueError(f"backward='manual' is the hand-written backward of the recurrent form; "
                             f"got form={form!r}")
        from .backward import scan_recurrent_manual
        y, m = scan_recurrent_manual(inp.densified(), m0)
    elif form == "recurrent":
        from .reference import scan_recurrent
        y, m = scan_recurrent(inp, m0)
    elif form == "parallel":
        from .parallel import scan_parallel
        y, m = scan_parallel(inp.densified(), m0)
    elif form == "chunked":
        from .chunked import scan_chunked
        y, m = scan_chunked(inp, m0, chunk_size)
    else:
        y, m = run_kernel(inp, m0)
    y = output_real(y)
    return (y, m) if return_state else y


def run_kernel(inp, m0):
    """form="kernel". A structured o goes to the adapter's own path for it when it has one
    (`kernel.scan_kernel_outer` / `kernel.scan_kernel_delta`, taking the normalized ScanInputs); otherwise the
    adapter gets the dense o built from the factors."""
    from . import kernel
    structured_path = {"outer": "scan_kernel_outer", "delta": "scan_kernel_delta"}.get(inp.structure)
    if structured_path and hasattr(kernel, structured_path):
        return getattr(kernel, structured_path)(inp, m0)
    return kernel.scan_kernel(inp.densified(), m0)

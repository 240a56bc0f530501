"""The core's side of the Triton kernels: validate, flatten to one batch dim, call `kernels/`, unflatten.

`kernels/` is a leaf that takes plain tensors of validated shapes; every check a user can trip (shapes, dtypes,
a chunk-ineligible oscillation) happens here, with the same messages as the torch forms (`inputs.prepare`).
`kernels` is imported only when a kernel runs: Triton decides at import time whether it interprets, so the
kernel tests set TRITON_INTERPRET=1 first.
"""
from __future__ import annotations

import math

import torch

from .inputs import ScanInputs, check_initial_state, prepare


def flatten(inp: ScanInputs, m0: torch.Tensor | None) -> tuple:
    """Validated inputs with the leading batch dims flattened to one B, as the kernels take them:
    i (B, T, d), e and s (B, T, k), o (Bo, T|1, ...) with Bo = 1 when o is shared by the whole batch (the kernel
    reads it with batch stride 0), m0 (B, k, d) or None. Expanded dims get their gradient summed by autograd."""
    batch = tuple(inp.batch)
    B = math.prod(batch)

    def flat(x: torch.Tensor, tail: int) -> torch.Tensor:
        x = x.expand(*batch, *x.shape[-tail:])
        return x.reshape(B, *x.shape[-tail:])

    o = inp.o
    o = o.reshape(1, *o.shape[-3:]) if math.prod(o.shape[:-3]) == 1 else flat(o, 3)
    return flat(inp.i, 2), flat(inp.e, 2), o, flat(inp.s, 2), None if m0 is None else flat(m0, 2)


def unflatten(inp: ScanInputs, y: torch.Tensor, mT: torch.Tensor):
    """Back to the batch dims and the state dtype: y real (..., T, d), m_T (..., k, d), complex when the
    states are."""
    dtype = inp.state_dtype
    real = torch.empty((), dtype=dtype).real.dtype if dtype.is_complex else dtype
    return y.to(real).reshape(*inp.batch, inp.T, inp.d), mT.to(dtype).reshape(*inp.batch, inp.k, inp.d)


def kernels_module():
    try:
        from lcsm_explorer import kernels
        kernels.eos_kernel_scan  # noqa: B018  (a missing attribute means a broken install)
    except (ImportError, AttributeError) as err:
        raise ValueError("form='kernel' needs the Triton kernels in `kernels/`, which are not available") from err
    return kernels


def scan_kernel(inp: ScanInputs, m0: torch.Tensor | None, impl: str = "auto"):
    """`eos_scan(form="kernel")`: y (..., T, d) and m_T (..., k, d) by a Triton kernel."""
    if 0 in inp.batch:
        # An empty batch is a grid of zero programs: nothing to launch. The torch chunked form returns the
        # same empty y and m_T as every other form, still attached to the graph.
        from .chunked import scan_chunked
        return scan_chunked(inp, m0, inp.T)
    kernels = kernels_module()
    return unflatten(inp, *kernels.eos_kernel_scan(*flatten(inp, m0), psi=inp.psi, impl=impl))


def scan_kernel_delta(inp: ScanInputs, m0: torch.Tensor | None, impl: str = "chunk"):
    """`eos_scan(..., DeltaRule(k, beta), psi="matrix", form="kernel")`: the structured delta-rule kernels
    (`lcsm_explorer.kernels.delta`), fed the key and β per step, never a k×k matrix. impl "chunk" (WY form, the training
    path) or "fused_recurrent" (one pass, inference)."""
    if 0 in inp.batch:
        from .chunked import scan_chunked
        return scan_chunked(inp, m0, inp.T)
    if any(x.is_complex() for x in (inp.i, inp.e, inp.s, inp.o.k, inp.o.beta)):
        raise ValueError("the delta-rule kernels take real states only; use form='chunked' or 'recurrent' for a "
                         "complex DeltaRule")
    kernels = kernels_module()
    batch, T = tuple(inp.batch), inp.T
    B = math.prod(batch)
    dtype = inp.state_dtype
    # the scan's own dtype for every state (as the torch forms promote them); static keys/β expanded over T

    def flat(x: torch.Tensor, size: int) -> torch.Tensor:
        return x.to(dtype).expand(*batch, T, size).reshape(B, T, size)

    i, e, s = flat(inp.i, inp.d), flat(inp.e, inp.k), flat(inp.s, inp.k)
    keys, beta = flat(inp.o.k, inp.k), flat(inp.o.beta, 1)[..., 0]
    m0 = None if m0 is None else m0.to(dtype).expand(*batch, inp.k, inp.d).reshape(B, inp.k, inp.d)
    return unflatten(inp, *kernels.run_delta(i, e, keys, beta, s, m0, impl=impl))


def run(kernel_name: str, inp: ScanInputs, m0, **options):
    """One named kernel launcher of `kernels/` on validated inputs."""
    kernels = kernels_module()
    i, e, o, s, m0 = flatten(inp, m0)
    return unflatten(inp, *getattr(kernels, kernel_name)(kernels.Flat(i, e, o, s, m0, B=i.shape[0]), **options))


def chunk_eos(i, e, o, s, initial_state=None):
    """Chunked EOS scan for o = g 1ᵀ (decay along k only, g > 0), in Triton.

    Parameters
    ----------
    i : (..., T, d) input state (values).     e : (..., T, k) expand state (keys).
    o : positive real decay broadcastable to (..., T, k, 1): per step (..., T, k|1, 1) or static
        (k, 1) / scalar — GLA, RetNet, linear attention (o = 1), HGRN (k = 1).
    s : (..., T, k) shrink state (queries).
    initial_state : optional (..., k, d) memory before step 1.

    Returns
    -------
    y (..., T, d) = m_tᵀ s_t in the inputs' dtype, and the final memory m_T (..., k, d).
    """
    inp = prepare(i, e, o, s, "elementwise")
    kernels = kernels_module()
    if not kernels.chunk_eligible(inp.o):
        raise ValueError("chunk_eos needs a real, positive o that decays along k only (shape (..., T|1, k|1, 1)); "
                         f"got o of shape {tuple(o.shape) if isinstance(o, torch.Tensor) else ()} — "
                         "use fused_recurrent_eos for any other oscillation")
    return run("run_chunk", inp, check_initial_state(initial_state, inp))


def fused_recurrent_eos(i, e, o, s, initial_state=None, checkpoint: int = 32):
    """Fused recurrent EOS scan with elementwise oscillation, in Triton.

    Parameters
    ----------
    i : (..., T, d) input state.        e : (..., T, k) expand state.
    o : oscillation, broadcastable to (..., T, k, d): per step (..., T, k|1, d|1) or static
        (k, d), (k, 1), (1, d), scalar; real or complex.
    s : (..., T, k) shrink state.
    initial_state : optional (..., k, d) memory before step 1.
    checkpoint : the backward recomputes from a saved memory every `checkpoint` steps.

    Returns
    -------
    y (..., T, d) = Re(m_tᵀ s_t) in the inputs' dtype (real part of it when complex), and the
    final memory m_T (..., k, d) in the state dtype (complex when any state is complex).
    """
    inp = prepare(i, e, o, s, "elementwise")
    return run("run_fused_recurrent", inp, check_initial_state(initial_state, inp), checkpoint=checkpoint)


def fused_recurrent_eos_matrix(i, e, o, s, initial_state=None, checkpoint: int = 32):
    """Fused recurrent EOS scan with matrix oscillation (m_t = o_t m_{t-1} + e_t i_tᵀ), in Triton.

    Parameters
    ----------
    i : (..., T, d) input state.        e : (..., T, k) expand state.
    o : (..., T, k, k) per step, or a static (k, k); real.
    s : (..., T, k) shrink state.
    initial_state : optional (..., k, d) memory before step 1.
    checkpoint : the backward recomputes from a saved memory every `checkpoint` steps.

    Returns
    -------
    y (..., T, d) = m_tᵀ s_t in the inputs' dtype, and the final memory m_T (..., k, d).
    """
    inp = prepare(i, e, o, s, "matrix")
    return run("run_fused_recurrent_matrix", inp, check_initial_state(initial_state, inp), checkpoint=checkpoint)

"""The readable reference: the EOS recurrence one step at a time.

    m_t = o_t ⊙ m_{t-1} + e_t i_tᵀ      (psi = elementwise)
    m_t = o_t  m_{t-1} + e_t i_tᵀ      (psi = matrix)
    y_t = m_tᵀ s_t                      (real part when complex)

A structured o (structured.py) steps by its own factors, which is what it means:
    Outer:     o_t = k_part_t d_part_tᵀ, applied as (k_part_t d_part_tᵀ) ⊙ m
    DeltaRule: o_t = I − β_t k_t k_tᵀ,   applied as m − β_t k_t (k_tᵀ m)

This is the truth every faster form is tested against, and also the streaming
form: pass the previous call's final memory as `initial_state`.
"""
from __future__ import annotations

import torch

from .inputs import ScanInputs
from .structured import DeltaRule, Outer


def step(m: torch.Tensor, i_t, e_t, o_t, s_t, psi: str):
    """One EOS step. m (..., k, d); i_t (..., d); e_t, s_t (..., k)."""
    expand = e_t.unsqueeze(-1) * i_t.unsqueeze(-2)            # (..., k, d)  e_t i_tᵀ
    if isinstance(o_t, tuple):                                # delta rule (k_t, β_t)
        k_t, beta_t = o_t
        m = m - (beta_t * k_t).unsqueeze(-1) * (k_t.unsqueeze(-1) * m).sum(-2, keepdim=True) + expand
    elif psi == "elementwise":
        m = o_t * m + expand                                  # oscillation ⊙
    else:
        m = o_t @ m + expand                                  # oscillation ×
    y_t = (m * s_t.unsqueeze(-1)).sum(-2)                     # shrink mᵀ s  -> (..., d)
    return m, y_t


def scan_recurrent(inp: ScanInputs, m0: torch.Tensor | None, keep_memories: bool = False):
    """Returns y (..., T, d) complex-or-real and m_T (..., k, d).

    With keep_memories, also every memory M (..., T+1, k, d), m_0 first: what the
    hand-written backward and the EOS view's memory plots need.
    """
    dtype = inp.state_dtype
    m = torch.zeros(*inp.batch, inp.k, inp.d, dtype=dtype, device=inp.i.device)
    if m0 is not None:
        m = m + m0.to(dtype)
    memories = [m]
    ys = []
    # Split the time axis once: indexing step t of a (..., T, ...) tensor T times would make autograd
    # zero-fill a full-size gradient per step (O(T²) work); unbind's backward is one stack.
    i_steps, e_steps, s_steps = inp.i.unbind(-2), inp.e.unbind(-2), inp.s.unbind(-2)
    o_steps = oscillation_steps(inp.o)
    for t in range(inp.T):
        o_t = o_steps(t)
        m, y_t = step(m, i_steps[t], e_steps[t], o_t, s_steps[t], inp.psi)
        ys.append(y_t)
        if keep_memories:
            memories.append(m)
    y = torch.stack(ys, dim=-2)
    return (y, m, torch.stack(memories, dim=-3)) if keep_memories else (y, m)


def oscillation_steps(o):
    """t -> o_t: a (..., k|1, d|1) or (..., k, k) tensor, or the delta rule's (k_t, β_t) pair."""
    def pick(x, dim):
        parts = x.unbind(dim)
        return lambda t: parts[min(t, len(parts) - 1)]
    if isinstance(o, Outer):
        rows, cols = pick(o.k_part, -3), pick(o.d_part, -3)
        return lambda t: rows(t) * cols(t)
    if isinstance(o, DeltaRule):
        keys, beta = pick(o.k, -2), pick(o.beta, -2)
        return lambda t: (keys(t), beta(t))
    return pick(o, -3)

"""The chunked form of a static full k×d elementwise oscillation: model code 0's learned decay (0-0-0-0, 1-0-1-0),
or any o given as one (k, d) tensor (or one per sequence, (..., 1, k, d)) that is the same at every step.

o stays that one tensor, read at every step: it is never copied over batch and time. A full k×d decay has no
matmul block form — the decay from step s to t, o^(t−s), is a k×d tensor of its own for every lag, and no factor
of it moves into e or s as a k-vector or a d-vector does (chunked_factors.py) — so the work is the recurrence's
own B·T·k·d multiply-adds. What this form saves over the step-by-step reference is memory and autograd's
bookkeeping:

    forward   m_t = o ⊙ m_{t−1} + e_t i_tᵀ,  y_t = m_tᵀ s_t  stepped without autograd, keeping only the memory
              entering each block of C steps: (B, T/C, k, d) numbers, not the (B, T, k, d) of every step;
    backward  block by block from the last, the block's C memories recomputed from the one kept, then the
              hand-written Type 1 backward (backward.py), in torch's convention for complex tensors:
                  dM_t = s̄_t dy_tᵀ + ō ⊙ dM_{t+1}      ds_t = m̄_t dy_t     de_t = dM_t ī_t     di_t = dM_tᵀ ē_t
                  do   = Σ_{b,t} dM_t ⊙ m̄_{t−1}       dm_0 = ō ⊙ dM_1

Sequences step in groups small enough that a group's memory stays in a core's cache across the steps (a whole batch's
memory is often past the L2; benchmarks/results/form_choice-cpu.md has the timings). Every per-step read of a memory
(y_t; ds_t in the backward) runs right after the step that makes it, while it is in cache. On CUDA the whole batch is
one group.
"""
from __future__ import annotations

import math

import torch

# Bytes of one group's memory (group × k × d numbers): an eighth of a core's L2, leaving room for dM and the
# gradient accumulator in the backward (the fastest of the sizes timed: benchmarks/results/form_choice-cpu.md).
GROUP_BYTES = 256 * 1024


def group_size(batch: int, k: int, d: int, dtype: torch.dtype, device: torch.device) -> int:
    """How many sequences step together."""
    if device.type != "cpu":
        return max(batch, 1)
    item = torch.empty((), dtype=dtype).element_size()
    return max(1, min(batch, GROUP_BYTES // (k * d * item)))


def scan_chunked_static(i, e, o, s, m, chunk_size: int):
    """i (..., T, d); e, s (..., T, k); o (..., 1, k, d) static (leading dims broadcast to the batch); m (..., k, d)
    the entering memory; all in the state dtype and expanded to the batch. Returns y (..., T, d), m_T (..., k, d)."""
    batch, T, d, k = i.shape[:-2], i.shape[-2], i.shape[-1], e.shape[-1]
    B = math.prod(batch)
    flat = lambda x, *tail: x.expand(*batch, *tail).reshape(B, *tail)
    shared = math.prod(o.shape[:-3]) == 1
    o_flat = o.reshape(1, k, d) if shared else flat(o[..., 0, :, :], k, d)          # (1|B, k, d)
    y, m_T = StaticDecayScan.apply(flat(i, T, d), flat(e, T, k), o_flat, flat(s, T, k), flat(m, k, d),
                                   min(chunk_size, T))
    return y.reshape(*batch, T, d), m_T.reshape(*batch, k, d)


def _step_major(x: torch.Tensor) -> torch.Tensor:
    """A group's (G, T, n) as a contiguous (T, G, n): every step's (G, n) slice is then one contiguous block, which
    batched matmuls need to run as one call (a strided operand or output makes them loop over the batch)."""
    return x.transpose(0, 1).contiguous()


class StaticDecayScan(torch.autograd.Function):
    """i (B, T, d), e and s (B, T, k), o (1|B, k, d), m0 (B, k, d), C the block -> y (B, T, d), m_T (B, k, d).

    Every per-step read of a memory (y_t; ds_t in the backward) runs right after the step that makes it, while
    the memory is in cache."""

    @staticmethod
    def forward(ctx, i, e, o, s, m0, C: int):
        B, T, d = i.shape
        k = e.shape[-1]
        N = -(-T // C)
        G = group_size(B, k, d, m0.dtype, m0.device)
        y = i.new_empty(B, T, d)
        starts = m0.new_empty(B, N, k, d)                       # the memory entering each block
        m_T = torch.empty_like(m0)
        for g0 in range(0, B, G):
            g = slice(g0, g0 + G)
            o_g = o[0] if o.shape[0] == 1 else o[g]
            rows, cols = _step_major(e[g]).unsqueeze(-1), _step_major(i[g]).unsqueeze(-2)    # e_t, i_tᵀ per step
            readers = _step_major(s[g]).unsqueeze(-2)                                       # s_tᵀ (T, G, 1, k)
            outputs = torch.empty(T, rows.shape[1], 1, d, dtype=y.dtype, device=y.device)
            m = m0[g].clone()
            for n in range(N):
                starts[g, n] = m
                for t in range(n * C, min(T, (n + 1) * C)):
                    m.mul_(o_g).baddbmm_(rows[t], cols[t])                            # o ⊙ m + e_t i_tᵀ
                    torch.bmm(readers[t], m, out=outputs[t])                          # y_t = m_tᵀ s_t
            y[g] = outputs[:, :, 0].transpose(0, 1)
            m_T[g] = m
        ctx.save_for_backward(i, e, o, s, starts)
        ctx.C = C
        return y, m_T

    @staticmethod
    def backward(ctx, dy, dm_T):
        i, e, o, s, starts = ctx.saved_tensors
        C = ctx.C
        B, N, k, d = starts.shape
        T = i.shape[1]
        dtype, device = starts.dtype, starts.device
        G = group_size(B, k, d, dtype, device)
        dy = torch.zeros(B, T, d, dtype=dtype, device=device) if dy is None else dy.to(dtype)
        di, de, ds = torch.empty_like(i), torch.empty_like(e), torch.empty_like(s)
        do = torch.zeros_like(o)
        dm0 = torch.empty(B, k, d, dtype=dtype, device=device)
        block = starts.new_empty(C + 1, min(G, B), k, d)       # block[j]: the block's memory after j steps
        for g0 in range(0, B, G):
            g = slice(g0, g0 + G)
            size = min(B, g0 + G) - g0
            o_g = o[0] if o.shape[0] == 1 else o[g]
            o_back = o_g.conj()
            e_steps, i_steps = _step_major(e[g]), _step_major(i[g])                   # (T, G, k), (T, G, d)
            rows, cols = e_steps.unsqueeze(-1), i_steps.unsqueeze(-2)
            rows_back, cols_back = e_steps.conj().resolve_conj().unsqueeze(-2), \
                i_steps.conj().resolve_conj().unsqueeze(-1)                           # ē_tᵀ, ī_t
            readers_back = _step_major(s[g]).conj().resolve_conj().unsqueeze(-1)     # s̄_t (T, G, k, 1)
            dy_steps = _step_major(dy[g])
            dy_cols, dy_rows = dy_steps.unsqueeze(-1), dy_steps.unsqueeze(-2)          # dy_t, dy_tᵀ
            ds_steps = torch.empty(T, size, k, 1, dtype=dtype, device=device)
            de_steps = torch.empty(T, size, k, 1, dtype=dtype, device=device)
            di_steps = torch.empty(T, size, 1, d, dtype=dtype, device=device)
            dM = torch.zeros(size, k, d, dtype=dtype, device=device) if dm_T is None else dm_T[g].to(dtype).clone()
            do_g = torch.zeros(size, k, d, dtype=dtype, device=device)
            memory = block[:, :size]
            for n in range(N - 1, -1, -1):
                steps = range(n * C, min(T, (n + 1) * C))
                memory[0] = starts[g, n]
                for j, t in enumerate(steps):                                          # recompute the block
                    m_t = torch.mul(memory[j], o_g, out=memory[j + 1]).baddbmm_(rows[t], cols[t])
                    torch.bmm(m_t.conj(), dy_cols[t], out=ds_steps[t])               # ds_t = m̄_t dy_t
                for j in range(len(steps) - 1, -1, -1):
                    t = steps[j]
                    dM.baddbmm_(readers_back[t], dy_rows[t])                          # dM_t = s̄_t dy_tᵀ + ō ⊙ dM_{t+1}
                    torch.bmm(dM, cols_back[t], out=de_steps[t])                      # de_t = dM_t ī_t
                    torch.bmm(rows_back[t], dM, out=di_steps[t])                      # di_t = dM_tᵀ ē_t
                    do_g.addcmul_(dM, memory[j].conj())                               # do += dM_t ⊙ m̄_{t−1}
                    dM.mul_(o_back)
            ds[g], de[g], di[g] = (x.squeeze(-1 if x.shape[-1] == 1 else -2).transpose(0, 1)
                                   for x in (ds_steps, de_steps, di_steps))
            dm0[g] = dM
            if o.shape[0] == 1:
                do[0] += do_g.sum(0)
            else:
                do[g] = do_g
        return di, de, do, ds, dm0, None

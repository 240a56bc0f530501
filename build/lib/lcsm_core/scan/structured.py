"""Structured oscillations: an o that `eos_scan` takes in its factors, never as the dense per-step tensor.

    Outer(k_part, d_part)   psi="elementwise":  o_t = k_part_t d_part_tᵀ        (k×d from a k- and a d-vector)
    DeltaRule(k, beta)      psi="matrix":       o_t = I − β_t k_t k_tᵀ          (k×k from one k-vector)
    Diagonal(values)        psi="matrix":       o_t = diag(values_t)            (k×k from one k-vector)

A plain k-vector (..., T, k, 1) or d-vector (..., T, 1, d) needs no wrapper: the dense layout already holds it
unexpanded. What a structured o saves is the expansion: the paper's codes 1, 8 and 9 (GLA-like gates on both
axes) would otherwise hand the scan a (B, T, k, d) tensor, DeltaNet/FWP, M1, M2 a (B, T, k, k) one, and M3
(I − Diag{k_t}) a (B, T, k, k) matrix that is zero off its diagonal.

A Diagonal is not kept as a structure: a diagonal matrix scales the memory's rows, diag(v) m = v ⊙ m, so
`prepare` turns it into the elementwise k-vector o = v (..., T|1, k, 1) with psi="elementwise", which every form
already runs unexpanded (the chunked form by matmul blocks). `dense` still gives the matrix, for readers.

`normalize` checks the factors and brings them to the layout the forms read (below); `dense` builds the tensor
they stand for, which the readable reference defines them by and which any form without a structured path
falls back to (`ScanInputs.densified`).

Layout after `normalize` (T|1: per step or static):
    Outer:     k_part (..., T|1, k, 1)   d_part (..., T|1, 1, d)    so o = k_part * d_part broadcasts as usual
    DeltaRule: k (..., T|1, k)           beta (..., T|1, 1)
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Outer:
    """o_t = k_part_t d_part_tᵀ. k_part (..., T, k) per step or static (k,); d_part (..., T, d) or (d,)."""

    k_part: torch.Tensor
    d_part: torch.Tensor


@dataclass(frozen=True)
class DeltaRule:
    """o_t = I − β_t k_t k_tᵀ (psi="matrix"). k (..., T, k) per step or static (k,); beta (..., T), (..., T, 1),
    static or a number (1.0: M1, M2)."""

    k: torch.Tensor
    beta: torch.Tensor | float = 1.0


@dataclass(frozen=True)
class Diagonal:
    """o_t = diag(values_t) (psi="matrix"). values (..., T, k) per step or static (k,)."""

    values: torch.Tensor


STRUCTURED = (Outer, DeltaRule, Diagonal)


def is_structured(o) -> bool:
    return isinstance(o, STRUCTURED)


def _vector(name: str, x, like: torch.Tensor, size: int, size_name: str) -> torch.Tensor:
    """A factor as (..., T|1, size): a tensor of last dim `size`; a 1-D one is static."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor of shape (..., T, {size_name}) or ({size_name},), "
                         f"got {type(x).__name__}")
    if not (x.is_floating_point() or x.is_complex()):
        raise ValueError(f"{name} must be a floating or complex tensor, got dtype {x.dtype}")
    if x.ndim == 0 or x.shape[-1] not in (1, size):
        raise ValueError(f"{name} must have shape (..., T, {size_name}) or ({size_name},) with "
                         f"{size_name}={size}, got {tuple(x.shape)}")
    if x.device != like.device:
        raise ValueError(f"{name} must be on the device of i ({like.device}), got {x.device}")
    return x.unsqueeze(0) if x.ndim == 1 else x


def _check_steps(name: str, x: torch.Tensor, T: int, time_dim: int) -> None:
    if x.shape[time_dim] not in (1, T):
        raise ValueError(f"{name} must have T = {T} steps (or 1, static) in dim {time_dim}, got {tuple(x.shape)}")


def diagonal_rows(o: Diagonal, psi: str, i: torch.Tensor, T: int, k: int) -> torch.Tensor:
    """The elementwise o (..., T|1, k, 1) that scales the memory's rows as diag(values) does."""
    if psi != "matrix":
        raise ValueError(f"o=Diagonal(values) is a matrix oscillation (diag(values)); pass psi='matrix', "
                         f"got psi={psi!r}")
    rows = _vector("Diagonal.values", o.values, i, k, "k")
    if rows.shape[-1] != k:
        raise ValueError(f"Diagonal.values must have shape (..., T, k) with k={k}, got {tuple(o.values.shape)}")
    _check_steps("Diagonal.values", rows, T, -2)
    return rows.unsqueeze(-1)


def normalize(o, psi: str, i: torch.Tensor, T: int, k: int, d: int):
    """Checked factors in the layout above. Raises ValueError naming the factor."""
    if isinstance(o, Outer):
        if psi != "elementwise":
            raise ValueError(f"o=Outer(k_part, d_part) is an elementwise oscillation; pass psi='elementwise', "
                             f"got psi={psi!r}")
        rows = _vector("Outer.k_part", o.k_part, i, k, "k")
        cols = _vector("Outer.d_part", o.d_part, i, d, "d")
        _check_steps("Outer.k_part", rows, T, -2)
        _check_steps("Outer.d_part", cols, T, -2)
        return Outer(rows.unsqueeze(-1), cols.unsqueeze(-2))
    if psi != "matrix":
        raise ValueError(f"o=DeltaRule(k, beta) is a matrix oscillation (I − β k kᵀ); pass psi='matrix', "
                         f"got psi={psi!r}")
    keys = _vector("DeltaRule.k", o.k, i, k, "k")
    if keys.shape[-1] != k:
        raise ValueError(f"DeltaRule.k must have shape (..., T, k) with k={k}, got {tuple(o.k.shape)}")
    _check_steps("DeltaRule.k", keys, T, -2)
    beta = o.beta
    if not isinstance(beta, torch.Tensor):
        try:
            beta = torch.as_tensor(float(beta), dtype=keys.dtype, device=keys.device)
        except (TypeError, ValueError):
            raise ValueError(f"DeltaRule.beta must be a number or a tensor of shape (..., T), got {beta!r}") from None
    if not (beta.is_floating_point() or beta.is_complex()):
        raise ValueError(f"DeltaRule.beta must be a floating tensor, got dtype {beta.dtype}")
    if beta.device != keys.device:
        raise ValueError(f"DeltaRule.beta must be on the device of i ({keys.device}), got {beta.device}")
    if beta.ndim == 0:
        beta = beta.reshape(1, 1)
    elif beta.ndim == keys.ndim - 1:                         # (..., T|1) -> (..., T|1, 1)
        beta = beta.unsqueeze(-1)
    elif not (beta.ndim == keys.ndim and beta.shape[-1] == 1):
        raise ValueError(f"DeltaRule.beta must have shape (..., T) or (..., T, 1) matching k {tuple(keys.shape)}, "
                         f"got {tuple(beta.shape)}")
    _check_steps("DeltaRule.beta", beta, T, -2)
    return DeltaRule(keys, beta)


def dense(o) -> torch.Tensor:
    """The tensor a normalized structured o stands for: (..., T|1, k, d) for Outer, (..., T|1, k, k) for
    DeltaRule; for a Diagonal (as given), its matrix (..., T, k, k) or (k, k)."""
    if isinstance(o, Outer):
        return o.k_part * o.d_part
    if isinstance(o, Diagonal):
        return torch.diag_embed(o.values)
    eye = torch.eye(o.k.shape[-1], dtype=torch.promote_types(o.k.dtype, o.beta.dtype), device=o.k.device)
    return eye - o.beta.unsqueeze(-1) * o.k.unsqueeze(-1) * o.k.unsqueeze(-2)


def factors(o) -> tuple:
    """The tensors of a normalized o (a plain tensor is its own single factor)."""
    if isinstance(o, Outer):
        return (o.k_part, o.d_part)
    if isinstance(o, DeltaRule):
        return (o.k, o.beta)
    return (o,)


def leading_shape(o) -> tuple:
    """The broadcast batch dims of a normalized o (before its step dim)."""
    if isinstance(o, Outer):
        return tuple(torch.broadcast_shapes(o.k_part.shape[:-3], o.d_part.shape[:-3]))
    if isinstance(o, DeltaRule):
        return tuple(torch.broadcast_shapes(o.k.shape[:-2], o.beta.shape[:-2]))
    return tuple(o.shape[:-3])


def steps(o) -> int:
    """T when o changes per step, 1 when static."""
    return max(x.shape[-3] if isinstance(o, Outer) else x.shape[-2] for x in factors(o)) if is_structured(o) \
        else o.shape[-3]

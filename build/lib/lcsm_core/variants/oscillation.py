"""How a variant's scan sees its oscillation, declared by the variant itself (`VariantInfo.oscillation_shape`).

The training cost model (`lcsm_core.training.cost`) reads it from the registry to estimate a run's memory and time
before any tensor exists, and asks the one form chooser (`lcsm_core.scan.choose`) which form the scan will take.
A new variant declares one beside its `states`; tests/core/test_variants.py checks every registered one does,
and that it matches the shapes the layer really hands to `eos_scan`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Oscillation:
    """How one layer's scan sees its oscillation, per token: o is (rows × cols) per step when `per_step`, else
    static; `built_from` full-size tensors are kept while building it (o itself included); `complex` doubles
    every scan number; `psi` is "elementwise" or "matrix"; `channels` ≠ 0: one small system per channel;
    `structure`: how the scan gets o (rows × cols stays the shape o stands for).

    `step_numbers` is what one token's o holds as the scan gets it."""

    rows: int
    cols: int
    per_step: bool
    built_from: int = 1
    complex: bool = False
    psi: str = "elementwise"
    channels: int = 0
    memory_rows: int = 0         # k of the memory m (k × d)
    memory_cols: int = 0         # d of the memory (1 per channel for channel banks)
    extra_k: int = 0             # more (N, k) tensors the layer keeps (gates, feature maps)
    extra_d: int = 0             # more (N, d) tensors the layer keeps
    batched_copy: bool = False   # a static per-channel matrix o that matmul copies over the batch at every step
    structure: str = "dense"     # "outer" (k-vector ⊗ d-vector) or "delta" (I − β k kᵀ): o reaches the scan as
                                 # its factors (lcsm_core.scan.structured), rows + cols numbers per step, not rows·cols


    @property
    def step_numbers(self) -> int:
        if self.structure == "outer":
            return self.rows + self.cols
        if self.structure == "delta":
            return self.rows + 1
        return self.rows * self.cols


OscillationShape = Callable[[int, int], Oscillation]   # (k = expand_dim, d = d_model) -> Oscillation


def one(k: int, d: int) -> int:
    return 1


def rows_k(k: int, d: int) -> int:
    return k


def cols_d(k: int, d: int) -> int:
    return d


def qkv(rows: Callable[[int, int], int], cols: Callable[[int, int], int], per_step: bool, **kw) -> OscillationShape:
    """A q/k/v layer's o (rows × cols per token) with memory k × d."""
    return lambda k, d: Oscillation(rows(k, d), cols(k, d), per_step, memory_rows=k, memory_cols=d, **kw)


def channel_bank(rows: Callable[[int, int], int], cols: Callable[[int, int], int], per_step: bool = False,
                 memory: Callable[[int, int], int] = rows_k, **kw) -> OscillationShape:
    """One small system per channel (d of them): o (rows × cols) per channel, memory (memory(k, d) × 1)."""
    return lambda k, d: Oscillation(rows(k, d), cols(k, d), per_step, channels=d, memory_rows=memory(k, d),
                                    memory_cols=1, **kw)

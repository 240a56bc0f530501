"""Multi-query associative recall (MQAR; Arora et al. 2023, "Zoology"), the recall
benchmark of LCSM §3.2 and Longhorn §5.1."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch

IGNORE = -100  # label of a position the loss and the accuracy skip


def mqar(vocab_size: int, seq_len: int, num_kv_pairs: int, num_examples: int,
         seed: int | Sequence[int], power_a: float = 0.01, random_non_queries: bool = True):
    """Key–value pairs first, then queries of earlier keys at power-law distances.

    Keys come from the first half of the vocabulary (tokens 1 .. vocab_size/2 - 1),
    values from the second half (vocab_size/2 .. vocab_size - 1); token 0 is the
    filler. Each example holds `num_kv_pairs` distinct keys, each paired with a
    distinct value, and queries every key exactly once afterwards. The label sits on
    the query position (the model reads the key and must name its value); every
    other label is -100. The gap before each query follows p(g) ∝ g^(power_a - 1), so
    small `power_a` puts most queries soon after the pairs.

    Worked example (`vocab_size=12, seq_len=14, num_kv_pairs=2, random_non_queries=False`;
    keys from 1..5, values from 6..11, queries on the even positions after the pairs)::

        position:   0    1    2    3    4    5    6    7    8    9   10   11   12   13
        inputs:     2    8    4    7    0    0    4    0    0    0    0    0    2    0
        labels:  -100 -100 -100 -100 -100 -100    7 -100 -100 -100 -100 -100    8 -100
                   key  val  key  val            query                     query

    Parameters
    ----------
    vocab_size : tokens in the vocabulary; even, ≥ 2·num_kv_pairs + 2.
    seq_len : positions per example; even, ≥ 4·num_kv_pairs.
    num_kv_pairs : key–value pairs per example (each key queried once).
    num_examples : N.
    seed : int or sequence of ints (numpy SeedSequence entropy); same seed, same data.
    power_a : exponent of the power-law query gaps (1.0 = uniform).
    random_non_queries : fill the non-query positions after the pairs with random
        tokens instead of 0 (harder: the model must ignore them); a filler never
        repeats one of the example's keys, so every key is read exactly twice.

    Returns
    -------
    inputs (N, seq_len) int64, labels (N, seq_len) int64 (-100 where unlabelled).
    """
    check_mqar_sizes(vocab_size, seq_len, num_kv_pairs)
    if num_examples < 1:
        raise ValueError(f"num_examples must be at least 1, got {num_examples}")
    if not power_a > 0:
        raise ValueError(f"power_a must be positive, got {power_a}")
    rng = np.random.default_rng(seed)
    n, p = num_examples, num_kv_pairs
    half = vocab_size // 2
    keys = 1 + _choose_without_replacement(rng, n, half - 1, p)             # (N, P) in [1, half)
    values = half + _choose_without_replacement(rng, n, vocab_size - half, p)  # (N, P) in [half, V)

    context = 2 * p
    inputs = np.zeros((n, seq_len), dtype=np.int64)
    inputs[:, 0:context:2] = keys
    inputs[:, 1:context:2] = values

    slots = (seq_len - context) // 2                                          # query slots, 2 positions apart
    gap_weight = power_a * np.arange(1, slots + 1) ** (power_a - 1)
    gaps = _choose_without_replacement(rng, n, slots, p, weights=gap_weight)  # (N, P) distinct slots
    query_pos = context + 2 * gaps                                            # (N, P)
    rows = np.arange(n)[:, None]
    if random_non_queries:  # noise tokens, never one of the example's keys (that would rebind it)
        filler = rng.integers(0, vocab_size, size=(n, seq_len - context))
        filler[(filler[:, :, None] == keys[:, None, :]).any(-1)] = 0
        inputs[:, context:] = filler
    inputs[rows, query_pos] = keys
    labels = np.full((n, seq_len), IGNORE, dtype=np.int64)
    labels[rows, query_pos] = values
    return torch.from_numpy(inputs), torch.from_numpy(labels)


def check_mqar_sizes(vocab_size: int, seq_len: int, num_kv_pairs: int) -> None:
    """Raise ValueError with a readable message when the sizes cannot make MQAR data."""
    if num_kv_pairs < 1:
        raise ValueError(f"num_kv_pairs must be at least 1, got {num_kv_pairs}")
    if seq_len % 2:
        raise ValueError(f"seq_len must be even (keys and values come in pairs), got {seq_len}")
    if seq_len < 4 * num_kv_pairs:
        raise ValueError(f"seq_len must be at least 4 × num_kv_pairs = {4 * num_kv_pairs} "
                         f"(the pairs, then one query slot per key), got {seq_len}")
    if vocab_size % 2 or vocab_size < 2 * num_kv_pairs + 2:
        raise ValueError(f"vocab_size must be even and at least 2 × num_kv_pairs + 2 = {2 * num_kv_pairs + 2} "
                         f"(distinct keys in the first half, distinct values in the second), got {vocab_size}")


def _choose_without_replacement(rng: np.random.Generator, n: int, population: int, size: int,
                                weights: np.ndarray | None = None) -> np.ndarray:
    """(n, size) indices in [0, population), distinct per row; weighted by the Gumbel top-k trick
    (the same law as drawing one at a time without replacement)."""
    scores = rng.gumbel(size=(n, population))
    if weights is not None:
        scores = scores + np.log(weights)[None, :]
    return np.argsort(-scores, axis=1)[:, :size]


@dataclass
class MQARConfig:
    """MQAR data. `build(num_examples, seed)` makes (inputs, labels)."""

    name: Literal["mqar"] = "mqar"
    vocab_size: int = 64
    seq_len: int = 64
    num_kv_pairs: int = 4
    power_a: float = 0.01
    random_non_queries: bool = True

    def validate(self) -> None:
        check_mqar_sizes(self.vocab_size, self.seq_len, self.num_kv_pairs)

    def build(self, num_examples: int, seed: int | Sequence[int]):
        return mqar(self.vocab_size, self.seq_len, self.num_kv_pairs, num_examples, seed,
                    power_a=self.power_a, random_non_queries=self.random_non_queries)

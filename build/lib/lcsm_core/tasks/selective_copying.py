"""Selective copying (Gu & Dao 2023, "Mamba" §3.1): remember a few data tokens scattered
among blanks, then say them back in order. A time-invariant oscillation (S4, RetNet,
linear attention) cannot tell where the data tokens sat; a data-dependent one
(Mamba, GLA, Longhorn, codes with o data-dependent) can choose what to keep."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch

from .mqar import IGNORE, _choose_without_replacement

BLANK = 0   # filler between the data tokens
MARKER = 1  # "say the next remembered token" — one per token to copy
FIRST_DATA_TOKEN = 2


def selective_copying(vocab_size: int, seq_len: int, num_tokens: int, num_examples: int,
                      seed: int | Sequence[int]):
    """Data tokens at random positions of a blank region, then one marker per token.

    The first `seq_len - num_tokens` positions are blanks (0) with `num_tokens`
    data tokens (2 .. vocab_size-1) at random, distinct positions; the last
    `num_tokens` positions are markers (1). The label of the j-th marker is the
    j-th data token in order of appearance; every other label is -100.

    Worked example (`vocab_size=6, seq_len=10, num_tokens=3`)::

        position:   0    1    2    3    4    5    6    7    8    9
        inputs:     0    4    0    0    2    0    5    1    1    1
        labels:  -100 -100 -100 -100 -100 -100 -100    4    2    5

    Parameters
    ----------
    vocab_size : ≥ 3 (blank, marker, at least one data token).
    seq_len : positions per example, ≥ 2·num_tokens.
    num_tokens : data tokens to copy.
    num_examples : N.
    seed : int or sequence of ints; same seed, same data.

    Returns
    -------
    inputs (N, seq_len) int64, labels (N, seq_len) int64 (-100 where unlabelled).
    """
    check_selective_copying_sizes(vocab_size, seq_len, num_tokens)
    if num_examples < 1:
        raise ValueError(f"num_examples must be at least 1, got {num_examples}")
    rng = np.random.default_rng(seed)
    n, region = num_examples, seq_len - num_tokens
    tokens = rng.integers(FIRST_DATA_TOKEN, vocab_size, size=(n, num_tokens))           # (N, K)
    positions = np.sort(_choose_without_replacement(rng, n, region, num_tokens), axis=1)  # (N, K) increasing
    inputs = np.full((n, seq_len), BLANK, dtype=np.int64)
    inputs[np.arange(n)[:, None], positions] = tokens
    inputs[:, region:] = MARKER
    labels = np.full((n, seq_len), IGNORE, dtype=np.int64)
    labels[:, region:] = tokens
    return torch.from_numpy(inputs), torch.from_numpy(labels)


def check_selective_copying_sizes(vocab_size: int, seq_len: int, num_tokens: int) -> None:
    if vocab_size < 3:
        raise ValueError(f"vocab_size must be at least 3 (blank, marker, a data token), got {vocab_size}")
    if num_tokens < 1:
        raise ValueError(f"num_tokens must be at least 1, got {num_tokens}")
    if seq_len < 2 * num_tokens:
        raise ValueError(f"seq_len must be at least 2 × num_tokens = {2 * num_tokens}, got {seq_len}")


@dataclass
class SelectiveCopyingConfig:
    """Selective-copying data. `build(num_examples, seed)` makes (inputs, labels)."""

    name: Literal["selective_copying"] = "selective_copying"
    vocab_size: int = 16
    seq_len: int = 64
    num_tokens: int = 8

    def validate(self) -> None:
        check_selective_copying_sizes(self.vocab_size, self.seq_len, self.num_tokens)

    def build(self, num_examples: int, seed: int | Sequence[int]):
        return selective_copying(self.vocab_size, self.seq_len, self.num_tokens, num_examples, seed)

"""Activation functions of LCSM Table 2, applied to the expand and shrink states."""
from __future__ import annotations

import torch
import torch.nn.functional as F

ACTIVATIONS = {
    0: ("identity", lambda x: x),
    1: ("relu", F.relu),
    2: ("sigmoid", torch.sigmoid),
    3: ("1+elu", lambda x: 1.0 + F.elu(x)),
    4: ("silu", F.silu),
    5: ("elu", F.elu),
    6: ("relu²", lambda x: F.relu(x) ** 2),
    7: ("x²", lambda x: x * x),
}
BY_NAME = {name: fn for name, fn in ACTIVATIONS.values()}


def activation(code_or_name: int | str):
    """The activation for a Table 2 code (0..7) or its name."""
    if isinstance(code_or_name, str):
        if code_or_name not in BY_NAME:
            raise ValueError(f"unknown activation {code_or_name!r}; choose from {sorted(BY_NAME)}")
        return BY_NAME[code_or_name]
    if code_or_name not in ACTIVATIONS:
        raise ValueError(f"activation code must be 0..7, got {code_or_name!r}")
    return ACTIVATIONS[code_or_name][1]

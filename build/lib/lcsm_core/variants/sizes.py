"""How wide a layer may be: widths are checked, and an absurd size is refused before anything is allocated.

Building the layer on torch's "meta" device would count its parameters exactly, but it is ~50× slower than
building it for real and some inits (the LRU ring) run in numpy, which allocates anyway; so the count is
estimated from the widths instead. Every registered variant holds at most four d×d or d×k projections,
4·d·(d + k) numbers, a k×k HiPPO matrix (S4, S5) and a few d- or k-vectors (biases, decays); a model
code with a data-dependent k×d oscillation (Table 3 codes 6 and 7) adds a d → k·d gate, d²·k numbers.
tests/core/test_api_edges.py checks that the estimate bounds every variant and those codes.
"""
from __future__ import annotations

import numbers

# 2**28 numbers = 1 GiB of float32: far beyond any lesson or paper-lab cell, and above every variant at Train
# live's largest widths (d_model = k = 4096: 1.5e8 by the estimate).
MAX_PARAMETERS = 2 ** 28
PROJECTIONS = 4
VECTORS = 2


def check_width(name: str, value) -> int:
    """A positive whole number, as an int; a ValueError naming the argument otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def estimated_parameters(d_model: int, expand_dim: int, extra: int = 0) -> int:
    """An upper bound on the numbers a layer of these widths holds (parameters and buffers)."""
    return PROJECTIONS * d_model * (d_model + expand_dim) + expand_dim ** 2 + VECTORS * (d_model + expand_dim) + extra


def check_layer_size(d_model, expand_dim, extra: int = 0) -> tuple[int, int]:
    """(d_model, expand_dim) as ints; a ValueError naming the wider one when the layer would be absurdly big.

    extra: numbers a layer holds beyond the estimate above (a code's d → k·d gate)."""
    d_model, expand_dim = check_width("d_model", d_model), check_width("expand_dim", expand_dim)
    count = estimated_parameters(d_model, expand_dim, extra)
    if count > MAX_PARAMETERS:
        name, value = ("expand_dim", expand_dim) if expand_dim > d_model else ("d_model", d_model)
        raise ValueError(f"{name}={value} is too large: a layer with d_model={d_model}, expand_dim={expand_dim} "
                         f"would hold about {count:.3g} numbers ({4 * count / 2 ** 30:.3g} GiB of float32); "
                         f"the limit is {MAX_PARAMETERS:.3g} (1 GiB)")
    return d_model, expand_dim

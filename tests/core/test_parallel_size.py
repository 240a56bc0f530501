"""The parallel form's size guard counts what the form really builds: for every oscillation shape (a scalar,
k-vector, d-vector or k×d decay, per step or static, dense or as Outer factors) its estimate covers the largest
tensor the form materializes, measured at small sizes; a scalar decay per step is refused in words, not by the
allocator."""
from unittest import mock

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from lcsm_core import eos_scan
from lcsm_core.scan import parallel
from lcsm_core.scan.inputs import prepare
from lcsm_core.scan.structured import Outer

# o's shape for batch (B,), T steps, k and d: each layout eos_scan takes for an elementwise oscillation
O_SHAPES = {
    "scalar per step": lambda B, T, k, d: (B, T, 1, 1),
    "k-vector per step": lambda B, T, k, d: (B, T, k, 1),
    "d-vector per step": lambda B, T, k, d: (B, T, 1, d),
    "k×d per step": lambda B, T, k, d: (B, T, k, d),
    "static scalar": lambda B, T, k, d: (),
    "static k-vector": lambda B, T, k, d: (k, 1),
    "static d-vector": lambda B, T, k, d: (1, d),
    "static k×d": lambda B, T, k, d: (k, d),
    "Outer per step": lambda B, T, k, d: "outer",
}


class LargestTensor(TorchDispatchMode):
    """The most bytes any tensor made inside it holds (its storage: an expanded view costs what it views)."""

    def __init__(self):
        super().__init__()
        self.bytes = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self.bytes = max(self.bytes, t.untyped_storage().nbytes())
        return out


def states(B, T, k, d, shape, dtype):
    g = torch.Generator().manual_seed(0)
    r = lambda *size: torch.randn(*size, generator=g).to(dtype)
    if shape == "outer":
        o = Outer(torch.rand(B, T, k, generator=g).to(dtype), torch.rand(B, T, d, generator=g).to(dtype))
    else:
        o = (0.5 + 0.5 * torch.rand(shape, generator=g)).to(dtype)
    return dict(i=r(B, T, d), e=r(B, T, k), o=o, s=r(B, T, k))


@settings(max_examples=120, deadline=None)
@given(kind=st.sampled_from(sorted(O_SHAPES)), B=st.integers(1, 3), T=st.integers(1, 9), k=st.integers(1, 6),
       d=st.integers(1, 6), dtype=st.sampled_from([torch.float32, torch.float64, torch.complex64]),
       carried=st.booleans())
def test_the_guard_s_estimate_covers_the_largest_tensor_the_parallel_form_builds(kind, B, T, k, d, dtype, carried):
    st_ = states(B, T, k, d, O_SHAPES[kind](B, T, k, d), dtype)
    m0 = torch.ones(B, k, d, dtype=dtype) if carried else None
    inp = prepare(**st_, psi="elementwise")
    with LargestTensor() as largest:                 # the form alone (as eos_scan runs it), not the input checks
        parallel.scan_parallel(inp.densified(), m0)
    # Just under what the form built: the guard must refuse, so its estimate is at least that much.
    with mock.patch.object(parallel, "PARALLEL_MAX_BYTES", largest.bytes - 1):
        with pytest.raises(ValueError, match="form='parallel' would build decays"):
            eos_scan(**st_, form="parallel", initial_state=m0)


@pytest.mark.parametrize("B,T", [(1, 8192), (64, 1024)])
def test_a_scalar_decay_per_step_is_refused_by_the_guard_in_words(B, T):
    """A (B, T, 1, 1) decay with k = d = 64 is spread over k in the scores: 16 GiB, not the 0.75 GiB of its own
    (T × T) decays, so the guard refuses it instead of the allocator."""
    x = torch.zeros(1, T, 64).expand(B, T, 64)
    with pytest.raises(ValueError, match=rf"{B} sequence\(s\) × T × T × 1 × 1 \(spread over k = 64 .*"
                                         rf"with T = {T}: about 48.0 GiB.*form='chunked'"):
        eos_scan(x, x, torch.full((B, T, 1, 1), 0.9), x, form="parallel")

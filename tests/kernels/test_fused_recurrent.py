"""Fused recurrent kernel, elementwise oscillation: output, final state and every gradient
against the fp64 reference, for every broadcast form of o, real and complex."""
import pytest
import torch

from lcsm_core.scan import kernel as adapter
from tests.kernels.kernel_check import case, check_against_reference, make_states, o_shape

kernels = pytest.importorskip("lcsm_explorer.kernels")

F16 = torch.float16
CASES = [
    case(2, 37, 5, 7, "kxd"),
    case(2, 37, 5, 40, "kx1"),                       # three d-blocks: partial sums over d
    case(1, 70, 1, 7, "1xd", dtype=F16),
    case(2, 1, 5, 7, "1x1"),
    case(2, 37, 5, 7, "static-kxd", dtype=F16),
    case(2, 70, 5, 7, "static-kx1"),
    case(1, 37, 5, 40, "static-1xd", no_m0=True),
    case(2, 37, 1, 7, "scalar"),
    case(2, 37, 5, 7, "static-kx1", complex_o=True),  # LRPE / Cosformer
    case(1, 70, 5, 7, "kxd", complex_o=True, complex_e=True),
    case(1, 37, 5, 40, "static-kxd", complex_o=True, dtype=F16),   # LRU-like, fp16 inputs
    case(2, 1, 1, 7, "1x1", complex_o=True),
    case(1, 37, 5, 7, "kx1", dtype=torch.bfloat16),
    case(1, 130, 5, 7, "kx1"),                       # past 128 steps: four checkpoint segments of 32, a short last
    case(2, 1, 5, 7, "kxd", dtype=torch.bfloat16),   # bf16 at every awkward T (1, 37, 70, 130)
    case(1, 70, 5, 40, "static-kx1", dtype=torch.bfloat16),
    case(1, 130, 3, 7, "kxd", dtype=torch.bfloat16),
]


@pytest.mark.parametrize("cfg", CASES)
def test_fused_recurrent_matches_reference(cfg):
    B, T, k, d = cfg["B"], cfg["T"], cfg["k"], cfg["d"]
    states = make_states(B, T, k, d, o_shape(B, T, k, d, cfg["o_kind"]), dtype=cfg["dtype"],
                         complex_o=cfg["complex_o"], complex_e=cfg.get("complex_e", False),
                         initial_state=not cfg.get("no_m0", False))
    check_against_reference(lambda i, e, o, s, m0: adapter.fused_recurrent_eos(i, e, o, s, initial_state=m0),
                            states, dtype=cfg["dtype"])


def test_empty_batch_and_bad_checkpoint():
    x = torch.randn(0, 5, 3)
    y, m = adapter.fused_recurrent_eos(x, x, torch.ones(()), x)
    assert y.shape == (0, 5, 3) and m.shape == (0, 3, 3)
    with pytest.raises(ValueError, match="checkpoint"):
        adapter.fused_recurrent_eos(torch.randn(1, 5, 3), torch.randn(1, 5, 3), torch.ones(()), torch.randn(1, 5, 3),
                                    checkpoint=0)


def test_every_state_complex():
    """Complex i, e, s, o and initial state together (every cross term of the complex products)."""
    g = torch.Generator().manual_seed(0)

    def c(*shape):
        return torch.complex(torch.randn(*shape, generator=g), torch.randn(*shape, generator=g))

    B, T, k, d = 2, 20, 3, 5
    i, e, s, m0 = c(B, T, d), c(B, T, k) / 2, c(B, T, k), c(B, k, d)
    o = 0.9 * torch.exp(1j * torch.rand(B, T, k, d, generator=g))
    check_against_reference(lambda i, e, o, s, m0: adapter.fused_recurrent_eos(i, e, o, s, initial_state=m0),
                            [i, e, o, s, m0])


@pytest.mark.parametrize("checkpoint", [1, 5], ids=["ck1", "ck5"])
def test_checkpoint_interval_does_not_change_gradients(checkpoint):
    """The backward restarts from memories saved every `checkpoint` steps: any interval, even one
    that leaves a short last chunk (T = 12, interval 5), gives the reference gradients."""
    states = make_states(1, 12, 3, 5, (1, 12, 3, 1))
    check_against_reference(
        lambda i, e, o, s, m0: adapter.fused_recurrent_eos(i, e, o, s, initial_state=m0, checkpoint=checkpoint),
        states)


@pytest.mark.parametrize("fn_name", ["fused_recurrent_eos", "chunk_eos"])
def test_static_o_per_batch_element(fn_name):
    """o (B, 1, k, 1): fixed in time but different per batch element (a per-head decay)."""
    states = make_states(2, 37, 5, 7, (2, 1, 5, 1))
    fn = getattr(adapter, fn_name)
    check_against_reference(lambda i, e, o, s, m0: fn(i, e, o, s, initial_state=m0), states)

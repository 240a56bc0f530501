"""Chunked kernel for the k-vector-decay family (o = g 1ᵀ, g > 0): output, final state and
every gradient against the fp64 reference."""
import pytest
import torch

from lcsm_core.scan import kernel as adapter
from tests.kernels.kernel_check import case, check_against_reference, make_states, o_shape

kernels = pytest.importorskip("lcsm_explorer.kernels")

F16 = torch.float16
CASES = [
    case(2, 37, 5, 7, "kx1"),                        # GLA
    case(1, 70, 5, 40, "kx1", dtype=F16),            # three d-blocks, partial chunk at the end
    case(2, 1, 5, 7, "kx1"),
    case(2, 37, 1, 7, "kx1"),                        # HGRN: k = 1
    case(2, 70, 5, 7, "static-kx1", no_m0=True),     # RetNet-like fixed decay per k
    case(2, 37, 5, 7, "1x1"),                        # Mamba-2 / simple GLA: one decay per step
    case(2, 37, 5, 7, "scalar", dtype=F16),          # RetNet: one fixed decay
    case(1, 37, 5, 7, "kx1", dtype=torch.bfloat16),
    case(1, 130, 20, 7, "kx1"),                      # three chunks of 64, every sub-chunk block kind
    case(1, 130, 20, 40, "kx1", dtype=torch.bfloat16),   # tensor-core operands in bf16, two value blocks
    case(2, 1, 5, 7, "kx1", dtype=torch.bfloat16),       # bf16 at every awkward T (1, 37, 70, 130)
    case(1, 70, 3, 40, "1x1", dtype=torch.bfloat16),
]


@pytest.mark.parametrize("cfg", CASES)
def test_chunk_matches_reference(cfg):
    B, T, k, d = cfg["B"], cfg["T"], cfg["k"], cfg["d"]
    states = make_states(B, T, k, d, o_shape(B, T, k, d, cfg["o_kind"]), dtype=cfg["dtype"],
                         initial_state=not cfg.get("no_m0", False))
    check_against_reference(lambda i, e, o, s, m0: adapter.chunk_eos(i, e, o, s, initial_state=m0),
                            states, dtype=cfg["dtype"])


def test_chunk_linear_attention_no_decay():
    """o = 1 (linear attention): gradient of the constant o still matches."""
    i, e, _, s, m0 = make_states(2, 37, 5, 7, ())
    check_against_reference(lambda i, e, o, s, m0: adapter.chunk_eos(i, e, o, s, initial_state=m0),
                            [i, e, torch.ones(()), s, m0])


@pytest.mark.parametrize("o", [torch.full((5, 1), -0.5), torch.rand(5, 7) + 0.5,
                               torch.full((5, 1), 0.5 + 0.1j)], ids=["negative", "kxd", "complex"])
def test_chunk_refuses_what_it_cannot_take(o):
    i, e, _, s, _ = make_states(1, 3, 5, 7, ())
    with pytest.raises(ValueError, match="fused_recurrent_eos"):
        adapter.chunk_eos(i, e, o, s)


def test_chunk_sharp_gates_do_not_overflow():
    """Gates down to e^-8: a chunk's cumulative decay reaches e^-128, so any e^{-b} factor would
    overflow fp32; the column-wise scores keep every exponent <= 0. Checked through the log-gate
    a (o = e^a), the way gated models parameterize it: ∂L/∂o = (∂L/∂a)/o has an absolute error
    of fp32 round-off / o, as in every log-space gate kernel."""
    B, T, k, d = 1, 37, 5, 7
    i, e, _, s, m0 = make_states(B, T, k, d, ())
    g = torch.Generator().manual_seed(5)
    log_o = -8.0 * torch.rand(B, T, k, 1, generator=g)
    check_against_reference(lambda i, e, o, s, m0: adapter.chunk_eos(i, e, o, s, initial_state=m0),
                            [i, e, log_o, s, m0], o_map=torch.exp)

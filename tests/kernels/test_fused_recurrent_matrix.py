"""Fused recurrent kernel, matrix oscillation (DeltaNet / FWP, M1–M3): output, final state and
every gradient against the fp64 reference."""
import pytest
import torch

from lcsm_core.scan import kernel as adapter
from tests.kernels.kernel_check import case, check_against_reference, make_states

kernels = pytest.importorskip("lcsm_explorer.kernels")

CASES = [
    case(2, 37, 5, 7, "kxk"),
    case(1, 37, 5, 40, "kxk", dtype=torch.float16),   # three d-blocks
    case(2, 1, 1, 7, "kxk"),
    case(2, 37, 5, 7, "static-kxk", no_m0=True),
    case(1, 70, 3, 7, "delta"),                        # o = I - β k kᵀ with e = β k
]


def matrix_states(cfg):
    B, T, k, d, kind = cfg["B"], cfg["T"], cfg["k"], cfg["d"], cfg["o_kind"]
    i, e, _, s, m0 = make_states(B, T, k, d, (), dtype=cfg["dtype"], initial_state=not cfg.get("no_m0"))
    g = torch.Generator().manual_seed(3)
    eye = torch.eye(k)
    if kind == "delta":
        key = torch.nn.functional.normalize(torch.randn(B, T, k, generator=g), dim=-1)
        beta = torch.rand(B, T, 1, generator=g)
        o = eye - beta[..., None] * key[..., :, None] * key[..., None, :]
        e = (beta * key).to(cfg["dtype"])
    else:
        shape = (k, k) if kind.startswith("static") else (B, T, k, k)
        o = 0.8 * eye + 0.15 * torch.randn(shape, generator=g) / k ** 0.5
    return [i, e, o.to(cfg["dtype"]), s, m0]


@pytest.mark.parametrize("cfg", CASES)
def test_fused_recurrent_matrix_matches_reference(cfg):
    check_against_reference(
        lambda i, e, o, s, m0: adapter.fused_recurrent_eos_matrix(i, e, o, s, initial_state=m0),
        matrix_states(cfg), psi="matrix", dtype=cfg["dtype"])


def test_matrix_kernel_refuses_complex():
    i, e, _, s, _ = make_states(1, 3, 2, 4, ())
    o = torch.eye(2, dtype=torch.complex64)
    with pytest.raises(ValueError, match="real states only"):
        adapter.fused_recurrent_eos_matrix(i, e, o, s)


def test_matrix_checkpoint_interval():
    """Memories saved every 5 steps, T = 12: a short last chunk in the recomputing backward."""
    cfg = dict(B=1, T=12, k=3, d=5, o_kind="kxk", dtype=torch.float32)
    check_against_reference(
        lambda i, e, o, s, m0: adapter.fused_recurrent_eos_matrix(i, e, o, s, initial_state=m0, checkpoint=5),
        matrix_states(cfg), psi="matrix")

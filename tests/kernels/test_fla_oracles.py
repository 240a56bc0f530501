"""Independent oracles: flash-linear-attention's plain-PyTorch references (fla-core, an optional
test dependency installed with --no-deps) against the kernels, with each operator written as
its EOS states. Skipped when fla-core is not installed."""
import importlib.util
from pathlib import Path

import pytest
import torch

from lcsm_core.scan import kernel as adapter
from tests.closeness import assert_close

kernels = pytest.importorskip("lcsm_explorer.kernels")


def fla_naive(op: str):
    """Load fla/ops/<op>/naive.py by path: the fla package __init__ pulls in its whole stack."""
    spec = importlib.util.find_spec("fla")
    if spec is None or spec.origin is None:
        pytest.skip("fla-core is not installed (optional: pip install fla-core==0.6.0 einops --no-deps)")
    path = Path(spec.origin).parent / "ops" / op / "naive.py"
    mod_spec = importlib.util.spec_from_file_location(f"_fla_naive_{op}", path)
    module = importlib.util.module_from_spec(mod_spec)
    try:
        mod_spec.loader.exec_module(module)
    except ImportError as err:    # einops missing
        pytest.skip(f"fla's {op} reference needs {err.name}")
    return module


def grads(y, m, leaves, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.autograd.grad((y, m), leaves, (torch.randn(y.shape, generator=g), torch.randn(m.shape, generator=g)))


@pytest.mark.parametrize("impl", ["chunk", "fused_recurrent"])
def test_gla_matches_fla(impl):
    """GLA: i = v, e = k, o = exp(gk) 1ᵀ, s = q / sqrt(K)."""
    naive = fla_naive("gla").naive_recurrent_gla
    B, T, H, K, V = 1, 37, 2, 5, 7
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(B, T, H, n, generator=g).requires_grad_() for n in (K, K, V))
    gk = torch.nn.functional.logsigmoid(torch.randn(B, T, H, K, generator=g)).requires_grad_()
    y_ref, m_ref = naive(q, k, v, gk, output_final_state=True)
    leaves = [q, k, v, gk]
    g_ref = grads(y_ref, m_ref, leaves)

    def bhtx(x):
        return x.transpose(1, 2)          # (B, T, H, n) -> (B, H, T, n)

    fn = adapter.chunk_eos if impl == "chunk" else adapter.fused_recurrent_eos
    y, m = fn(bhtx(v), bhtx(k), bhtx(gk).exp()[..., None], bhtx(q) * K ** -0.5)
    y = y.transpose(1, 2)
    assert_close(y, y_ref.double(), "y", precision=torch.float32)
    assert_close(m, m_ref.double(), "m_T", precision=torch.float32)
    for name, a, b in zip("qkvg", grads(y, m, leaves), g_ref):
        assert_close(a, b.double(), f"grad {name}", precision=torch.float32)


def delta_rule_case(B: int, H: int, T: int, K: int, V: int, seed: int):
    """A DeltaNet case in fla's layout (B, H, T, n): the leaves (q, k, v, β, keys normalized) and fla's naive
    recurrence's output, final state and gradients."""
    naive = fla_naive("delta_rule").delta_rule_recurrence
    g = torch.Generator().manual_seed(seed)
    q, v = torch.randn(B, H, T, K, generator=g), torch.randn(B, H, T, V, generator=g)
    k = torch.nn.functional.normalize(torch.randn(B, H, T, K, generator=g), dim=-1)
    beta = torch.rand(B, H, T, generator=g)
    leaves = [x.requires_grad_() for x in (q, k, v, beta)]
    y_ref, m_ref = naive(q, k, v, beta, output_final_state=True)
    return leaves, y_ref, m_ref, grads(y_ref, m_ref, leaves)


def test_delta_rule_matches_fla():
    """DeltaNet: o = I - β k kᵀ, e = β k, i = v, s = q / sqrt(K) (fla's layout (B, H, T, n))."""
    B, H, T, K, V = 1, 2, 37, 5, 7
    leaves, y_ref, m_ref, g_ref = delta_rule_case(B, H, T, K, V, seed=1)
    q, k, v, beta = leaves
    o = torch.eye(K) - beta[..., None, None] * k[..., :, None] * k[..., None, :]
    y, m = adapter.fused_recurrent_eos_matrix(v, beta[..., None] * k, o, q * K ** -0.5)
    assert_close(y, y_ref.double(), "y", precision=torch.float32)
    assert_close(m, m_ref.double(), "m_T", precision=torch.float32)
    for name, a, b in zip(("q", "k", "v", "beta"), grads(y, m, leaves), g_ref):
        assert_close(a, b.double(), f"grad {name}", precision=torch.float32)


def test_hgrn_matches_fla():
    """HGRN, channel-wise: every channel its own scan with k = d = 1: i = x, e = 1, o = exp(g), s = 1."""
    naive = fla_naive("hgrn").naive_recurrent_hgrn
    B, T, D = 1, 37, 2
    g = torch.Generator().manual_seed(2)
    x = torch.randn(B, T, D, generator=g).requires_grad_()
    gate = torch.nn.functional.logsigmoid(torch.randn(B, T, D, generator=g)).requires_grad_()
    y_ref, m_ref = naive(x, gate, output_final_state=True)
    g_ref = grads(y_ref, m_ref, [x, gate])
    ones = torch.ones(B, D, T, 1)
    xt = x.transpose(1, 2)[..., None]                              # (B, D, T, 1): channels as batch
    y, m = adapter.chunk_eos(xt, ones, gate.transpose(1, 2).exp()[..., None, None], ones)
    y, m = y[..., 0].transpose(1, 2), m[..., 0, 0]
    assert_close(y, y_ref.double(), "y", precision=torch.float32)
    assert_close(m, m_ref.double(), "m_T", precision=torch.float32)
    for name, a, b in zip(("x", "g"), grads(y, m, [x, gate]), g_ref):
        assert_close(a, b.double(), f"grad {name}", precision=torch.float32)


@pytest.mark.parametrize("impl", ["chunk", "fused_recurrent"])
def test_structured_delta_rule_matches_fla(impl):
    """DeltaNet given as (w, β) to the structured kernels: w = k, β, e = β k, i = v, s = q / sqrt(K)."""
    from lcsm_explorer.kernels.delta import run_delta
    B, H, T, K, V = 1, 2, 70, 5, 7
    leaves, y_ref, m_ref, g_ref = delta_rule_case(B, H, T, K, V, seed=4)
    q, k, v, beta = leaves

    def flat(x):
        return x.reshape(B * H, T, *x.shape[3:])

    y, m = run_delta(flat(v), flat(beta[..., None] * k), flat(k), flat(beta), flat(q * K ** -0.5), impl=impl)
    y, m = y.reshape(B, H, T, V), m.reshape(B, H, K, V)
    assert_close(y, y_ref.double(), "y", precision=torch.float32)
    assert_close(m, m_ref.double(), "m_T", precision=torch.float32)
    for name, a, b in zip(("q", "k", "v", "beta"), grads(y, m, leaves), g_ref):
        assert_close(a, b.double(), f"grad {name}", precision=torch.float32)

"""eos_scan's structured delta rule against an independent oracle: flash-linear-attention's plain-PyTorch
`delta_rule_recurrence` (fla-core, an optional test dependency; skipped when it is not installed), in the torch
forms (the kernels have their own in tests/kernels/test_fla_oracles.py)."""
import importlib.util
from pathlib import Path

import pytest
import torch

from lcsm_core import eos_scan
from lcsm_core.scan.structured import DeltaRule
from tests.closeness import assert_close


def delta_rule_recurrence():
    spec = importlib.util.find_spec("fla")
    if spec is None or spec.origin is None:
        pytest.skip("fla-core is not installed (optional: pip install fla-core==0.6.0 einops --no-deps)")
    path = Path(spec.origin).parent / "ops" / "delta_rule" / "naive.py"
    module_spec = importlib.util.spec_from_file_location("_fla_naive_delta_rule_core", path)
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except ImportError as err:
        pytest.skip(f"fla's delta-rule reference needs {err.name}")
    return module.delta_rule_recurrence


@pytest.mark.parametrize("form,chunk", [("recurrent", 64), ("chunked", 16), ("chunked", 64)], ids=str)
@pytest.mark.parametrize("T", [1, 37, 130])
def test_deltanet_as_a_delta_rule_matches_fla(form, chunk, T):
    """DeltaNet: o = DeltaRule(k, β), e = β k, i = v, s = q / sqrt(K); fla's layout (B, H, T, n)."""
    naive = delta_rule_recurrence()
    B, H, K, V = 1, 2, 5, 7
    g = torch.Generator().manual_seed(T)
    q, v = torch.randn(B, H, T, K, generator=g), torch.randn(B, H, T, V, generator=g)
    k = torch.nn.functional.normalize(torch.randn(B, H, T, K, generator=g), dim=-1)
    beta = torch.rand(B, H, T, generator=g)
    leaves = [x.double().requires_grad_() for x in (q, k, v, beta)]
    q, k, v, beta = leaves
    y_ref, m_ref = naive(q, k, v, beta, output_final_state=True)
    y, m = eos_scan(v, beta[..., None] * k, DeltaRule(k, beta), q * K ** -0.5, psi="matrix", form=form,
                    chunk_size=chunk, return_state=True)
    assert_close(y, y_ref, "y", precision=torch.float32)            # fla's reference computes in float32
    assert_close(m, m_ref, "m_T", precision=torch.float32)
    cotangents = (torch.randn(y.shape, generator=g, dtype=y.dtype), torch.randn(m.shape, generator=g, dtype=m.dtype))
    g_ref = torch.autograd.grad((y_ref, m_ref), leaves, cotangents)
    g_ours = torch.autograd.grad((y, m), leaves, cotangents)
    for name, a, b in zip(("q", "k", "v", "beta"), g_ours, g_ref):
        assert_close(a, b, f"grad {name}", precision=torch.float32)

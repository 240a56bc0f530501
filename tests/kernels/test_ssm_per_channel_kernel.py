"""The per-channel SSM banks (DSS, TNN, code "0": layout="channels", d = 1 per system) run through the
kernels and match the fp64 recurrent reference, output and parameter gradients."""
import pytest
import torch

from lcsm_core import build_layer, build_layer_from_code
from tests.closeness import assert_close

pytest.importorskip("lcsm_explorer.kernels")


@pytest.mark.parametrize("name", ["dss", "tnn", "code 0"])
def test_per_channel_ssm_through_the_kernel(name):
    def make(form, dtype):
        torch.manual_seed(0)
        layer = (build_layer_from_code("0", 5, 4, form=form) if name == "code 0"
                 else build_layer(name, 5, 4, form=form))
        return layer.double() if dtype == torch.float64 else layer   # .to(dtype) would drop Im C

    x = torch.randn(2, 23, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    results = {}
    for form, dtype in (("recurrent", torch.float64), ("kernel", torch.float32)):
        layer = make(form, dtype)
        y = layer(x.to(dtype))
        results[form] = (y, torch.autograd.grad(y.pow(2).sum(), list(layer.parameters())))
    (y, grads), (y_ref, g_ref) = results["kernel"], results["recurrent"]
    assert_close(y, y_ref.float(), f"{name} kernel", precision=torch.float32, scale=10)
    for g, want in zip(grads, g_ref):
        assert_close(g, want.to(g.dtype), f"{name} kernel parameter gradient", precision=torch.float32, scale=100)

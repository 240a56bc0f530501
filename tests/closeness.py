"""One tolerance table and one assert_close for every numerical test (core forms, backward, variants, kernels).

The rule:  max |got − want| <= TOLERANCE[precision] × scale × max(max |want|, 1)

`precision` is the dtype the computation under test ran in (default: got's dtype); `want` is the
reference, usually fp64. `scale` is a visible per-call allowance for quantities that pile up
round-off (gradients through many steps, parameter gradients of whole layers).
"""
from __future__ import annotations

import torch

TOLERANCE = {
    torch.float64: 1e-10, torch.complex128: 1e-10,   # fp64 forms of one recurrence: round-off only
    torch.float32: 2e-5, torch.complex64: 2e-5,      # fp32 state; error is fp32 round-off
    torch.float16: 4e-3,                             # fp32 state, output cast to fp16
    torch.bfloat16: 3e-2,                            # fp32 state, output cast to bf16
}


def assert_close(got: torch.Tensor, want: torch.Tensor, what: str = "", *, precision: torch.dtype | None = None,
                 scale: float = 1.0) -> None:
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != reference {tuple(want.shape)}"
    assert got.is_complex() == want.is_complex(), f"{what}: complex {got.is_complex()} != reference"
    tol = TOLERANCE[precision or got.dtype] * scale
    wide = torch.complex128 if want.is_complex() else torch.float64
    got, want = got.detach().to(wide), want.detach().to(wide)
    size = max(want.abs().max().item(), 1.0) if want.numel() else 1.0
    err = (got - want).abs().max().item() if want.numel() else 0.0
    assert err <= tol * size, f"{what}: max error {err:.3g} > {tol:.1g} x scale {size:.3g}"

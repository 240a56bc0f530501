"""Live comparison of the hand-written backward with autograd, for the "Check the math" page."""
from __future__ import annotations

import torch

from .scan import eos_scan


def compare_backward(psi: str = "elementwise", T: int = 8, k: int = 4, d: int = 3, complex_o: bool = False,
                     seed: int = 0, run_gradcheck: bool = True) -> dict:
    """Gradients of one random fp64 problem two ways; the largest difference per state.

    Returns {"errors": {name: max |manual − autograd|}, "gradcheck": bool | None, "scale": max |grad|,
    "grad_max": {name: max |autograd gradient|}} with names i, e, o, s.
    """
    if psi not in ("elementwise", "matrix"):
        raise ValueError(f"psi must be 'elementwise' or 'matrix', got {psi!r}")
    for name, value, high in (("T", T, 64), ("k", k, 16), ("d", d, 16)):
        if not 1 <= int(value) <= high:
            raise ValueError(f"{name} must be between 1 and {high}, got {value}")
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)
    o = (torch.rand(1, T, k, d, generator=g, dtype=torch.float64) if psi == "elementwise"
         else r(1, T, k, k) * (0.5 / k ** 0.5))
    if complex_o:
        o = torch.polar(o.abs(), r(*o.shape))
    leaves = [x.requires_grad_() for x in (r(1, T, d), r(1, T, k), o, r(1, T, k))]
    grads = {}
    for backward in ("autograd", "manual"):
        y = eos_scan(*leaves, psi=psi, backward=backward)
        grads[backward] = torch.autograd.grad((y * torch.cos(y)).sum(), leaves)
    errors = {name: float((a - b).abs().max()) for name, a, b in zip("ieos", grads["manual"], grads["autograd"])}
    scale = max(float(x.abs().max()) for x in grads["autograd"])
    passed = None
    if run_gradcheck:
        small = [x.detach()[:, : min(T, 4)].clone().requires_grad_() for x in leaves]
        passed = bool(torch.autograd.gradcheck(lambda *xs: eos_scan(*xs, psi=psi, backward="manual"), tuple(small),
                                               raise_exception=False))
    grad_max = {name: float(x.abs().max()) for name, x in zip("ieos", grads["autograd"])}
    return {"errors": errors, "gradcheck": passed, "scale": scale, "grad_max": grad_max}

"""One tolerance table and one assert_close for the core tests."""
import torch

TOLERANCE = {  # dtype: (atol, rtol)
    torch.float64: (1e-10, 1e-10),
    torch.complex128: (1e-10, 1e-10),
    torch.float32: (1e-4, 1e-4),
    torch.complex64: (1e-4, 1e-4),
}


def assert_close(got: torch.Tensor, want: torch.Tensor, what: str = "", scale: float = 1.0):
    atol, rtol = TOLERANCE[want.dtype]
    torch.testing.assert_close(got, want, atol=atol * scale, rtol=rtol * scale, msg=lambda m: f"{what}: {m}")

"""Impulse responses of single EOS modes: h_t = λ h_{t-1} + δ_t, read through `eos_scan`."""
from __future__ import annotations

import numpy as np
import torch

from ..scan import eos_scan


def mode_trajectories(eigenvalues: np.ndarray, inputs: np.ndarray, form: str = "recurrent") -> np.ndarray:
    """Complex memory h (..., P, T) of P one-state modes h_t = λ h_{t-1} + u_t.

    eigenvalues (P,) complex; inputs (..., T) real, shared by every mode. Real and
    imaginary parts come from two shrink states, s = 1 and s = -i (y = Re(h s)).
    form: the `eos_scan` form; "chunked" is ~10× faster for a few modes over hundreds of steps
    (the recurrent form's cost is its Python loop over T), equal to ~1e-13.
    """
    lam = torch.as_tensor(np.asarray(eigenvalues, dtype=complex))                # (P,)
    u = torch.as_tensor(np.asarray(inputs, dtype=float))                         # (..., T)
    P, T = lam.shape[0], u.shape[-1]
    lead = u.shape[:-1]
    i = u.reshape(*lead, 1, 1, T, 1)                                             # (..., 1, 1, T, 1)
    e = torch.ones(T, 1, dtype=torch.float64)                                    # (T, 1)
    o = lam.reshape(1, P, 1, 1, 1)                                               # (1, P, T=1, k=1, d=1)
    s = torch.tensor([1.0, -1j], dtype=torch.complex128).reshape(2, 1, 1, 1).expand(2, 1, T, 1)
    y = eos_scan(i, e, o, s, form=form)                                          # (..., 2, P, T, 1)
    y = y[..., 0].numpy()
    return y[..., 0, :, :] + 1j * y[..., 1, :, :]


def impulse_responses(eigenvalues: np.ndarray, steps: int) -> np.ndarray:
    """λ^t for t = 0..steps-1, (P, steps) complex, computed by the EOS scan."""
    delta = np.zeros(steps)
    delta[0] = 1.0
    return mode_trajectories(eigenvalues, delta)



def impulse_powers(eigenvalues: np.ndarray, steps: int) -> np.ndarray:
    """`impulse_responses` in closed form: λᵗ = exp(t log λ), (P, steps) complex, for families of many modes over
    thousands of steps (the scan's loop over T, or its chunked blocks, cost ten times more there). Equal to the
    scan's to ~t · 1e-16 relative (tests/dynamics/test_families.py)."""
    log_lam = np.log(np.asarray(eigenvalues, dtype=complex))
    return np.exp(np.arange(steps)[None, :] * log_lam[:, None])

"""What every registered model variant shares: EOS states in, `eos_scan`, a readout.

A variant only declares `states(x)` — how it computes (i, e, o, s) from x — and,
if it needs one, a `readout`. It never writes its own recurrence.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import torch
from torch import nn

from ..scan import eos_scan, prepare
from ..scan.structured import Diagonal, dense, is_structured
from .oscillation import OscillationShape
from .sizes import check_layer_size

Layout = Literal["sequence", "channels"]


class EOSStates:
    """The four EOS states of a layer for one input batch.

    layout "sequence": i (B, T, d), e/s (B, T, k), o (B, T, k|1, d|1) or static.
    layout "channels": one small system per channel (or output head) c as a leading
    dim: i (B|1, C, T, d), e/s (B|1, C, T, k), o (B|1, C, T|1, ...); y (B, C, T, 1)
    is read back as (B, T, C).

    A layer may declare o structured (`lcsm_core.scan.structured`: Outer, DeltaRule, Diagonal): `scan_o` is what
    it declared and what `eos_scan` gets, unexpanded; `o` is the dense tensor it stands for (for a Diagonal, the
    k×k matrix psi="matrix" reads), built only when a reader asks (the EOS view, eigenvalues), never on the
    training path.
    """

    def __init__(self, i: torch.Tensor, e: torch.Tensor, o, s: torch.Tensor, psi: str = "elementwise",
                 layout: Layout = "sequence"):
        self.i, self.e, self.s, self.psi, self.layout = i, e, s, psi, layout
        self.scan_o = o
        self._dense_o = None if is_structured(o) else o

    @property
    def o(self) -> torch.Tensor:
        if self._dense_o is None:
            o = self.scan_o
            self._dense_o = dense(o) if isinstance(o, Diagonal) else \
                prepare(self.i, self.e, o, self.s, self.psi, "propagate").densified().o
        return self._dense_o

    def __repr__(self) -> str:
        return f"EOSStates(psi={self.psi!r}, layout={self.layout!r}, o={type(self.scan_o).__name__})"


@dataclass(frozen=True)
class VariantInfo:
    """One row of LCSM Table 1 (plus Longhorn and LRU), as the Home page shows it, and the shape of the
    variant's oscillation as its scan sees it (`oscillation.py`; the training cost model reads it)."""

    name: str
    label: str
    family: str
    i: str
    e: str
    o: str
    s: str
    psi: str
    data_dependent: str  # which of e, o, s are computed from x_t ("" = none)
    note: str = ""
    oscillation_shape: OscillationShape = field(kw_only=True, repr=False, compare=False)


class EOSLayer(nn.Module):
    """Base class: forward(x (B, T, d_model)) -> (B, T, d_model)."""

    info: VariantInfo

    def __init__(self, d_model: int, expand_dim: int, *, form: str = "auto", chunk_size: int = 64):
        super().__init__()
        d_model, expand_dim = check_layer_size(d_model, expand_dim)   # before any subclass allocates
        self.d_model, self.expand_dim = d_model, expand_dim
        self.form, self.chunk_size = form, chunk_size

    # -- what a variant declares -------------------------------------------------
    def states(self, x: torch.Tensor) -> EOSStates:
        raise NotImplementedError

    def readout(self, y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """y (B, T, d) from the shrink -> (B, T, d_model). Default: a linear map."""
        return self.out_proj(y)

    # -- shared machinery ---------------------------------------------------------
    def mix(self, x: torch.Tensor, st: EOSStates | None = None) -> torch.Tensor:
        """The EOS part alone: y (B, T, d)."""
        st = self.states(x) if st is None else st
        # NaN/inf propagate: inside a model the trainer's divergence policy reads them from the loss
        y = eos_scan(st.i, st.e, st.scan_o, st.s, psi=st.psi, form=self.form, chunk_size=self.chunk_size,
                     nonfinite="propagate")
        if st.layout == "channels":
            y = y.squeeze(-1).transpose(-1, -2)                # (B, C, T, 1) -> (B, T, C)
        return y

    def check_input(self, x: torch.Tensor) -> None:
        """x (B, T, d_model) of the layer's dtype. A float64 x into a float32 layer is refused, not cast: a
        silent cast would drop the precision the caller asked for (use layer.double() for float64)."""
        if not isinstance(x, torch.Tensor) or x.ndim != 3 or x.shape[-1] != self.d_model:
            raise ValueError(f"x must have shape (B, T, d_model={self.d_model}), got {tuple(getattr(x, 'shape', ()))}")
        if x.shape[1] < 1:
            raise ValueError(f"x must have at least one time step: shape (B, T ≥ 1, d_model={self.d_model}), "
                             f"got {tuple(x.shape)}")
        if not x.is_floating_point():
            hint = "" if x.is_complex() else "; an EOS layer reads embeddings, not token ids (embed them first)"
            raise ValueError(f"x must be a real floating tensor (B, T, d_model), got dtype {x.dtype}{hint}")
        expected = self.dtype()
        if expected is not None and x.dtype != expected and not torch.is_autocast_enabled(x.device.type):
            raise ValueError(f"x must have the layer's dtype {expected}, got {x.dtype}; "
                             f"convert x with x.to({expected}) or the layer with layer.to({x.dtype})")

    def dtype(self) -> torch.dtype | None:
        """The dtype of the layer's real parameters (complex ones follow it), None if it has none."""
        return next((p.dtype for p in self.parameters() if p.is_floating_point()), None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.check_input(x)
        return self.readout(self.mix(x), x)

    @torch.no_grad()
    def eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """Eigenvalues of the oscillation, complex 1-D on the CPU.

        Elementwise psi: the entries of o (each is an eigenvalue of the diagonal
        transition), averaged over batch and time when o depends on x.
        Matrix psi: the eigenvalues of o averaged over batch and time.
        """
        self.check_input(x)
        st = self.states(x)
        o = st.o
        keep = 2 + (1 if st.layout == "channels" else 0)      # (k, d) plus the channel dim
        if o.ndim > 2:
            o = o.mean(dim=-3)                                 # over time
        while o.ndim > keep:
            o = o.mean(dim=0)                                  # over batch
        o = o.detach().cpu().to(torch.complex128)
        if st.psi == "matrix":
            return torch.linalg.eigvals(o).reshape(-1)
        return o.reshape(-1)

    @torch.no_grad()
    def spectral_radius(self, x: torch.Tensor) -> float:
        """Largest |eigenvalue| of any step's transition: above 1 the memory can blow up."""
        self.check_input(x)
        st = self.states(x)
        o = st.o.detach().cpu().to(torch.complex128)
        if st.psi == "matrix":
            return float(torch.linalg.eigvals(o).abs().max())
        return float(o.abs().max())


def parameter_count(layer: nn.Module) -> int:
    """The trainable real numbers of a layer; a complex parameter counts twice (real and imaginary part)."""
    return sum(p.numel() * (2 if p.is_complex() else 1) for p in layer.parameters() if p.requires_grad)


def linear(d_in: int, d_out: int, bias: bool = False, std: float | None = None) -> nn.Linear:
    layer = nn.Linear(d_in, d_out, bias=bias)
    if std is not None:
        nn.init.normal_(layer.weight, std=std)
    return layer


def alibi_decays(n: int) -> torch.Tensor:
    """ALiBi-style decay rates: slopes 2^(−8j/n), j = 1..n, as decays exp(−slope) in (0, 1)."""
    j = torch.arange(1, n + 1, dtype=torch.float32)
    return torch.exp(-(2.0 ** (-8.0 * j / n)))


def check_tau(tau) -> float:
    """τ of a data-dependent decay as a float: positive and finite. NaN would make every decay NaN, and
    τ = ∞ would pin every decay at 1 whatever x says; both are refused."""
    try:
        value = float(tau)
    except (TypeError, ValueError):
        raise ValueError(f"tau must be a positive finite number, got {tau!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"tau must be a positive finite number, got {tau!r}")
    return value


def data_dependent_decay(logits: torch.Tensor, tau: float) -> torch.Tensor:
    """sigmoid(logits)^(1/τ), in (0, 1), computed in log space so it never underflows to 0."""
    return torch.exp(torch.nn.functional.logsigmoid(logits) / tau)

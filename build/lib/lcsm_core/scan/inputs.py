"""Validation and broadcasting of the EOS states handed to `eos_scan`.

Every form of the scan (recurrent, parallel, chunked, kernel) starts here, so a
bad shape gets the same clear message whichever form was asked for.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from . import structured
from .structured import is_structured

PSI_CHOICES = ("elementwise", "matrix")


@dataclass
class ScanInputs:
    """States broadcast to a common layout.

    i (..., T, d)   e (..., T, k)   s (..., T, k)
    o elementwise: (..., T|1, k|1, d|1)   matrix: (..., T|1, k, k)
      or a structured o (structured.py: Outer, DeltaRule) in the layout `structured.normalize` gives; a
      Diagonal(values) given with psi="matrix" is here the elementwise k-vector it equals (psi="elementwise").
    batch: the broadcast leading shape `...`.
    """

    i: torch.Tensor
    e: torch.Tensor
    o: torch.Tensor
    s: torch.Tensor
    psi: str
    batch: tuple
    T: int
    k: int
    d: int

    @property
    def state_dtype(self) -> torch.dtype:
        dt = torch.promote_types(self.i.dtype, torch.promote_types(self.e.dtype, self.s.dtype))
        for factor in structured.factors(self.o):
            dt = torch.promote_types(dt, factor.dtype)
        return dt

    @property
    def structure(self) -> str:
        """"dense", "outer" or "delta"."""
        return {structured.Outer: "outer", structured.DeltaRule: "delta"}.get(type(self.o), "dense")

    def densified(self) -> "ScanInputs":
        """The same scan with a structured o built as its dense tensor (what a form without a structured path
        runs)."""
        return replace(self, o=structured.dense(self.o)) if is_structured(self.o) else self


def _check_tensor(name: str, x, min_ndim: int, expected: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor of shape {expected}, got {type(x).__name__}")
    if not (x.is_floating_point() or x.is_complex()):
        raise ValueError(f"{name} must be a floating or complex tensor of shape {expected}, got dtype {x.dtype}")
    if x.ndim < min_ndim:
        raise ValueError(f"{name} must have shape {expected}, got {tuple(x.shape)}")
    return x


def _oscillation_tensor(o, i: torch.Tensor) -> torch.Tensor:
    """o as a tensor: a tensor as given; a number, nested list or array of numbers in i's precision
    (complex when the numbers are). Anything else (None, a string) is a ValueError naming o."""
    if isinstance(o, torch.Tensor):
        return o
    if o is None or isinstance(o, (str, bytes)):
        raise ValueError(f"o must be a tensor or numbers broadcastable to (..., T, k, d), got {o!r}")
    try:
        o = torch.as_tensor(o, device=i.device)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"o must be a tensor or numbers broadcastable to (..., T, k, d), "
                         f"got {type(o).__name__} ({err})") from None
    if o.is_complex():
        return o.to(torch.promote_types(i.dtype, torch.complex64))
    return o.to(i.dtype)


NONFINITE = ("refuse", "propagate")


def prepare(i, e, o, s, psi: str, nonfinite: str = "refuse") -> ScanInputs:
    """Check ranks, sizes and dtypes (and, with nonfinite="refuse", that every value is finite); broadcast leading
    dims. Raises ValueError."""
    if nonfinite not in NONFINITE:
        raise ValueError(f"nonfinite must be one of {NONFINITE}, got {nonfinite!r}")
    if psi not in PSI_CHOICES:
        raise ValueError(f"psi must be one of {PSI_CHOICES}, got {psi!r}")
    i = _check_tensor("i", i, 2, "(..., T, d)")
    e = _check_tensor("e", e, 2, "(..., T, k)")
    s = _check_tensor("s", s, 2, "(..., T, k)")
    T, d = i.shape[-2], i.shape[-1]
    k = e.shape[-1]
    if isinstance(o, structured.Diagonal):                   # diag(v) m = v ⊙ m: the elementwise k-vector
        o, psi = structured.diagonal_rows(o, psi, i, T, k), "elementwise"
    if not is_structured(o):
        o = _check_tensor("o", _oscillation_tensor(o, i), 0, "(..., T, k, d)")
    if T < 1:
        raise ValueError(f"i must have at least one time step, got shape {tuple(i.shape)}")
    if e.shape[-2] != T or s.shape[-2] != T:
        raise ValueError(f"i, e, s must share T (dim -2): i {tuple(i.shape)}, e {tuple(e.shape)}, s {tuple(s.shape)}")
    if s.shape[-1] != k:
        raise ValueError(f"s must have shape (..., T, k) with k={k} (from e), got {tuple(s.shape)}")
    if d < 1 or k < 1:
        raise ValueError(f"k and d must be at least 1, got k={k}, d={d}")
    devices = {t.device for t in (i, e, s)}
    if len(devices) > 1:
        raise ValueError(f"i, e, o, s must be on one device, got {sorted(map(str, devices))}")

    if is_structured(o):
        o = structured.normalize(o, psi, i, T, k, d)
    elif o.device != i.device:
        raise ValueError(f"i, e, o, s must be on one device, got {sorted(map(str, devices | {o.device}))}")
    elif psi == "elementwise":
        if o.ndim <= 2:  # static parameter: scalar, (k, d), (k, 1), (1, d)
            o = o.reshape((1, 1) if o.ndim == 0 else (1,) * (2 - o.ndim) + tuple(o.shape))
            o = o.unsqueeze(0)  # (1, k|1, d|1)
        if o.shape[-2] not in (1, k) or o.shape[-1] not in (1, d) or o.shape[-3] not in (1, T):
            raise ValueError(
                f"o must broadcast to (..., T, k, d) = (..., {T}, {k}, {d}) "
                f"(k x d, k x 1, 1 x d or 1 x 1 per step, or a static (k, d) parameter), got {tuple(o.shape)}")
    else:
        if o.ndim == 2:
            o = o.unsqueeze(0)
        if o.ndim < 3 or o.shape[-1] != k or o.shape[-2] != k or o.shape[-3] not in (1, T):
            raise ValueError(f"with psi='matrix', o must have shape (..., T, k, k) = (..., {T}, {k}, {k}) "
                             f"or a static (k, k), got {tuple(o.shape)}")
    try:
        batch = torch.broadcast_shapes(i.shape[:-2], e.shape[:-2], s.shape[:-2], structured.leading_shape(o))
    except RuntimeError:
        o_shapes = " x ".join(str(tuple(f.shape)) for f in structured.factors(o))
        raise ValueError(
            f"leading (batch/head) dims do not broadcast: i {tuple(i.shape)}, e {tuple(e.shape)}, "
            f"o {o_shapes}, s {tuple(s.shape)}") from None
    if nonfinite == "refuse":
        check_finite({"i": i, "e": e, "o": o, "s": s})
    return ScanInputs(i=i, e=e, o=o, s=s, psi=psi, batch=tuple(batch), T=T, k=k, d=d)


def check_finite(named: dict) -> None:
    """The NaN/inf policy: refused, naming the state. A NaN or inf state would make every later output and
    memory NaN with nothing saying where it came from. One reduction per tensor and a single sync. (Outputs
    can still overflow from finite inputs when |o| > 1: that growth is the model's, and shows as inf.)"""
    tensors = [(name, t) for name, value in named.items() for t in structured.factors(value)]
    # max and min propagate NaN and reach ±inf: finite both ⇔ every entry finite, with no bool temporary
    parts = [torch.view_as_real(t) if t.is_complex() else t for _, t in tensors if t.numel()]
    extremes = [x for t in parts for x in (t.amax(), t.amin())]
    if not extremes or bool(torch.isfinite(torch.stack(extremes)).all()):
        return
    for name, t in tensors:
        if t.numel() and not bool(torch.isfinite(t).all()):
            bad = "NaN" if bool(torch.isnan(t).any()) else "inf"
            raise ValueError(f"{name} holds {bad} values: every output after the first such step would be "
                             f"NaN; check what produced {name}")


def check_initial_state(m0, inp: ScanInputs, nonfinite: str = "refuse") -> torch.Tensor | None:
    if m0 is None:
        return None
    if not isinstance(m0, torch.Tensor):
        raise ValueError("initial_state must be a torch.Tensor of shape (..., k, d)")
    if m0.shape[-2:] != (inp.k, inp.d):
        raise ValueError(f"initial_state must have shape (..., k, d) = (..., {inp.k}, {inp.d}), got {tuple(m0.shape)}")
    try:
        torch.broadcast_shapes(m0.shape[:-2], inp.batch)
    except RuntimeError:
        raise ValueError(f"initial_state leading dims {tuple(m0.shape[:-2])} "
                         f"do not broadcast with {inp.batch}") from None
    state = inp.state_dtype
    if not (m0.is_floating_point() or m0.is_complex()) or torch.promote_types(m0.dtype, state) != state:
        # A complex m0 with real states would lose its imaginary part, a float64 one its precision: refuse.
        raise ValueError(f"initial_state has dtype {m0.dtype}, which the memory's dtype {state} (from i, e, o, s) "
                         f"cannot hold without loss; pass initial_state.to({state}) or states of dtype {m0.dtype}")
    if m0.device != inp.i.device:
        raise ValueError(f"initial_state must be on the device of i ({inp.i.device}), got {m0.device}")
    if nonfinite == "refuse":
        check_finite({"initial_state": m0})
    return m0


def output_real(y: torch.Tensor) -> torch.Tensor:
    """The shrink reads the real part when the memory is complex."""
    return y.real if y.is_complex() else y

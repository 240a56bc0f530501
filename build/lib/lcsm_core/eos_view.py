"""Everything the "EOS view" page shows about one layer on one input, as numpy arrays.

A layer is built from a registered variant or a model code, fed a small input,
and opened up: its four states over time, the memory m_t, the parallel-form
weights W (y_t[c] = Σ_s W_c[t, s] i_s[c]), and the oscillation's eigenvalues.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from .codes import parse_code
from .divergence import DIVERGENCE_BOUND, clip_to_bound
from .scan import eos_scan
from .scan.inputs import output_real, prepare
from .scan.reference import scan_recurrent
from .variants import VARIANTS, build_layer, build_layer_from_code

SIGNALS: tuple[str, ...] = ("random", "impulse", "sine", "repeated pattern")


@dataclass
class LayerInspection:
    """Batch element 0 and, for per-channel variants, channel `channel` of the layer's states.

    x (T, D); i (T, d); e, s (T, k); o_abs, o_phase (T, k) (mean over d); memory (T, k, d) (real part);
    memory_norm (T,); weights (T, T) for output channel `channel`; y (T, d) (the EOS part);
    eigenvalues (T, n) complex: the oscillation's eigenvalues at every step; spectral_radius (T,).
    """

    title: str
    psi: str
    layout: str
    complex_memory: bool
    data_dependent: str
    recurrence: dict
    x: np.ndarray
    i: np.ndarray
    e: np.ndarray
    s: np.ndarray
    o_abs: np.ndarray
    o_phase: np.ndarray
    memory: np.ndarray
    memory_norm: np.ndarray
    weights: np.ndarray
    y: np.ndarray
    eigenvalues: np.ndarray
    spectral_radius: np.ndarray
    channel: int
    diverged_at: int | None
    divergence_cause: str | None = None   # why the memory diverged, in words (None when it did not)


def make_input(signal: str, T: int, d_model: int, scale: float, seed: int) -> torch.Tensor:
    """x (1, T, d_model) in float64."""
    if signal not in SIGNALS:
        raise ValueError(f"signal must be one of {SIGNALS}, got {signal!r}")
    g = torch.Generator().manual_seed(seed)
    if signal == "random":
        x = torch.randn(T, d_model, generator=g, dtype=torch.float64)
    elif signal == "impulse":
        x = torch.zeros(T, d_model, dtype=torch.float64)
        x[0] = torch.randn(d_model, generator=g, dtype=torch.float64)
    elif signal == "sine":
        t = torch.arange(T, dtype=torch.float64)[:, None]
        phase = torch.rand(d_model, generator=g, dtype=torch.float64) * 2 * math.pi
        x = torch.sin(2 * math.pi * t / 16 + phase)
    else:
        pattern = torch.randn(4, d_model, generator=g, dtype=torch.float64)
        x = pattern.repeat(T // 4 + 1, 1)[:T]
    return (x * scale).unsqueeze(0)


def build_for_view(source: str, name: str, code: str, d_model: int, expand_dim: int, seed: int):
    """The layer a view inspects (fp64, recurrent reference form)."""
    torch.manual_seed(seed)
    if source == "variant":
        if name not in VARIANTS:
            raise ValueError(f"unknown variant {name!r}")
        layer = build_layer(name, d_model, expand_dim, form="recurrent")
        if name == "deltanet":     # show the raw FWP transition, whose spectrum can leave the disk
            layer = build_layer(name, d_model, expand_dim, form="recurrent", normalize_keys=False)
    elif source == "model code":
        parse_code(code)           # a clear ValueError for a malformed code
        layer = build_layer_from_code(code, d_model, expand_dim, form="recurrent")
    else:
        raise ValueError(f"source must be 'variant' or 'model code', got {source!r}")
    return layer.double().eval()


def inspect_layer(source: str = "variant", name: str = "gla", code: str = "1-9-1-0", d_model: int = 8,
                  expand_dim: int = 8, T: int = 48, signal: str = "random", scale: float = 1.0, seed: int = 0,
                  channel: int = 0) -> LayerInspection:
    for label, value, lo, hi in (("T", T, 1, 512), ("d_model", d_model, 1, 64), ("expand_dim", expand_dim, 1, 64)):
        if not lo <= int(value) <= hi:
            raise ValueError(f"{label} must be between {lo} and {hi}, got {value}")
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"input scale must be a positive number, got {scale}")
    layer = build_for_view(source, name, code, d_model, expand_dim, seed)
    x = make_input(signal, T, d_model, scale, seed)
    with torch.no_grad():
        st = layer.states(x)
        inp = prepare(st.i, st.e, st.o, st.s, st.psi)
        y_full, _, memories = scan_recurrent(inp, None, keep_memories=True)
        y_full, memories = output_real(y_full), memories[..., 1:, :, :]          # m_1 .. m_T
        weights = _parallel_weights(st, inp)                                     # (T, T, channels)
    layout = st.layout
    n_channels = inp.batch[-1] if layout == "channels" else inp.d
    c_out = min(int(channel), n_channels - 1)

    def select(t: torch.Tensor, tail: int) -> torch.Tensor:
        """Batch element 0 (and channel c_out for per-channel layouts) of a (*batch, *tail) tensor."""
        t = t.expand(*inp.batch, *t.shape[-tail:])[0]
        return t[c_out] if layout == "channels" else t

    i, e, s = (select(t, 2) for t in (inp.i, inp.e, inp.s))
    o_seq = select(inp.o, 3).expand(T, *inp.o.shape[-2:])
    if st.psi == "elementwise":
        o_seq = o_seq.expand(T, inp.k, inp.d)
    mem = select(memories, 3)                                                    # (T, k, d)
    if st.psi == "matrix":
        eig = torch.linalg.eigvals(o_seq.to(torch.complex128))                  # (T, k)
        o_abs, o_phase = torch.diagonal(o_seq, dim1=-2, dim2=-1).abs(), torch.zeros(T, inp.k)
    else:
        eig = o_seq.to(torch.complex128).reshape(T, -1)
        o_mean = o_seq.to(torch.complex128).mean(-1)
        o_abs, o_phase = o_mean.abs(), torch.angle(o_mean)
    norms = torch.linalg.vector_norm(mem.reshape(T, -1), dim=-1)
    bad = (~torch.isfinite(norms)) | (norms > DIVERGENCE_BOUND)
    diverged_at = int(bad.nonzero()[0]) if bool(bad.any()) else None
    y_eos = y_full.expand(*inp.batch, T, inp.d)[0]
    y_eos = y_eos[..., 0].transpose(0, 1) if layout == "channels" else y_eos      # (T, channels)
    clip = lambda t: clip_to_bound(t.detach().numpy())
    info = layer.info
    radius = eig.abs().max(-1).values.detach().numpy()
    cause = None if diverged_at is None else divergence_cause(radius[:diverged_at + 1], e[:diverged_at + 1],
                                                               i[:diverged_at + 1], info.e)
    return LayerInspection(
        title=info.label, psi=st.psi, layout=layout, complex_memory=memories.is_complex(),
        data_dependent=info.data_dependent or "none",
        recurrence={"i": info.i, "e": info.e, "o": info.o, "s": info.s, "note": info.note},
        x=x[0].numpy(), i=clip(i.real), e=clip(e.real), s=clip(s.real), o_abs=clip(o_abs),
        o_phase=o_phase.detach().numpy(), memory=clip(mem.real), memory_norm=clip(norms),
        weights=clip(weights[..., c_out]), y=clip(y_eos), eigenvalues=eig.detach().numpy(),
        spectral_radius=radius, channel=c_out, diverged_at=diverged_at, divergence_cause=cause)


def divergence_cause(radius: np.ndarray, e: torch.Tensor, i: torch.Tensor, e_rule: str) -> str:
    """Why the memory passed the bound: an eigenvalue of o left the unit disk (it grows by itself), or every
    |λ| stayed ≤ 1 and the writes e_t i_tᵀ were huge (RWKV4's e = exp(k) at a large input scale)."""
    worst = float(np.nanmax(radius)) if radius.size else 0.0
    if not worst <= 1 + 1e-9:
        return f"an eigenvalue of o_t left the unit disk (|λ| up to {worst:.4g}): the memory grows by itself"
    write = float(torch.nan_to_num(e.abs(), posinf=math.inf).max() * torch.nan_to_num(i.abs()).max())
    return (f"every |λ| ≤ {worst:.3g}, so the decay is stable, but the writes e_t i_tᵀ reached {write:.3g} "
            f"(e_t = {e_rule}): the input to the memory, not its decay, blew up")


def _parallel_weights(st, inp) -> torch.Tensor:
    """W (T, T, channels): y_t[c] = Σ_s W[t, s, c] i_s[c], found by feeding one-hot-in-time inputs.

    The recurrence is linear in i and the memory's columns never mix, so one scan
    over a batch of T impulses (a new leading dim) gives every column of W at once.
    """
    T = inp.T
    lead = inp.i.shape[:-2]
    impulses = torch.eye(T, dtype=inp.i.dtype).reshape(T, *(1,) * len(lead), T, 1)
    impulses = impulses.expand(T, *lead, T, inp.d)
    y = eos_scan(impulses, st.e, st.o, st.s, psi=st.psi)          # (T_probe, *batch, T, d)
    y = y[:, 0]                                                   # batch element 0
    if st.layout == "channels":                                   # (T_probe, C, T, 1)
        return y[..., 0].permute(2, 0, 1)                         # (T, T_probe, C)
    return y.transpose(0, 1)                                      # (T, T_probe, d)


# --- what the page reads off a view: numbers over the steps it reports on ----------------------------------------
def steps_ran(view: LayerInspection) -> int:
    """The steps a view reports on: all of them, or up to the one where the memory diverged (the plots stop
    there, and the divergence banner's "|λ| up to …" is taken over these steps too)."""
    return len(view.spectral_radius) if view.diverged_at is None else view.diverged_at + 1


def steps_within_bound(view: LayerInspection) -> int:
    """How many leading steps stayed within the divergence bound (all, or those before the divergence; at least
    one): heatmaps show these, not values clipped at the bound."""
    return len(view.memory) if view.diverged_at is None else max(view.diverged_at, 1)


def largest_radius(view: LayerInspection) -> float:
    """The one "largest |eigenvalue|" of a view, over `steps_ran`. Over all T steps it was a second number
    (DeltaNet ×20: 2847 at a step after the divergence, where the banner said 1782)."""
    return float(view.spectral_radius[:steps_ran(view)].max())


def memory_norm_spread(norms: np.ndarray) -> float:
    """(max − min) / max of ‖m_t‖ from the first non-zero memory on: 0 when the memory neither fades nor grows."""
    written = np.flatnonzero(norms > 0)
    if not written.size:
        return 0.0
    kept = norms[written[0]:]
    return float((kept.max() - kept.min()) / kept.max())


def weights_vs_linear(view: LayerInspection) -> float:
    """‖W − W₁‖ / ‖W₁‖ over s ≤ t, W₁[t, s] = s_t·e_s: how far the oscillation moves the parallel-form weights
    from the ones o = 1 gives (linear attention's masked QKᵀ with the same expand and shrink states)."""
    mask = np.tril(np.ones_like(view.weights, dtype=bool))
    plain = view.s @ view.e.T
    return float(np.linalg.norm((view.weights - plain)[mask]) / max(np.linalg.norm(plain[mask]), 1e-300))


def spectrum_summary(view: LayerInspection) -> dict[str, float]:
    """The oscillation's eigenvalues over `steps_ran`, in four numbers: the smallest |λ|, the smallest Re λ, the
    median over steps of (largest − smallest |λ|) at one step (how unevenly rows forget), the largest |arg λ|."""
    shown = view.eigenvalues[:steps_ran(view)]
    finite = shown[np.isfinite(shown)]
    radii = np.abs(shown)
    return dict(min_radius=float(np.abs(finite).min(initial=np.inf)),
                min_eigen_re=float(finite.real.min(initial=np.inf)),
                eigen_spread=float(np.nanmedian(radii.max(-1) - radii.min(-1))) if radii.size else 0.0,
                max_phase=float(np.abs(np.angle(finite)).max(initial=0.0)))

"""A layer built from an LCSM model code e-o-s-a: the paper's ablation family.

i = W_v x (d = d_model); e, s: data-dependent projections of x or learned
vectors (k = expand_dim), both passed through activation a; o from Table 3:
data-dependent parts are sigmoid(W x)^(1/τ), data-independent parts are learned
decays exp(−exp(r)) initialised ALiBi-style, code 10 is ones, code 11 exp(iΘ).
"""
from __future__ import annotations

import torch
from torch import nn

from ..activations import activation
from ..codes import ModelCode, parse_code
from ..scan.structured import Outer
from .base import EOSLayer, EOSStates, VariantInfo, alibi_decays, check_tau, data_dependent_decay, linear
from .oscillation import Oscillation, OscillationShape
from .registry import VARIANT_CLASSES
from .sizes import check_layer_size, check_width

# Which parts each oscillation code has: (static k, static d, static k×d, dd k, dd d, dd k×d)
O_PARTS = {
    0: {"static_kd"}, 1: {"dd_k", "dd_d"}, 2: {"dd_d"}, 3: {"dd_k"}, 4: {"static_k"}, 5: {"static_d"},
    6: {"static_k", "dd_kd"}, 7: {"static_d", "dd_kd"}, 8: {"static_k", "dd_d"}, 9: {"dd_k", "static_d"},
    10: set(), 11: {"phase_k"},
}


def code_oscillation_shape(code: ModelCode) -> OscillationShape:
    """A coded layer's o as its scan sees it (see oscillation.py): the product of its O_PARTS, given as its two
    factors when it is a k-vector times a d-vector; a data-dependent k×d gate keeps its linear output,
    log-sigmoid buffer and exp (3 more full tensors). Code "0" is a DSS layer."""
    if code.is_ssm:
        return VARIANT_CLASSES["dss"].info.oscillation_shape
    parts = O_PARTS[code.o]
    per_step = bool(parts & {"dd_k", "dd_d", "dd_kd"})
    built = 1 + (3 if "dd_kd" in parts else 0)
    has_rows = bool(parts & {"static_kd", "static_k", "dd_k", "dd_kd", "phase_k"})
    has_cols = bool(parts & {"static_kd", "static_d", "dd_d", "dd_kd"})
    outer = not parts & {"static_kd", "dd_kd"} and has_rows and has_cols         # codes 1, 8, 9: Outer
    return lambda k, d: Oscillation(k if has_rows else 1, d if has_cols else 1, per_step, built_from=built,
                                    complex="phase_k" in parts, memory_rows=k, memory_cols=d,
                                    structure="outer" if outer else "dense",
                                    extra_k=2 * code.e + 2 * code.s + 3 * ("dd_k" in parts),
                                    extra_d=3 * ("dd_d" in parts))


def rate_log_init(n: int) -> torch.Tensor:
    """r with exp(−exp(r)) = ALiBi decays."""
    return torch.log(-torch.log(alibi_decays(n)))


# The τ at which a data-dependent gate starts exactly at its target decays; any other τ starts at
# target^(16/τ): a larger τ keeps o nearer 1, the paper's reading of τ (Fig. 7).
GATE_REFERENCE_TAU = 16.0
NEAR_ONE = 0.999
GATE_WEIGHT_SCALE = 0.1
# Which part carries the ALiBi spread of decays, in order of precedence: the first present one.
DECAY_CARRIERS = ("static_kd", "static_k", "static_d", "dd_k", "dd_d", "dd_kd")


def gate_bias_for(decays: torch.Tensor) -> torch.Tensor:
    """b with sigmoid(b)^(1/GATE_REFERENCE_TAU) = decays: the logit of decays^τ, in log space (fp64)."""
    log_p = GATE_REFERENCE_TAU * torch.log(decays.double())
    return (log_p - torch.log(-torch.expm1(log_p))).float()


def init_gates(layer: "CodedLayer", parts: set) -> None:
    """Data-dependent gates start where the data-independent decays do, and lean on the input only a little.

    Bias: the one part that carries the decays (DECAY_CARRIERS) starts at the ALiBi decays along its first
    axis, every other gate near 1. With PyTorch's default bias (≈ 0) every gate would start at
    sigmoid(0)^(1/16) ≈ 0.96 — one decay for all rows, and no fast-forgetting rows to pass a token on to the
    next position. Weight: scaled by GATE_WEIGHT_SCALE, so the decays vary with x (the EOS view shows it)
    but do not start as noise around the ALiBi ones. Measured on MQAR (T=32, d=k=32, no short convolution,
    seed 0): with the ALiBi bias but PyTorch's default weights 1-1-1-0 stayed on the 0.25 plateau for 1500
    steps (0.26 at lr 3e-3, 0.27 at lr 1e-2); with scaled weights it broke out at step 700 (lr 1e-2) and
    reached 0.77 at step 1000."""
    carrier = next((part for part in DECAY_CARRIERS if part in parts), None)
    k, d = layer.expand_dim, layer.d_model
    targets = {"dd_k": alibi_decays(k), "dd_d": alibi_decays(d), "dd_kd": alibi_decays(k).repeat_interleave(d)}
    with torch.no_grad():
        for part, gate in (("dd_k", layer.gate_k), ("dd_d", layer.gate_d), ("dd_kd", layer.gate_kd)):
            if gate is not None:
                start = targets[part] if part == carrier else torch.full_like(targets[part], NEAR_ONE)
                gate.bias.copy_(gate_bias_for(start))
                gate.weight.mul_(GATE_WEIGHT_SCALE)


class CodedLayer(EOSLayer):
    def __init__(self, d_model, expand_dim, *, code: ModelCode, tau: float = 16.0, **kw):
        parts = O_PARTS[code.o]
        d_model, expand_dim = check_width("d_model", d_model), check_width("expand_dim", expand_dim)
        # A data-dependent k×d gate is a d → k·d projection: refuse an absurd one before it is allocated.
        check_layer_size(d_model, expand_dim, extra=d_model ** 2 * expand_dim if "dd_kd" in parts else 0)
        tau = check_tau(tau)
        super().__init__(d_model, expand_dim, **kw)
        self.code, self.tau = code, tau
        k, d = expand_dim, d_model
        self.info = VariantInfo(f"code {code}", f"LCSM {code}", "model code", "v_t", "k_t" if code.e else "k",
                                f"Table 3 code {code.o}", "q_t" if code.s else "q", "elementwise",
                                ", ".join(n for n, dd in (("e", code.e), ("o", code.o in (1, 2, 3, 6, 7, 8, 9)),
                                                           ("s", code.s)) if dd), code.describe(),
                                oscillation_shape=code_oscillation_shape(code))
        self.phi = activation(code.a)
        self.v_proj = linear(d, d)
        self.out_proj = linear(d, d)
        self.k_proj = linear(d, k) if code.e else None
        self.k_static = None if code.e else nn.Parameter(torch.randn(k) * k ** -0.5)
        self.q_proj = linear(d, k) if code.s else None
        self.q_static = None if code.s else nn.Parameter(torch.randn(k) * k ** -0.5)
        self.rate_k = nn.Parameter(rate_log_init(k)) if "static_k" in parts else None
        self.rate_d = nn.Parameter(rate_log_init(d)) if "static_d" in parts else None
        self.rate_kd = nn.Parameter(rate_log_init(k).unsqueeze(-1).repeat(1, d)) if "static_kd" in parts else None
        self.gate_k = linear(d, k, bias=True) if "dd_k" in parts else None
        self.gate_d = linear(d, d, bias=True) if "dd_d" in parts else None
        self.gate_kd = linear(d, k * d, bias=True) if "dd_kd" in parts else None
        self.phase = nn.Parameter(10000.0 ** (-torch.arange(k, dtype=torch.float32) / k)) if "phase_k" in parts \
            else None
        init_gates(self, parts)

    def oscillation(self, x: torch.Tensor):
        """o broadcastable to (B, T, k, d): a tensor, or `Outer(k_part, d_part)` when both axes carry a gate
        (codes 1, 8, 9), so the scan gets two vectors per step instead of a (B, T, k, d) tensor."""
        k, d = self.expand_dim, self.d_model
        if self.code.o == 10:
            return torch.ones(1, 1, dtype=x.dtype, device=x.device)
        if self.code.o == 11:
            theta = self.phase.to(x.dtype)
            return torch.polar(torch.ones_like(theta), theta).unsqueeze(-1)        # (k, 1) complex
        static = lambda r: torch.exp(-torch.exp(r)).to(x.dtype)
        along_k, along_d = None, None                                              # (k,) / (B, T, k); (d,) / ...
        times = lambda a, b: b if a is None else a * b
        if self.rate_k is not None:
            along_k = static(self.rate_k)
        if self.gate_k is not None:
            along_k = times(along_k, data_dependent_decay(self.gate_k(x), self.tau))
        if self.rate_d is not None:
            along_d = static(self.rate_d)
        if self.gate_d is not None:
            along_d = times(along_d, data_dependent_decay(self.gate_d(x), self.tau))
        full = None                                                                # (k, d) / (B, T, k, d)
        if self.rate_kd is not None:
            full = static(self.rate_kd)
        if self.gate_kd is not None:
            full = times(full, data_dependent_decay(self.gate_kd(x), self.tau).unflatten(-1, (k, d)))
        if full is None and along_k is not None and along_d is not None:
            return Outer(along_k, along_d)
        o = torch.ones(1, 1, dtype=x.dtype, device=x.device) if full is None else full
        if along_k is not None:
            o = o * along_k.unsqueeze(-1)                                          # (…, k, 1)
        if along_d is not None:
            o = o * along_d.unsqueeze(-2)                                          # (…, 1, d)
        return o

    def states(self, x):
        B, T, _ = x.shape
        k = self.expand_dim
        along = lambda p: p.to(x.dtype).expand(B, T, k)
        e = self.phi(self.k_proj(x) if self.k_proj is not None else along(self.k_static))
        s = self.phi(self.q_proj(x) if self.q_proj is not None else along(self.q_static)) * k ** -0.5
        return EOSStates(i=self.v_proj(x), e=e, o=self.oscillation(x), s=s)


def build_layer_from_code(code: str, d_model: int, expand_dim: int, tau: float = 16.0, **options) -> EOSLayer:
    """A layer for an LCSM model code "e-o-s-a" (or "0": the SSM parameterization, a DSS layer: one SISO SSM
    per channel, with its own Δ, B and C, so "0" has more parameters than 0-0-0-0, as in LCSM Table 5)."""
    parsed = parse_code(code)
    if parsed.is_ssm:
        return VARIANT_CLASSES["dss"](d_model, expand_dim, **options)
    return CodedLayer(d_model, expand_dim, code=parsed, tau=tau, **options)

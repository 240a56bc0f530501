"""What a training run costs before it starts: peak memory and time of one step, from its config alone.

A shared server refuses a run whose estimate is over its memory budget (SizeLimits), so a link like
`code=1-9-1-0&batch=128&seq_len=256&k=128&d_model=128&layers=4` is refused with a message instead of
taking 11 GiB. The model counts the numbers (fp32, 4 bytes; complex counts twice) a step keeps alive:

- parameters, their gradients and AdamW's two moments: 4 × the parameter count (built on the meta device);
- per layer, kept for backward (N = batch · seq_len tokens): the block around the EOS layer (norms, short
  convolution, projections, MLP) ~ N·d numbers each; the EOS states i (N·d), e and s (N·k); the
  oscillation o — per step it is N·ko·do numbers, so a data-dependent k×d o (codes with o ∈ {6, 7},
  Mamba, Longhorn) costs N·k·d per layer, while one given by its factors (codes 1, 8, 9 and DUR: a k- and a
  d-vector; DeltaNet, M1, M2: k and β; M3: its diagonal) costs N·(k + d), N·(k + 1) or N·k; and the scan's
  own intermediates: the recurrent form keeps every step's memory (N·k·d; per channel for S4, S5, DSS,
  TNN, LRU), the chunked form a few N·k plus its blocks' N·C scores — or several N·k·d for a full o per
  step, and (N / C)·k·d for the memories entering the blocks (all it keeps of a static k×d o, code 0);
- the head: logits, their log-softmax and gradient (3·N·vocab);
- backward's working set: one more layer's worth of the biggest of these;
- evaluation (no gradients, up to 256 test examples at once), when it is bigger than the training step.

Each count is an upper bound of what the ops keep, calibrated against the peak RSS of real training steps
(benchmarks/train_memory.py, results in benchmarks/results/train_memory-cpu.md): the estimate is
above the measured growth of a step and within MAX_OVERESTIMATE of it for the calibrated configs.
The time estimate (`step_seconds_of`) counts numbers touched and matmul work and turns them into CPU-seconds of one
core at rates fitted as a set to training steps measured on the project's CPU, one torch thread
(benchmarks/paper_lab_cost.py: every model code of the shipped grids at their scale and at k = d = 128, T = 256;
benchmarks/cost_calibration.py: longer and wider runs and Train live's; results in benchmarks/results/). It is the
one time estimate: the admission policy charges it (admission.run_cost_s) and the paper lab's `--cost-only` prints
it (paper_lab/scale.py grid_cost). Every measured config is within TIME_AGREEMENT of it
(tests/training/test_cost_agreement.py reads the committed measurements). Another machine runs the same steps
faster or slower — the project's own VMs by ×2.4 from one day to the next: machine_speed.py measures that factor on
one reference step, and what a run takes *here* is this model's seconds times it (budgets stay in this model's).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lcsm_core.variants.oscillation import Oscillation

if TYPE_CHECKING:
    from .config import ModelConfig, RunConfig

GIB = 1024 ** 3
REAL_BYTES = 4                   # fp32
CHUNK = 64                       # the layers' chunk size (EOSLayer default)
EVAL_BATCH = 256                 # Trainer.test_accuracy evaluates this many examples at once
FIXED_BYTES = 64 * 1024 ** 2     # allocator slack, the batches, autograd's bookkeeping: measured ~40 MiB
BACKWARD_LAYERS = 3              # backward holds gradients of about three layers' kept numbers at once (measured)
MAX_OVERESTIMATE = 3.0           # the estimate is within this factor above the measured peak (calibrated configs)
# The time model's rates, fitted as a set to training steps measured on the project's 2-core CPU, one torch thread
# (benchmarks/paper_lab_cost.py and benchmarks/cost_calibration.py, 113 configs: every model code of the shipped
# grids at d = k = 32, T = 32 and at k = d = 128, T = 256, B = 64, the calibration set's longer and wider runs):
# elementwise numbers touched per second, matmul multiply-adds per second, the Python overhead of one scan step.
ELEMENTWISE_PER_S = 4e8
MATMUL_PER_S = 7.2e10
SCAN_STEP_S = 25e-6
# The recurrent form allocates and touches the whole step-by-step memory (B·T·k·d, per channel for a channel bank)
# about this many more times over forward and backward than the count of kept numbers says.
RECURRENT_PASSES = 7.4
# A complex chunked scan (code o = 11) costs about this many more passes over its numbers (complex arithmetic).
COMPLEX_SCAN_PASSES = 4.7
# Measured CPU-seconds / analytic seconds per step: the one factor that puts the counts above on measured steps.
TIME_CALIBRATION = 0.43
TIME_AGREEMENT = 2.0             # every calibrated config's estimate is within this factor of its measured rate


@dataclass
class RunCost:
    """The estimate of one run: `peak_bytes` of one training step (or evaluation, whichever is larger),
    `step_s` seconds per optimiser step on one core, the `parts` in bytes, and `dominant`: the biggest part
    in words, with its formula."""

    peak_bytes: float
    step_s: float
    dominant: str
    parts: dict[str, float] = field(default_factory=dict)

    @property
    def peak_gib(self) -> float:
        return self.peak_bytes / GIB


def estimate_cost(config: RunConfig) -> RunCost:
    """Peak memory and time of one training step of `config` (validated or not; sizes must be positive)."""
    t, m, o = config.task, config.model, config.optim
    B, T, d, L, V = o.batch_size, t.seq_len, m.d_model, m.n_layers, t.vocab_size
    osc = oscillation_of(m)
    form = scan_form(m, osc, B, T)
    params = parameter_count(config)
    train_layer = layer_numbers(m, osc, form, B * T, B, T, keep=True)
    eval_batch = min(o.test_examples, EVAL_BATCH)
    eval_layer = layer_numbers(m, osc, form, eval_batch * T, eval_batch, T, keep=False)
    head = 3 * B * T * V + 2 * B * T * d
    parts = {"fixed": FIXED_BYTES, "parameters + AdamW": 4 * params * REAL_BYTES,
             "layers (kept for backward)": L * train_layer["total"] * REAL_BYTES,
             "backward working set": BACKWARD_LAYERS * train_layer["total"] * REAL_BYTES,
             "head (logits)": head * REAL_BYTES}
    train_peak = sum(parts.values())
    eval_numbers = eval_layer["total"] + 2 * eval_batch * T * (V + d)
    eval_peak = FIXED_BYTES + parts["parameters + AdamW"] + eval_numbers * REAL_BYTES
    if eval_peak > train_peak:
        parts["evaluation"] = eval_peak - parts["parameters + AdamW"] - FIXED_BYTES
    peak = max(train_peak, eval_peak)
    return RunCost(peak_bytes=peak, step_s=step_seconds(config, osc, form, train_layer, params),
                   dominant=dominant_part(config, osc, form, train_layer, parts), parts=parts)


def step_seconds_of(config: RunConfig) -> float:
    """Seconds of one optimiser step of `config` on one core: the one time estimate (admission.run_cost_s charges
    it, the paper lab's `--cost-only` prints it)."""
    return estimate_cost(config).step_s


def oscillation_of(m: ModelConfig) -> Oscillation:
    """The scan shape of the model's EOS layer, as the variant declares it (`VariantInfo.oscillation_shape`; a
    model code's from `lcsm_core.variants.coded`)."""
    from lcsm_core.codes import parse_code
    from lcsm_core.variants import VARIANT_CLASSES
    from lcsm_core.variants.coded import code_oscillation_shape
    shape = code_oscillation_shape(parse_code(m.code)) if m.code else VARIANT_CLASSES[m.variant].info.oscillation_shape
    return shape(m.expand_dim, m.d_model)


def scan_form(m: ModelConfig, osc: Oscillation, batch_size: int, seq_len: int) -> str:
    """The form eos_scan runs on a CPU: the config's, LCSM_SCAN_FORM's, or what `form="auto"` picks from the
    shapes (the one chooser, lcsm_core.scan.choose, asked with the layer's shapes before any tensor exists)."""
    from lcsm_core.scan.choose import ScanShape, cpu_form, forced_form
    if m.form not in ("auto", "kernel"):
        return m.form
    forced = forced_form()
    if forced in ("recurrent", "parallel", "chunked"):
        return forced
    return cpu_form(ScanShape(psi=osc.psi, T=seq_len, k=osc.memory_rows, d=osc.memory_cols, o_rows=osc.rows,
                              o_cols=osc.cols, sequences=batch_size * (osc.channels or 1),
                              structure=osc.structure, per_step=osc.per_step))


def layer_numbers(m: ModelConfig, osc: Oscillation, form: str, N: int, B: int, T: int, keep: bool) -> dict:
    """Numbers one layer holds at its peak: kept for backward (`keep`), or the transient of a forward pass
    without gradients (evaluation). Keys: block, states, oscillation, scan, total."""
    d, k, r = m.d_model, m.expand_dim, m.mlp_ratio
    c = 2 if osc.complex else 1
    width = osc.channels or 1                            # channel banks: one small memory per channel
    mem = osc.memory_rows * osc.memory_cols * width      # numbers of one token's memory
    o_step = osc.step_numbers * (width if osc.channels and osc.per_step else 1)
    o_full = N * o_step if osc.per_step else 0
    block = (10 * N * d + 2 * N * r * d) if keep else (3 * N * d + 2 * N * r * d)
    states = c * (N * d + (4 + osc.extra_k) * N * k) + osc.extra_d * N * d
    if not keep:
        states = c * (N * d + 2 * N * k) + 2 * N * d
    oscillation = osc.built_from * o_full + (0 if keep else o_full)    # evaluation: o and the scan's copy
    C = min(CHUNK, T)
    if form == "parallel":
        scan = 4 * c * B * T * T * osc.rows * osc.cols * (width if osc.channels else 1) + c * B * T * T
    elif form == "recurrent":
        # without gradients a complex channel bank still materialises one memory-sized tensor per token
        # (measured: LRU k = d = 64, 256 test examples, ~0.6 GiB)
        scan = c * N * mem * (1 if keep or (osc.complex and osc.channels) else 0) + c * B * mem * 6
        if osc.psi == "matrix" and keep:
            # o's gradient step by step; a static per-channel o is broadcast over the batch (a copy per step)
            scan += N * o_step if osc.per_step else N * width * osc.rows * osc.cols * osc.batched_copy
    elif osc.structure == "delta":                        # chunked WY/UT form: C×C blocks, (k + d)-wide solves
        scan = c * (6 * N * C + 6 * N * (osc.rows + d) + 4 * (N // C + 1) * mem)
    elif osc.structure == "outer":                        # chunked, two vector factors (blocks may be halved)
        scan = c * (10 * N * (osc.rows + osc.cols) + 3 * N * C + 8 * (N // C + 1) * mem)
    elif osc.psi == "matrix":                             # chunked: blocks side by side
        scan = c * (2 * N * mem + 2 * N * osc.rows * osc.cols * (width if osc.channels else 1))
    elif static_full(osc):
        # chunked, one k×d o for every step: the memories entering the blocks; m_T, dM, do, dm_0; y and its gradient
        scan = c * ((N // C + B) * mem + 4 * B * mem + 2 * N * d)
    elif osc.rows > 1 and osc.cols > 1:                   # chunked, full k×d o
        scan = c * (8 if keep else 4) * N * max(mem, o_step) + c * 3 * B * C * mem
    else:                                                 # chunked, o along k or along d
        scan = c * (10 * N * max(osc.rows, osc.cols, 1) * width + 3 * N * C + 4 * (N // C + 1) * mem)
    total = block + states + oscillation + scan
    return dict(block=block, states=states, oscillation=oscillation, scan=scan, total=total)


def parameter_count(config: RunConfig) -> int:
    """Trainable numbers of the model (a complex parameter counts twice): one block built on the meta device
    (every block is alike), the embedding, final norm and head counted."""
    m, V = config.model, config.task.vocab_size
    key = (m.variant, m.code, m.d_model, m.expand_dim, m.mlp_ratio, m.short_conv, m.tau)
    if key not in _BLOCK_PARAMETERS:
        import torch

        from .model import Block
        with torch.device("meta"):
            block = Block(m)
        _BLOCK_PARAMETERS[key] = sum(p.numel() * (2 if p.is_complex() else 1) for p in block.parameters())
    return m.n_layers * _BLOCK_PARAMETERS[key] + V * m.d_model + 2 * m.d_model + (m.d_model + 1) * V


_BLOCK_PARAMETERS: dict[tuple, int] = {}


def step_seconds(config: RunConfig, osc: Oscillation, form: str, layer: dict, params: int) -> float:
    """Seconds of one optimiser step on one core: forward + backward touch the layer numbers ~3 times, the
    projections are matmuls, the recurrent form pays Python overhead per step and layer and touches its step-by-step
    memory RECURRENT_PASSES more times, a complex scan its numbers COMPLEX_SCAN_PASSES more times."""
    t, m, o = config.task, config.model, config.optim
    N, L = o.batch_size * t.seq_len, m.n_layers
    touched = 3 * (L * layer["total"] + 3 * N * t.vocab_size) + 8 * params
    matmul = 3 * N * (params / max(L, 1) * L + m.d_model * t.vocab_size)
    python = (2 * t.seq_len * L * SCAN_STEP_S) if form == "recurrent" else 2 * math.ceil(t.seq_len / CHUNK) * L * \
        SCAN_STEP_S
    if form == "recurrent":
        width = osc.channels or 1
        touched += RECURRENT_PASSES * L * N * osc.memory_rows * osc.memory_cols * width * (2 if osc.complex else 1)
    elif osc.complex:
        touched += COMPLEX_SCAN_PASSES * L * layer["scan"]
    if form == "chunked" and static_full(osc):
        # the recurrence itself, group by group of sequences, its memory in cache (scan/chunked_static.py)
        import torch

        from lcsm_core.scan.chunked_static import group_size
        mem = osc.memory_rows * osc.memory_cols
        groups = math.ceil(o.batch_size / group_size(o.batch_size, osc.memory_rows, osc.memory_cols, torch.float32,
                                                     torch.device("cpu")))
        python = 2 * t.seq_len * groups * L * SCAN_STEP_S
        touched += 3 * L * N * mem
    return TIME_CALIBRATION * (touched / ELEMENTWISE_PER_S + matmul / MATMUL_PER_S + python)


def static_full(osc: Oscillation) -> bool:
    """One k×d o for every step: the chunked form steps it without expanding it (scan/chunked_static.py)."""
    return osc.psi == "elementwise" and osc.structure == "dense" and not osc.per_step and osc.rows > 1 \
        and osc.cols > 1


def dominant_part(config: RunConfig, osc: Oscillation, form: str, layer: dict, parts: dict) -> str:
    """The largest part of the estimate in words, with the formula a learner can act on."""
    m = config.model
    name = f"code {m.code}" if m.code else m.variant
    biggest = max((part for part in parts if part != "fixed"), key=parts.get)
    if biggest in ("layers (kept for backward)", "backward working set", "evaluation"):
        per_layer = max(("oscillation", "scan", "states", "block"), key=layer.get)
        full = osc.per_step and osc.rows > 1 and osc.cols > 1 and osc.structure == "dense"
        if per_layer in ("oscillation", "scan") and full:
            what = "k×k transition" if osc.psi == "matrix" else "k×d gate"
            size = "B·T·k·k·layers" if osc.psi == "matrix" else "B·T·k·d·layers"
            return f"{name}'s {what}: {size} numbers"
        if per_layer == "scan" and form == "recurrent":
            return f"{name}'s step-by-step memory: B·T·k·d·layers numbers"
        if per_layer == "scan" and form == "parallel":
            return "the parallel form's decays: B·T²·k·layers numbers"
        return "the activations: B·T·d_model·layers numbers"
    if biggest == "head (logits)":
        return "the logits: B·T·vocab numbers"
    return "the parameters and AdamW's state"


# What to lower, by the dominant part's formula (the page's setting names).
LOWER = {"B·T·k·d": "batch size, sequence length, k, d_model or layers",
         "B·T·k·k": "batch size, sequence length, k or layers",
         "B·T²": "sequence length or batch size (or use the chunked form)",
         "vocab": "batch size, sequence length or vocabulary size",
         "d_model": "batch size, sequence length, d_model or layers",
         "parameters": "d_model, k, layers or vocabulary size"}


def over_budget_message(cost: RunCost, budget_bytes: float) -> str:
    """The refusal a learner reads: what the run needs, why, what this server allows, what to lower."""
    key = next((k for k in LOWER if k in cost.dominant), "parameters")
    return (f"this run needs about {format_bytes(cost.peak_bytes)} per training step ({cost.dominant}); this "
            f"server allows {format_bytes(budget_bytes)} per run: lower the {LOWER[key]}")


def format_bytes(n: float) -> str:
    return f"{n / GIB:.1f} GiB" if n >= GIB else f"{n / 1024 ** 2:.0f} MiB"


def run_cost_s(config: RunConfig) -> float:
    """CPU-seconds a run may take, before it starts: its step budget at the cost model's seconds per step,
    capped by its own time limit (max_seconds counts training time, as the trainer does)."""
    return float(min(config.optim.max_steps * estimate_cost(config).step_s, config.optim.max_seconds))


def grid_cost_s(configs: Iterable[RunConfig]) -> float:
    """CPU-seconds of a grid: the sum of its cells' run costs."""
    return float(sum(run_cost_s(c) for c in configs))

"""Triton EOS kernels vs the torch reference and vs flash-linear-attention, on a GPU.

    python benchmarks/kernels.py                      # CUDA: B=8 T=4096 H=16 K=V=128, bf16 and fp32
    python benchmarks/kernels.py --dry-run            # CPU: the plan, then tiny shapes through the interpreter

For each operator (GLA, simple GLA, DeltaNet as its structured (k, β) and as a dense k×k matrix, complex
LRPE-style oscillation, and GLA at the Train live shape: batch 32, T = 64, k = d = 64) and dtype: the
forward and forward+backward time of our kernel, of `eos_scan(form="chunked")` (the torch
reference form) and of fla's kernel for the same operator when `fla-core` is installed;
the achieved GB/s of the forward (the bytes a kernel must move at least: its inputs once and
its output once) as a fraction of the device's bandwidth, measured here with a large copy.
Writes `benchmarks/results/kernels-<device>.md`. Goals (issue 23): GLA chunk and delta rule >= 1.0x fla,
fused recurrent forward >= 50 % of bandwidth; the live row shows what form="auto" picks there
(lcsm_core/scan/choose_cuda.py) and must not be slower than torch chunked. Without CUDA it prints
"no CUDA: skipped" and exits 0 (unless --dry-run).

Under 5 minutes on an H100 by design: before measuring it prints the plan — every row's shape, implementations,
do_bench's planned repetitions and an estimated time (compiles and fla's autotuning included, per-call times from
the bytes a row moves at an assumed fraction of the bandwidth) — and while it runs, a row whose estimate no longer
fits --budget-s (default 270 s) is not started but written into the table as skipped, with the --ops that runs it.
The rows run in order of what they decide: the live-training shape (form="auto"'s rule) first.
"""
from __future__ import annotations

import argparse
import copy
import datetime
import math
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import kernel_plan  # noqa: E402

NOMINAL_BANDWIDTH = {"H100": 3.0e12, "H200": 4.3e12}   # measured on these devices (issue 5)
DEFAULT_OPS = "live_gla,gla,delta,simple_gla,lrpe,delta_dense"   # in order of what they decide
DEFAULT_DTYPES = "bf16,fp32"


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--B", type=int, default=8)
    ap.add_argument("--T", type=int, default=4096)
    ap.add_argument("--H", type=int, default=16)
    ap.add_argument("--K", type=int, default=128)
    ap.add_argument("--V", type=int, default=128)
    ap.add_argument("--matrix-B", type=int, default=1,
                    help="batch for the matrix (DeltaNet) case: its dense k×k o per step is T·k² per head")
    ap.add_argument("--matrix-T", type=int, default=1024)
    ap.add_argument("--dtypes", default=DEFAULT_DTYPES)
    ap.add_argument("--ops", default=DEFAULT_OPS)
    ap.add_argument("--budget-s", type=float, default=270.0,
                    help="wall-clock budget: a row whose estimate no longer fits is skipped (and said so)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    ap.add_argument("--smoke", "--dry-run", dest="smoke", action="store_true",
                    help="print the GPU plan, then run tiny shapes under the Triton interpreter (CPU): checks this "
                         "script, times nothing")
    return ap.parse_args()


# ---------------------------------------------------------------- timing and bytes
def timer(device: str):
    if device == "cuda":
        from triton.testing import do_bench

        return lambda fn: do_bench(fn, warmup=25, rep=100)          # ms, L2 flushed between runs

    def cpu_ms(fn):   # the interpreter smoke run: one call, whose time means nothing anyway
        t0 = time.perf_counter()
        fn()
        return 1e3 * (time.perf_counter() - t0)
    return cpu_ms


def measured_bandwidth(device: str) -> float:
    """Bytes/s of a 1 GiB device-to-device copy (read + write)."""
    import torch
    from triton.testing import do_bench

    x = torch.empty(2 ** 28, dtype=torch.float32, device=device)
    y = torch.empty_like(x)
    ms = do_bench(lambda: y.copy_(x), warmup=10, rep=50)
    return 2 * x.numel() * 4 / (ms * 1e-3)


def nbytes(*tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors if t is not None)


# ---------------------------------------------------------------- operators
def gla_case(B, T, H, K, V, dtype, dev):
    """GLA: o_t = exp(gk_t) 1ᵀ, per step per k. Ours in (B, H, T, n), fla in (B, T, H, n)."""
    import torch
    import torch.nn.functional as F

    from lcsm_core import eos_scan
    q = torch.randn(B, H, T, K, device=dev, dtype=dtype) * K ** -0.5
    k = torch.randn(B, H, T, K, device=dev, dtype=dtype)
    v = torch.randn(B, H, T, V, device=dev, dtype=dtype)
    gk = F.logsigmoid(torch.randn(B, H, T, K, device=dev)).to(dtype)
    o = gk.float().exp().to(dtype)[..., None]                             # (B, H, T, K, 1)
    ours = {"eos chunk (ours)": ("chunk", (v, k, o, q)), "eos fused recurrent (ours)": ("fused", (v, k, o, q))}
    impls = {name: (kernel_fn(kind), args) for name, (kind, args) in ours.items()}
    impls["torch eos_scan chunked"] = (lambda i, e, o, s: eos_scan(i, e, o, s, form="chunked"), (v, k, o, q))
    fla = fla_ops()
    if fla:
        t = [x.transpose(1, 2).contiguous() for x in (q, k, v, gk)]
        impls["fla chunk_gla"] = (lambda q, k, v, g: fla["chunk_gla"](q, k, v, g, scale=1.0)[0], t)
        impls["fla fused_recurrent_gla"] = (lambda q, k, v, g: fla["fused_recurrent_gla"](q, k, v, gk=g,
                                                                                       scale=1.0)[0], t)
    return impls


def simple_gla_case(B, T, H, K, V, dtype, dev):
    """Simple GLA / Mamba-2-style: one decay per head and step, o_t = g_t J."""
    import torch
    import torch.nn.functional as F

    from lcsm_core import eos_scan
    q = torch.randn(B, H, T, K, device=dev, dtype=dtype) * K ** -0.5
    k = torch.randn(B, H, T, K, device=dev, dtype=dtype)
    v = torch.randn(B, H, T, V, device=dev, dtype=dtype)
    g = F.logsigmoid(torch.randn(B, H, T, device=dev)).to(dtype)
    o = g.float().exp().to(dtype)[..., None, None]                        # (B, H, T, 1, 1)
    impls = {"eos chunk (ours)": (kernel_fn("chunk"), (v, k, o, q)),
             "eos fused recurrent (ours)": (kernel_fn("fused"), (v, k, o, q)),
             "torch eos_scan chunked": (lambda i, e, o, s: eos_scan(i, e, o, s, form="chunked"), (v, k, o, q))}
    fla = fla_ops()
    if fla:
        t = [x.transpose(1, 2).contiguous() for x in (q, k, v, g)]
        impls["fla fused_recurrent_simple_gla"] = (
            lambda q, k, v, g: fla["fused_recurrent_simple_gla"](q, k, v, g=g, scale=1.0)[0], t)
        if "chunk_simple_gla" in fla:
            impls["fla chunk_simple_gla"] = (lambda q, k, v, g: fla["chunk_simple_gla"](q, k, v, g=g, scale=1.0)[0], t)
    return impls


def delta_case(B, T, H, K, V, dtype, dev):
    """DeltaNet given as its parts, o_t = I − β_t k_t k_tᵀ as DeltaRule(k, β): our structured kernels (chunked
    WY form and fused recurrent) against fla's chunk and fused recurrent delta rule, same inputs."""
    import torch
    import torch.nn.functional as F

    from lcsm_core import eos_scan
    from lcsm_core.scan import kernel as adapter
    from lcsm_core.scan.structured import DeltaRule
    q = torch.randn(B, H, T, K, device=dev, dtype=dtype) * K ** -0.5
    k = F.normalize(torch.randn(B, H, T, K, device=dev), dim=-1).to(dtype)
    v = torch.randn(B, H, T, V, device=dev, dtype=dtype)
    beta = torch.rand(B, H, T, device=dev).to(dtype)

    def ours(impl):
        def fn(v, k, beta, q):
            inp = delta_inputs(v, k, beta, q)
            return adapter.scan_kernel_delta(inp, None, impl=impl)[0]
        return fn

    args = (v, k, beta, q)
    impls = {"eos delta chunk (ours)": (ours("chunk"), args),
             "eos delta fused recurrent (ours)": (ours("fused_recurrent"), args),
             "torch eos_scan chunked": (lambda v, k, b, q: eos_scan(v, b[..., None] * k, DeltaRule(k, b), q,
                                                                    psi="matrix", form="chunked"), args)}
    fla = fla_ops()
    if fla:
        t = [x.transpose(1, 2).contiguous() for x in (q, k, v, beta)]
        impls["fla fused_recurrent_delta_rule"] = (
            lambda q, k, v, b: fla["fused_recurrent_delta_rule"](q, k, v, b, scale=1.0)[0], t)
        if "chunk_delta_rule" in fla:
            impls["fla chunk_delta_rule"] = (lambda q, k, v, b: fla["chunk_delta_rule"](q, k, v, b, scale=1.0)[0], t)
    return impls


def delta_inputs(v, k, beta, q):
    """Validated ScanInputs of DeltaNet's states (e = β k), as eos_scan hands them to the kernel adapter."""
    from lcsm_core.scan.inputs import prepare
    from lcsm_core.scan.structured import DeltaRule
    return prepare(v, beta[..., None] * k, DeltaRule(k, beta), q, "matrix")


def delta_dense_case(B, T, H, K, V, dtype, dev):
    """DeltaNet as a dense matrix oscillation o_t = I - β_t k_t k_tᵀ (read as T·K² numbers per head: the general
    matrix kernel, for S4/S5-like matrices), at --matrix-B/--matrix-T."""
    import torch
    import torch.nn.functional as F

    from lcsm_core import eos_scan
    q = torch.randn(B, H, T, K, device=dev, dtype=dtype) * K ** -0.5
    k = F.normalize(torch.randn(B, H, T, K, device=dev), dim=-1).to(dtype)
    v = torch.randn(B, H, T, V, device=dev, dtype=dtype)
    beta = torch.rand(B, H, T, device=dev).to(dtype)
    kf, bf = k.float(), beta.float()
    o = (torch.eye(K, device=dev) - bf[..., None, None] * kf[..., :, None] * kf[..., None, :]).to(dtype)
    e = (bf[..., None] * kf).to(dtype)
    return {"eos fused recurrent matrix (ours)": (kernel_fn("matrix"), (v, e, o, q)),
            "torch eos_scan chunked": (lambda i, e, o, s: eos_scan(i, e, o, s, psi="matrix", form="chunked"),
                                       (v, e, o, q))}


def live_gla_case(B, T, H, K, V, dtype, dev):
    """GLA at the Train live defaults (one head): what form="auto" runs there against both forms."""
    from lcsm_core import eos_scan
    from lcsm_core.scan import choose_form, prepare
    impls = gla_case(B, T, H, K, V, dtype, dev)
    v, k, o, q = impls["eos chunk (ours)"][1]
    picked = choose_form(prepare(v, k, o, q, "elementwise"))
    impls[f"eos_scan form=auto (picks {picked})"] = (lambda i, e, o, s: eos_scan(i, e, o, s, form="auto"),
                                                     (v, k, o, q))
    return impls


def lrpe_case(B, T, H, K, V, dtype, dev):
    """LRPE / Cosformer: a static complex oscillation exp(iθ) 1ᵀ per head (no fla counterpart). form="kernel" takes
    the rotation path (the chunk kernel over 2k rows, kernels/rotation.py); the fused complex kernel beside it."""
    import torch

    from lcsm_core import eos_scan
    q = torch.randn(B, H, T, K, device=dev, dtype=dtype) * K ** -0.5
    k = torch.randn(B, H, T, K, device=dev, dtype=dtype)
    v = torch.randn(B, H, T, V, device=dev, dtype=dtype)
    o = (0.99 * torch.exp(1j * torch.rand(H, 1, K, 1, device=dev))).to(torch.complex64)
    return {"eos rotation chunk (ours)": (lambda i, e, o, s: eos_scan(i, e, o, s, form="kernel"), (v, k, o, q)),
            "eos fused recurrent complex (ours)": (kernel_fn("fused"), (v, k, o, q)),
            "torch eos_scan chunked": (lambda i, e, o, s: eos_scan(i, e, o, s, form="chunked"), (v, k, o, q))}


CASES = {"gla": gla_case, "simple_gla": simple_gla_case, "delta": delta_case, "delta_dense": delta_dense_case,
         "lrpe": lrpe_case, "live_gla": live_gla_case}
LIVE_SHAPE = dict(B=32, H=1, T=64, K=64, V=64)   # lcsm_core.training.config.PAGE_DEFAULTS


# fla's rows per operator (named as the cases name them): the plan counts them even where fla cannot run (CPU)
FLA_ROWS = {"gla": ("fla chunk_gla", "fla fused_recurrent_gla"),
            "simple_gla": ("fla fused_recurrent_simple_gla", "fla chunk_simple_gla"),
            "delta": ("fla fused_recurrent_delta_rule", "fla chunk_delta_rule")}


def row_dims(args, op: str) -> dict:
    """B, T, H, K, V of an operator's rows: the live row at the Train live shape, the dense matrix row at
    --matrix-B/--matrix-T, every other at --B/--T/--H/--K/--V."""
    dims = dict(B=args.B, T=args.T, H=args.H, K=args.K, V=args.V)
    if op == "delta_dense":
        dims.update(B=args.matrix_B, T=args.matrix_T)
    if op == "live_gla" and not args.smoke:
        dims.update(LIVE_SHAPE)
    return dims


def rows(args) -> list:
    """(op, dtype) in the order they run: every operator in the first dtype (bf16, the training dtype), then the
    next; the live-training row first in each."""
    return [(op, dname) for dname in args.dtypes.split(",") for op in args.ops.split(",")]


def make_plan(args) -> dict:
    """{(op, dtype): kernel_plan.Row} at the GPU shapes of args, in run order; implementation names from tiny CPU
    cases plus fla's."""
    import torch
    plan, compiled, names = {}, set(), {}
    for op, dname in rows(args):
        if op not in names:
            names[op] = [n for n in CASES[op](1, 16, 1, 16, 16, torch.float32, "cpu") if not n.startswith("fla")]
            names[op] += list(FLA_ROWS.get(op, ()))
        plan[op, dname] = kernel_plan.plan_row(op, dname, row_dims(args, op), names[op], compiled)
    return plan


def kernel_fn(kind: str):
    from lcsm_core.scan import kernel as kernels
    fn = {"chunk": kernels.chunk_eos, "fused": kernels.fused_recurrent_eos,
          "matrix": kernels.fused_recurrent_eos_matrix}[kind]
    return lambda i, e, o, s: fn(i, e, o, s)[0]


_FLA = None


def fla_ops() -> dict:
    """fla's kernels when fla-core is installed and a GPU is there; {} otherwise."""
    global _FLA
    if _FLA is None:
        _FLA = {}
        import torch
        if torch.cuda.is_available():
            try:
                from fla.ops.delta_rule import chunk_delta_rule, fused_recurrent_delta_rule
                from fla.ops.gla import chunk_gla, fused_recurrent_gla
                from fla.ops.simple_gla import fused_recurrent_simple_gla
                _FLA = dict(chunk_gla=chunk_gla, fused_recurrent_gla=fused_recurrent_gla,
                            fused_recurrent_simple_gla=fused_recurrent_simple_gla,
                            fused_recurrent_delta_rule=fused_recurrent_delta_rule, chunk_delta_rule=chunk_delta_rule)
                try:
                    from fla.ops.simple_gla import chunk_simple_gla
                    _FLA["chunk_simple_gla"] = chunk_simple_gla
                except ImportError:
                    pass
            except Exception as err:   # noqa: BLE001 - any failure means "no fla column"
                print(f"fla not usable ({type(err).__name__}: {err}); its rows are left out")
    return _FLA


# ---------------------------------------------------------------- measuring
def measure(fn, args, time_ms):
    """(fwd ms, fwd+bwd ms, forward output) for one implementation; errors become strings."""
    import torch
    leaves = [a.detach().clone().requires_grad_(a.is_floating_point() or a.is_complex()) for a in args]
    try:
        with torch.no_grad():
            y = fn(*args)
            fwd = time_ms(lambda: fn(*args))
        dy = torch.randn_like(y)

        def fwd_bwd():
            out = fn(*leaves)
            torch.autograd.grad(out, leaves, dy)
        both = time_ms(fwd_bwd)
        return fwd, both, y
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        return "OOM", "OOM", None
    except Exception as err:   # noqa: BLE001 - the table records any failure instead of stopping
        return f"error: {type(err).__name__}", str(err)[:80], None


def run(args, plan: dict) -> str:
    """Measure every row of args (plan: the GPU estimates, which decide what fits --budget-s; not applied to a
    smoke run) and return the markdown table."""
    import torch
    import triton

    dev = "cuda" if torch.cuda.is_available() and not args.smoke else "cpu"
    time_ms = timer(dev)
    name = torch.cuda.get_device_name(0) if dev == "cuda" else "CPU (Triton interpreter smoke run)"
    if dev == "cuda":
        bw = measured_bandwidth(dev)
        nominal = next((v for key, v in NOMINAL_BANDWIDTH.items() if key in name), None)
        bw_line = (f"measured copy bandwidth {bw / 1e12:.2f} TB/s"
                   + (f" (issue's figure for this device: {nominal / 1e12:.1f} TB/s)" if nominal else ""))
    else:
        bw, bw_line = float("nan"), "bandwidth not measured on CPU"
    dtypes = {"bf16": torch.bfloat16, "fp32": torch.float32, "fp16": torch.float16}
    lines = [f"# EOS Triton kernels — {name}", "",
             f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC · torch {torch.__version__} · "
             f"triton {triton.__version__} · {bw_line}", "",
             "fwd GB/s counts the bytes a forward must move at least (inputs once, output once); "
             "% bw is that over the measured copy bandwidth; vs fla is the best fla kernel's time / ours for the "
             "same operator, vs torch is torch eos_scan chunked's time / ours (> 1 means ours is faster).", "",
             "| operator | shape | dtype | implementation | fwd ms | fwd+bwd ms | fwd GB/s | % bw "
             "| fwd vs fla | fwd+bwd vs fla | fwd+bwd vs torch |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    start = time.monotonic()
    for op, dname in rows(args):   # one row: (operator, dtype)
        dtype = dtypes[dname]
        dims = row_dims(args, op)
        B, T, H, K, V = (dims[n] for n in "BTHKV")
        shape = f"B={B} T={T} H={H} K={K} V={V}"
        left = args.budget_s - (time.monotonic() - start)
        estimate = plan[op, dname].seconds
        if not args.smoke and estimate > left:
            lines.append(f"| {op} | {shape} | {dname} | skipped: estimated {estimate:.0f} s, {left:.0f} s of the "
                         f"budget left (run `--ops {op} --dtypes {dname}`) | | | | | | | |")
            print(f"{op} {dname}: skipped (estimated {estimate:.0f} s, {left:.0f} s left)", flush=True)
            continue
        impls = CASES[op](B, T, H, K, V, dtype, dev)
        results = {}
        for impl, (fn, inputs) in impls.items():
            if dev == "cpu" and impl.startswith("fla"):
                continue
            if not args.smoke and time.monotonic() - start > args.budget_s:   # a row ran past its estimate
                results[impl] = ("skipped: budget spent", "", None)
                continue
            fwd, both, y = measure(fn, inputs, time_ms)
            gbs = (nbytes(*inputs) + nbytes(y)) / (fwd * 1e-3) / 1e9 if isinstance(fwd, float) else None
            results[impl] = (fwd, both, gbs)
            print(f"{op} {dname} {impl}: fwd {fwd} ms, fwd+bwd {both} ms", flush=True)
            del y
        fla = [r for name, r in results.items() if name.startswith("fla") and isinstance(r[0], float)]
        best_fla = (min(r[0] for r in fla), min(r[1] for r in fla)) if fla else None
        torch_row = results.get("torch eos_scan chunked")
        torch_both = torch_row[1] if torch_row and isinstance(torch_row[1], float) else None
        for impl, (fwd, both, gbs) in results.items():
            if gbs is None:
                lines.append(f"| {op} | {shape} | {dname} | {impl} | {fwd} | {both} | – | – | – | – | – |")
                continue
            pct = f"{100 * gbs * 1e9 / bw:.0f} %" if math.isfinite(bw) else "–"
            vs = (f"{best_fla[0] / fwd:.2f}x", f"{best_fla[1] / both:.2f}x") if best_fla else ("–", "–")
            vs_torch = f"{torch_both / both:.2f}x" if torch_both and isinstance(both, float) else "–"
            lines.append(f"| {op} | {shape} | {dname} | {impl} | {fwd:.3f} | {both:.3f} | {gbs:.0f} | {pct} "
                         f"| {vs[0]} | {vs[1]} | {vs_torch} |")
        if dev == "cuda":
            torch.cuda.empty_cache()
    return "\n".join(lines) + "\n"


def main() -> int:
    args = parse()
    if args.smoke:
        # the interpreter must be chosen before any @triton.jit function is defined
        os.environ["TRITON_INTERPRET"] = "1"
    gpu_args = copy.copy(args)
    gpu_args.smoke = False
    plan = make_plan(gpu_args)                 # at the GPU shapes, before a smoke run shrinks them
    print(kernel_plan.describe(list(plan.values()), args.budget_s), flush=True)
    if args.smoke:
        args.B, args.T, args.H, args.K, args.V = 1, 20, 2, 16, 16
        args.matrix_B, args.matrix_T = 1, 20
        args.dtypes = "fp32"
    import torch
    if not torch.cuda.is_available() and not args.smoke:
        print("no CUDA: skipped (the kernel benchmark needs a GPU; --smoke runs tiny shapes through the "
              "Triton interpreter to check this script)")
        return 0
    table = run(args, plan)
    print()
    print(table)
    if args.smoke:
        print("\nsmoke run: timings are the interpreter's and mean nothing; no file written")
        return 0
    slug = re.sub(r"[^A-Za-z0-9]+", "-", torch.cuda.get_device_name(0)).strip("-").lower()
    if (args.ops, args.dtypes) != (DEFAULT_OPS, DEFAULT_DTYPES):   # a follow-up run keeps the full run's file
        slug += "-" + re.sub(r"[^A-Za-z0-9]+", "-", f"{args.ops}-{args.dtypes}").strip("-").lower()
    out = Path(args.out) / f"kernels-{slug}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(table)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Chunked vs step-by-step EOS scan, measured side by side in one run.

    python benchmarks/scan_forms.py [--T 2048] [--B 4] [--k 64] [--d 64]

Prints the best time of each form and the ratio recurrent / chunked
(goal: >= 20x at T = 2048, B = 4, k = d = 64, CPU). Nothing is asserted.
The structured rows (Outer, DeltaRule: lcsm_core.scan.structured) are given by their factors to both forms.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from lcsm_core import eos_scan  # noqa: E402
from lcsm_core.scan.structured import DeltaRule, Outer  # noqa: E402


def best_times(fns: dict, repeats: int) -> dict:
    """Run the candidates interleaved (the machine is noisy) and keep each one's best time."""
    for fn in fns.values():
        fn()  # warm-up
    best = {name: float("inf") for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def scan_runner(states, form: str, chunk: int, backward: bool, psi: str = "elementwise"):
    i, e, o, s = states

    def go():
        with torch.set_grad_enabled(backward):
            y = eos_scan(i, e, o, s, psi=psi, form=form, chunk_size=chunk)
            if backward:
                y.sum().backward()
    return go


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--T", type=int, default=2048)
    ap.add_argument("--B", type=int, default=4)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--chunk", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--backward", action="store_true", help="time forward + backward")
    ap.add_argument("--threads", type=int, default=None,
                    help="torch CPU threads (1 avoids OpenMP oversubscription on a busy machine)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    B, T, k, d = args.B, args.T, args.k, args.d
    decay = lambda *shape: torch.sigmoid(torch.randn(*shape) + 3.0)
    cases = {
        "o = g_t 1ᵀ (k×1, GLA)": lambda: decay(B, T, k, 1),
        "o = 1 g_tᵀ (1×d)": lambda: decay(B, T, 1, d),
        "o = k×d (per step)": lambda: decay(B, T, k, d),
        "o = Outer(g_t, h_t)": lambda: Outer(decay(B, T, k), decay(B, T, d)),
        "o = DeltaRule(k_t, β_t)": lambda: DeltaRule(torch.nn.functional.normalize(torch.randn(B, T, k), dim=-1),
                                                     torch.rand(B, T)),
    }
    print(f"EOS scan forms on {torch.get_num_threads()} CPU threads, B={B} T={T} k={k} d={d} chunk={args.chunk}, "
          f"{'fwd+bwd' if args.backward else 'fwd'}")
    print(f"{'oscillation':<26}{'recurrent s':>13}{'chunked s':>12}{'ratio':>9}")
    for label, make_o in cases.items():
        grad = args.backward
        o = make_o()
        for factor in (o.k_part, o.d_part) if isinstance(o, Outer) else (o.k, o.beta) if isinstance(o, DeltaRule) \
                else (o,):
            factor.requires_grad_(grad)
        states = (torch.randn(B, T, d, requires_grad=grad), torch.randn(B, T, k, requires_grad=grad), o,
                  torch.randn(B, T, k, requires_grad=grad))
        psi = "matrix" if isinstance(o, DeltaRule) else "elementwise"
        best = best_times({form: scan_runner(states, form, args.chunk, grad, psi)
                           for form in ("recurrent", "chunked")}, args.repeats)
        t_rec, t_chk = best["recurrent"], best["chunked"]
        print(f"{label:<26}{t_rec:>13.4f}{t_chk:>12.4f}{t_rec / t_chk:>8.1f}x")
    print("times are the best of the interleaved repeats; goal for the k×1 (GLA) case: >= 20x. "
          "A full k×d oscillation has no matmul structure, so on a CPU its chunked form does the "
          "recurrent form's elementwise work and cannot win by much.")


if __name__ == "__main__":
    main()

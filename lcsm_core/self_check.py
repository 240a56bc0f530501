"""The core's self-check (`lcsm-explorer check`): on the machine it runs on, in about a minute, the properties the
test suite holds the core to, measured again without the test suite — every form of the scan against the
step-by-step reference in value and gradient (fp64), the hand-written backward against autograd, every registered
variant's layer in its fast form against the reference form, and a short MQAR training that stays finite.

Each check prints one line; the process exits 1 when any fails. A school's IT person runs it after an install; a
researcher runs it on a new GPU (the kernel form is checked too where Triton and CUDA are both there)."""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import torch

from .scan import eos_scan
from .variants import VARIANTS, build_layer

FP64_TOLERANCE = 1e-9


def _states(T: int, k: int, d: int, complex_o: bool, seed: int, device: str = "cpu", dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=dtype)
    o = 0.5 + 0.5 * torch.rand(2, T, k, d, generator=g, dtype=dtype)
    if complex_o:
        o = torch.polar(o, torch.rand(2, T, k, d, generator=g, dtype=dtype) * 3.0)
    states = [r(2, T, d), r(2, T, k), o, r(2, T, k)]
    return [x.to(device).requires_grad_() for x in states]


def _value_and_grads(states, **options):
    y, m = eos_scan(*states, return_state=True, **options)
    weights = torch.linspace(-1, 1, y.shape[-1], dtype=y.real.dtype, device=y.device)
    loss = (y.real * weights).sum() + (m.abs() ** 2).sum()
    return [y, m, *torch.autograd.grad(loss, states)]


def _largest_gap(a: list[torch.Tensor], b: list[torch.Tensor]) -> float:
    """The largest difference over all tensors, relative to each tensor's own size (≥ 1)."""
    return max(float((x - y).detach().abs().max() / max(1.0, float(y.detach().abs().max()))) for x, y in zip(a, b))


def check_forms() -> str:
    worst = 0.0
    for complex_o in (False, True):
        states = _states(70, 5, 7, complex_o, seed=1)
        reference = _value_and_grads(states)
        for form, chunk in (("parallel", 64), ("chunked", 16)):
            worst = max(worst, _largest_gap(_value_and_grads(states, form=form, chunk_size=chunk), reference))
    if worst > FP64_TOLERANCE:
        raise AssertionError(f"a form differs from the reference by {worst:.1e} (fp64, allowed {FP64_TOLERANCE:g})")
    return f"parallel and chunked equal the recurrent reference, values and gradients (largest gap {worst:.0e})"


def check_manual_backward() -> str:
    states = _states(40, 4, 6, True, seed=2)
    gap = _largest_gap(_value_and_grads(states, backward="manual"), _value_and_grads(states))
    if gap > FP64_TOLERANCE:
        raise AssertionError(f"the hand-written backward differs from autograd by {gap:.1e}")
    return f"the hand-written backward equals autograd (largest gap {gap:.0e})"


def check_variants() -> str:
    x = torch.randn(2, 33, 16, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    worst, name_of_worst = 0.0, ""
    for name in VARIANTS:
        torch.manual_seed(0)
        fast = build_layer(name, 16, 8, form="chunked", chunk_size=8).double()
        reference = build_layer(name, 16, 8, form="recurrent").double()
        reference.load_state_dict(fast.state_dict())
        gap = _largest_gap([fast(x)], [reference(x)])
        if gap > worst:
            worst, name_of_worst = gap, name
    if worst > 1e-8:
        raise AssertionError(f"{name_of_worst}'s chunked layer differs from its recurrent one by {worst:.1e}")
    return f"all {len(VARIANTS)} variants: the chunked layer equals the recurrent one (largest gap {worst:.0e})"


def check_training() -> str:
    from .tasks import MQARConfig
    from .training import ModelConfig, OptimConfig, RunConfig, train
    config = RunConfig(task=MQARConfig(vocab_size=16, seq_len=16, num_kv_pairs=2),
                       model=ModelConfig(variant="gla", d_model=16, expand_dim=16, n_layers=2, short_conv=2),
                       optim=OptimConfig(lr=1e-2, batch_size=16, max_steps=30, max_seconds=60, eval_every=10,
                                         snapshot_every=10, test_examples=64, seed=0, device="cpu"))
    records = list(train(config))
    losses = [r.loss for r in records if r.loss is not None]
    last = records[-1]
    if last.status != "completed" or not losses or not all(torch.isfinite(torch.tensor(losses))):
        raise AssertionError(f"a 30-step MQAR run ended {last.status!r} ({last.reason or 'no reason'})")
    return f"a 30-step MQAR run completed, loss {losses[0]:.2f} → {losses[-1]:.2f}, all finite"


def check_kernel() -> str | None:
    """The Triton form against the reference on this GPU; None (not checked) without CUDA or Triton."""
    from .scan.choose import kernels_available
    if not torch.cuda.is_available() or not kernels_available():
        return None
    states = _states(128, 16, 32, False, seed=4, device="cuda", dtype=torch.float32)
    with torch.no_grad():
        y, _ = eos_scan(*states, return_state=True, form="kernel")
        y_ref, _ = eos_scan(*(s.double() for s in states), return_state=True)
    gap = _largest_gap([y.double()], [y_ref])
    if gap > 1e-3:
        raise AssertionError(f"the kernel form differs from the reference by {gap:.1e} (fp32 against fp64)")
    return f"the Triton kernel on {torch.cuda.get_device_name()} equals the reference (fp32, gap {gap:.0e})"


CHECKS: dict[str, Callable[[], str | None]] = {
    "forms": check_forms, "backward": check_manual_backward, "variants": check_variants,
    "training": check_training, "kernel": check_kernel,
}


def run_checks(out=sys.stdout) -> bool:
    passed = True
    for name, check in CHECKS.items():
        start = time.perf_counter()
        try:
            said = check()
            line = f"ok    {name:9s} {said}" if said else f"skip  {name:9s} no CUDA GPU with Triton here"
        except Exception as err:                      # a failed check is a line, the next check still runs
            passed = False
            line = f"FAIL  {name:9s} {type(err).__name__}: {err}"
        print(f"{line}  ({time.perf_counter() - start:.1f} s)", file=out, flush=True)
    print("the core checks out" if passed else "the core FAILED a check: do not use this install", file=out)
    return passed


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="lcsm-explorer check", description=__doc__.split("\n\n")[0]).parse_args(argv)
    torch.set_num_threads(max(1, min(4, torch.get_num_threads())))
    return 0 if run_checks() else 1


if __name__ == "__main__":
    sys.exit(main())

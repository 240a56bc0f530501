"""The cost cap: a run's memory per training step is estimated from its config before it starts, every code
and variant at the size caps is refused or estimated within the budget, the issue's link is refused before a
run exists, and the estimate is an upper bound of what a step keeps (within cost.MAX_OVERESTIMATE)."""
import json
import os
import subprocess
import sys

import pytest
import torch

from lcsm_core.codes import all_codes
from lcsm_core.training import SizeLimits, run_config
from lcsm_core.training.cost import MAX_OVERESTIMATE, estimate_cost
from lcsm_core.training.model import SequenceModel
from lcsm_core.variants import VARIANTS
from lcsm_serving import RunManager
from tests.training.conftest import ROOT

CAPS = dict(seq_len=256, d_model=128, expand_dim=128, layers=4, vocab_size=512, batch_size=128, kv_pairs=8)
ISSUE_LINK = dict(code="1-9-1-0", **CAPS)       # /train_live?layer=code&code=1-9-1-0&seq_len=256&... (issue 13)


def test_every_code_and_variant_at_the_caps_is_refused_or_within_the_budget():
    limits = SizeLimits()
    budget = limits.run_memory_bytes
    refused = accepted = 0
    layers = [dict(code=c) for c in [*all_codes(), "0"]] + [dict(variant=v) for v in VARIANTS]
    for layer in layers:
        config = run_config(**layer, **CAPS)
        cost = estimate_cost(config)
        assert cost.peak_bytes > 0 and cost.step_s > 0
        try:
            limits.check(config)
        except ValueError as err:
            assert "per training step" in str(err) and "this server allows 2.0 GiB per run" in str(err)
            refused += 1
        else:
            assert cost.peak_bytes <= budget
            accepted += 1
    assert refused and accepted == 0 or refused + accepted == len(layers)


def test_the_issue_link_is_refused_before_a_run_exists(tmp_path):
    manager = RunManager(tmp_path / "runs.sqlite")
    try:
        with pytest.raises(ValueError) as err:
            manager.submit(run_config(**ISSUE_LINK), "alice")
        message = str(err.value)
        assert "per training step" in message and "this server allows 2.0 GiB per run" in message
        # The issue measured 11 GiB when 1-9-1-0's gate reached the scan as a (B, T, k, d) tensor; it now goes as
        # its k- and d-vector factors (structured Outer), and the estimate follows.
        assert 2 * 1024 ** 3 < estimate_cost(run_config(**ISSUE_LINK)).peak_bytes < 11.5 * 1024 ** 3
        assert manager.store.list_runs() == []
    finally:
        manager.shutdown()


def test_a_full_data_dependent_gate_is_named_in_the_refusal(tmp_path):
    manager = RunManager(tmp_path / "runs.sqlite")
    try:
        with pytest.raises(ValueError) as err:
            manager.submit(run_config(**{**ISSUE_LINK, "code": "1-6-1-0"}), "alice")
        message = str(err.value)
        assert "code 1-6-1-0's k×d gate: B·T·k·d·layers numbers" in message
        assert "lower the batch size, sequence length, k, d_model or layers" in message
        assert manager.store.list_runs() == []
    finally:
        manager.shutdown()


def test_the_budget_is_configurable(monkeypatch):
    small = run_config(code="1-9-1-0", d_model=64, expand_dim=64, layers=2, seq_len=64, batch_size=32)
    SizeLimits().check(small)
    with pytest.raises(ValueError, match="this server allows 64 MiB per run"):
        SizeLimits(max_run_memory_mb=64).check(small)
    monkeypatch.setenv("LCSM_RUN_MEMORY_BUDGET_MB", "64")
    with pytest.raises(ValueError, match="64 MiB"):
        SizeLimits().check(small)
    SizeLimits(max_run_memory_mb=None).check(small)


def kept_for_backward(config) -> int:
    """Bytes autograd keeps for one training step's backward (distinct storages)."""
    torch.manual_seed(0)
    model = SequenceModel(config.model, config.task.vocab_size)
    x, y = config.task.build(config.optim.batch_size, (0, 1, 0))
    storages = {}

    def pack(t):
        storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        logits = model(x)
        torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten(), ignore_index=-100)
    return sum(storages.values())


@pytest.mark.parametrize("layer", [dict(code="1-9-1-0"), dict(code="1-6-1-0"), dict(code="1-1-1-0"),
                                   dict(code="1-8-1-0"), dict(code="0-0-0-0"), dict(code="1-11-1-0"),
                                   dict(code="1-3-1-0"),
                                   *[dict(variant=v) for v in VARIANTS]], ids=str)
def test_the_estimate_bounds_what_a_step_keeps(layer):
    config = run_config(**layer, d_model=32, expand_dim=16, layers=2, seq_len=128, batch_size=8, vocab_size=16,
                        kv_pairs=2)
    kept = kept_for_backward(config)
    estimate = estimate_cost(config).parts["layers (kept for backward)"] + estimate_cost(config).parts["head (logits)"]
    assert kept <= estimate <= MAX_OVERESTIMATE * kept + 2 * 1024 ** 2, (kept, estimate)


MEASURE = r"""
import json, os, resource, sys
import torch
torch.set_num_threads(1)
from lcsm_core.training import Trainer, run_config
settings = json.loads(sys.argv[1])
config = run_config(**settings, device="cpu")
config.optim.test_examples = 32
warm = torch.nn.Parameter(torch.zeros(1))
warm.grad = torch.zeros(1)
torch.optim.AdamW([warm]).step()           # AdamW's one-off lazy imports (~300 MiB) belong to the process
trainer = Trainer(config)
with open("/proc/self/statm") as f:
    before = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
trainer.test_accuracy()
trainer.train_step()
trainer.train_step()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before)
"""


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("LCSM_MEASURE_MEMORY") != "1",
                    reason="a process's peak RSS depends on what else shares the machine (in the full suite one "
                           "measurement read 867 MiB for a 78 MiB step); set LCSM_MEASURE_MEMORY=1 to run it, or "
                           "see benchmarks/train_memory.py — test_the_estimate_bounds_what_a_step_keeps checks the "
                           "estimate against autograd's exact bytes in every run")
@pytest.mark.parametrize("settings", [dict(code="1-9-1-0", d_model=64, expand_dim=64, layers=2, seq_len=64,
                                           batch_size=64),
                                      dict(variant="gla", d_model=64, expand_dim=64, layers=2, seq_len=64,
                                           batch_size=32)], ids=["1-9-1-0", "gla"])
def test_the_estimate_bounds_the_measured_peak_memory_of_a_step(settings):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(settings)], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True, timeout=300)
    measured = int(out.stdout.strip().splitlines()[-1])
    config = run_config(**settings)
    config.optim.test_examples = 32
    estimate = estimate_cost(config).peak_bytes
    assert measured <= estimate <= MAX_OVERESTIMATE * measured, (measured, estimate)

"""The CUDA rule of form="auto" (lcsm_core/scan/choose_cuda.py), read from shapes alone: no GPU needed."""
import pytest

from lcsm_core.scan import choose
from lcsm_core.scan.choose import ScanShape, choose_form
from lcsm_core.scan.choose_cuda import LAUNCH_BOUND_WORK, LIVE_MAX_T, cuda_form


def shape(sequences, T, k, d, psi="elementwise", structure="dense", rows=None, cols=1):
    return ScanShape(psi=psi, T=T, k=k, d=d, o_rows=k if rows is None else rows, o_cols=cols, sequences=sequences,
                     cuda=True, structure=structure)


def test_train_live_defaults_stay_on_torch_chunked():
    """batch 32, T = 64, k = d = 64 (PAGE_DEFAULTS): where the previous kernels measured slower (70 vs 86 steps/s)."""
    from lcsm_core.training.config import PAGE_DEFAULTS
    live = shape(PAGE_DEFAULTS["batch"], PAGE_DEFAULTS["seq_len"], PAGE_DEFAULTS["k"], PAGE_DEFAULTS["d_model"])
    assert cuda_form(live) == "chunked"


def test_the_live_cap_covers_every_sequence_the_server_trains():
    """LIVE_MAX_T is the server's sequence-length cap: raising the cap without measuring the kernels there fails."""
    from lcsm_core.training.config import SizeLimits
    assert LIVE_MAX_T >= SizeLimits().max_seq_len


LIVE_KINDS = [("elementwise", "dense", None, 1), ("elementwise", "dense", 1, 1), ("elementwise", "dense", None, None),
              ("elementwise", "outer", None, None), ("matrix", "delta", None, None), ("matrix", "dense", None, None)]


@pytest.mark.parametrize("psi, structure, rows, cols", LIVE_KINDS,
                         ids=["kx1", "1x1", "kxd", "outer", "delta", "matrix"])
def test_every_live_training_shape_runs_torch_chunked(psi, structure, rows, cols):
    """Until the kernels are timed, every shape within the server's caps (batch ≤ 128 sequences, T ≤ 256,
    k, d ≤ 128 per layer; a head's k as small as 1) stays on torch chunked, for every oscillation kind."""
    from lcsm_core.training.config import SizeLimits
    caps = SizeLimits()
    for batch in (1, 8, 32, caps.max_batch_size):
        for T in (4, 64, 128, caps.max_seq_len):
            for k in (1, 16, 64, caps.max_expand_dim):
                for d in (1, 16, 64, caps.max_d_model):
                    s = shape(batch, T, k, d, psi=psi, structure=structure, rows=rows,
                              cols=d if cols is None else cols)
                    assert cuda_form(s) == "chunked", s


@pytest.mark.parametrize("psi, structure", [("elementwise", "dense"), ("matrix", "delta"), ("matrix", "dense")])
def test_large_scans_run_the_kernels(psi, structure):
    assert cuda_form(shape(128, 4096, 128, 128, psi=psi, structure=structure)) == "kernel"


def test_long_but_narrow_scans_stay_on_torch_chunked():
    """The dynamics lessons: a few modes (k ≤ 20, d = 1) over thousands of steps are launch-bound."""
    s = shape(24, 4000, 20, 1)
    assert s.T > LIVE_MAX_T and s.sequences * s.T * s.k * s.d < LAUNCH_BOUND_WORK
    assert cuda_form(s) == "chunked"


def test_outer_oscillation_keeps_its_factored_chunked_path():
    assert cuda_form(shape(128, 4096, 128, 128, structure="outer", cols=128)) == "chunked"


def test_choose_form_asks_the_cuda_rule(monkeypatch):
    monkeypatch.delenv(choose.ENV_FORM, raising=False)
    monkeypatch.setattr(choose, "kernels_available", lambda: True)
    assert choose_form(shape(32, 64, 64, 64)) == "chunked"
    assert choose_form(shape(128, 4096, 128, 128)) == "kernel"
    monkeypatch.setattr(choose, "kernels_available", lambda: False)
    assert choose_form(shape(128, 4096, 128, 128)) == "chunked"

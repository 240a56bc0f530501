"""The CUDA rule of form="auto" (lcsm_core/scan/choose_cuda.py), read from shapes alone: no GPU needed."""
import pytest

from lcsm_core.scan import choose
from lcsm_core.scan.choose import ScanShape, choose_form
from lcsm_core.scan.choose_cuda import LAUNCH_BOUND_WORK, cuda_form


def shape(sequences, T, k, d, psi="elementwise", structure="dense", rows=None, cols=1):
    return ScanShape(psi=psi, T=T, k=k, d=d, o_rows=k if rows is None else rows, o_cols=cols, sequences=sequences,
                     cuda=True, structure=structure)


def test_train_live_defaults_stay_on_torch_chunked():
    """batch 32, T = 64, k = d = 64 (PAGE_DEFAULTS): launch-bound, where the kernels measured slower."""
    live = shape(32, 64, 64, 64)
    assert live.sequences * live.T * live.k * live.d < LAUNCH_BOUND_WORK
    assert cuda_form(live) == "chunked"


@pytest.mark.parametrize("psi, structure", [("elementwise", "dense"), ("matrix", "delta"), ("matrix", "dense")])
def test_large_scans_run_the_kernels(psi, structure):
    assert cuda_form(shape(128, 4096, 128, 128, psi=psi, structure=structure)) == "kernel"


def test_outer_oscillation_keeps_its_factored_chunked_path():
    assert cuda_form(shape(128, 4096, 128, 128, structure="outer", cols=128)) == "chunked"


def test_choose_form_asks_the_cuda_rule(monkeypatch):
    monkeypatch.delenv(choose.ENV_FORM, raising=False)
    monkeypatch.setattr(choose, "kernels_available", lambda: True)
    assert choose_form(shape(32, 64, 64, 64)) == "chunked"
    assert choose_form(shape(128, 4096, 128, 128)) == "kernel"
    monkeypatch.setattr(choose, "kernels_available", lambda: False)
    assert choose_form(shape(128, 4096, 128, 128)) == "chunked"

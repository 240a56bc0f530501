"""Bad input raises ValueError naming the argument and the expected shape."""
import pytest
import torch

from lcsm_core import eos_scan

T, k, d = 5, 3, 4
GOOD = dict(i=torch.randn(2, T, d), e=torch.randn(2, T, k), o=torch.rand(2, T, k, 1), s=torch.randn(2, T, k))


@pytest.mark.parametrize("change,message", [
    (dict(i=torch.randn(d)), "i must have shape"),
    (dict(e=torch.randn(2, T + 1, k)), "share T"),
    (dict(s=torch.randn(2, T, k + 1)), "s must have shape"),
    (dict(o=torch.rand(2, T, k, 2)), "o must broadcast"),
    (dict(o=torch.rand(2, T + 2, k, d)), "o must broadcast"),
    (dict(i=torch.randint(0, 3, (2, T, d))), "floating"),
    (dict(e=[[1.0]]), "e must be a torch.Tensor"),
    (dict(i=torch.randn(3, T, d)), "leading"),
], ids=["i-rank", "e-time", "s-width", "o-width", "o-time", "i-dtype", "e-type", "batch"])
def test_bad_states(change, message):
    with pytest.raises(ValueError, match=message):
        eos_scan(**{**GOOD, **change})


def test_bad_options():
    with pytest.raises(ValueError, match="form must be one of"):
        eos_scan(**GOOD, form="fast")
    with pytest.raises(ValueError, match="psi must be one of"):
        eos_scan(**GOOD, psi="outer")
    with pytest.raises(ValueError, match="chunk_size"):
        eos_scan(**GOOD, form="chunked", chunk_size=0)
    with pytest.raises(ValueError, match="initial_state must have shape"):
        eos_scan(**GOOD, initial_state=torch.zeros(2, k, d + 1))
    with pytest.raises(ValueError, match="psi='matrix', o must have shape"):
        eos_scan(**GOOD, psi="matrix")
    with pytest.raises(ValueError, match="psi='elementwise' only"):
        eos_scan(GOOD["i"], GOOD["e"], torch.rand(2, T, k, k), GOOD["s"], psi="matrix", form="parallel")


def test_empty_time_axis():
    with pytest.raises(ValueError, match="at least one time step"):
        eos_scan(torch.randn(2, 0, d), torch.randn(2, 0, k), torch.rand(k, 1), torch.randn(2, 0, k))

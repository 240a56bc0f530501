"""Every form of eos_scan equals the step-by-step reference, in value and gradient."""
import pytest
import torch

from lcsm_core import eos_scan
from tests.closeness import assert_close

SHAPES = [(1, 1, 1), (63, 5, 7), (100, 7, 5), (63, 1, 5)]          # (T, k, d)
O_KINDS = ["kd", "k1", "1d", "11", "static-kd", "static-k1"]


def make_states(T, k, d, o_kind, complex_o, B=2, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=dtype)
    shape = {"kd": (B, T, k, d), "k1": (B, T, k, 1), "1d": (B, T, 1, d), "11": (B, T, 1, 1),
             "static-kd": (k, d), "static-k1": (k, 1)}[o_kind]
    o = 0.5 + 0.5 * torch.rand(*shape, generator=g, dtype=dtype)        # decays in (0.5, 1)
    if complex_o:
        o = torch.polar(o, torch.rand(*shape, generator=g, dtype=dtype) * 3.0)
    states = [r(B, T, d), r(B, T, k), o, r(B, T, k)]
    return [x.requires_grad_() for x in states]


def scan_loss(states, m0=None, **kw):
    y, m = eos_scan(*states, return_state=True, initial_state=m0, **kw)
    loss = (y * torch.linspace(-1, 1, y.shape[-1], dtype=y.dtype)).sum() + (m.abs() ** 2).sum()
    return y, m, loss


CASES = [pytest.param(T, k, d, ok, c, id=f"T{T}-k{k}-d{d}-o{ok}-{'complex' if c else 'real'}")
         for (T, k, d) in SHAPES for ok in O_KINDS for c in (False, True)]


@pytest.mark.parametrize("T,k,d,o_kind,complex_o", CASES)
@pytest.mark.parametrize("form,chunk", [("parallel", 64), ("chunked", 16), ("chunked", 64)], ids=str)
def test_form_matches_recurrent(T, k, d, o_kind, complex_o, form, chunk):
    states = make_states(T, k, d, o_kind, complex_o)
    m0 = torch.randn(2, k, d, dtype=torch.float64, requires_grad=True)
    y_ref, m_ref, loss_ref = scan_loss(states, m0)
    grads_ref = torch.autograd.grad(loss_ref, states + [m0])
    y, m, loss = scan_loss(states, m0, form=form, chunk_size=chunk)
    grads = torch.autograd.grad(loss, states + [m0])
    assert_close(y, y_ref, "y")
    assert_close(m, m_ref, "final memory")
    for name, g, g_ref in zip("ieosm", grads, grads_ref):
        assert_close(g, g_ref, f"grad {name}", scale=100)


@pytest.mark.parametrize("T", [1, 63, 100])
@pytest.mark.parametrize("complex_o", [False, True], ids=["real", "complex"])
def test_matrix_chunked_matches_recurrent(T, complex_o):
    k, d = 5, 7
    g = torch.Generator().manual_seed(1)
    o = torch.randn(2, T, k, k, generator=g, dtype=torch.float64) * 0.3
    if complex_o:
        o = o * torch.polar(torch.ones_like(o), torch.rand(o.shape, generator=g, dtype=torch.float64))
    states = [torch.randn(2, T, d, dtype=torch.float64), torch.randn(2, T, k, dtype=torch.float64), o,
              torch.randn(2, T, k, dtype=torch.float64)]
    states = [x.requires_grad_() for x in states]
    y_ref, m_ref, loss_ref = scan_loss(states, psi="matrix")
    y, m, loss = scan_loss(states, psi="matrix", form="chunked", chunk_size=16)
    assert_close(y, y_ref, "y")
    assert_close(m, m_ref, "final memory")
    for g, g_ref in zip(torch.autograd.grad(loss, states), torch.autograd.grad(loss_ref, states)):
        assert_close(g, g_ref, "grad", scale=100)


@pytest.mark.parametrize("o_value", ["zeros", "negative", "tiny"])
def test_chunked_exact_for_awkward_decays(o_value):
    """Zero, negative and vanishing decays leave the log-space path and stay exact."""
    T, k, d = 70, 5, 7
    states = make_states(T, k, d, "k1", False)
    o = states[2].detach()
    o = {"zeros": o * (o > 0.7), "negative": -o, "tiny": o * 1e-30}[o_value]
    states[2] = o.requires_grad_()
    for form in ("parallel", "chunked"):
        y, m, _ = scan_loss(states, form=form, chunk_size=16)
        y_ref, m_ref, _ = scan_loss(states)
        assert_close(y, y_ref, form)
        assert_close(m, m_ref, form)


@pytest.mark.parametrize("form", ["recurrent", "chunked"])
@pytest.mark.parametrize("psi", ["elementwise", "matrix"])
def test_streaming_equals_whole_sequence(form, psi):
    """Feeding a sequence in pieces, carrying the memory, equals feeding it whole."""
    T, k, d = 50, 4, 3
    g = torch.Generator().manual_seed(2)
    i, e, s = (torch.randn(2, T, n, generator=g, dtype=torch.float64) for n in (d, k, k))
    o = (torch.rand(2, T, k, 1, generator=g, dtype=torch.float64) if psi == "elementwise"
         else torch.randn(2, T, k, k, generator=g, dtype=torch.float64) * 0.4)
    y_whole, m_whole = eos_scan(i, e, o, s, psi=psi, form=form, return_state=True, chunk_size=8)
    pieces, m = [], None
    for a, b in [(0, 1), (1, 17), (17, 40), (40, 50)]:
        y, m = eos_scan(i[:, a:b], e[:, a:b], o[:, a:b], s[:, a:b], psi=psi, form=form, initial_state=m,
                        return_state=True, chunk_size=8)
        pieces.append(y)
    assert_close(torch.cat(pieces, dim=1), y_whole, "streamed y")
    assert_close(m, m_whole, "streamed memory")


def test_leading_dims_broadcast():
    """Heads and per-channel parameters broadcast like numpy."""
    B, H, T, k, d = 2, 3, 10, 4, 5
    i = torch.randn(B, H, T, d, dtype=torch.float64)
    e = torch.randn(1, H, T, k, dtype=torch.float64)
    s = torch.randn(B, 1, T, k, dtype=torch.float64)
    o = torch.rand(H, 1, k, 1, dtype=torch.float64)
    y = eos_scan(i, e, o, s, form="chunked", chunk_size=4)
    assert y.shape == (B, H, T, d)
    for b in range(B):
        for h in range(H):
            y_bh = eos_scan(i[b, h], e[0, h], o[h, 0], s[b, 0])
            assert_close(y[b, h], y_bh, f"b{b} h{h}")


def test_fp32_forms_agree():
    states = make_states(100, 16, 8, "k1", False, dtype=torch.float32)
    y_ref = eos_scan(*states)
    for form in ("parallel", "chunked"):
        assert_close(eos_scan(*states, form=form), y_ref, form, scale=10)

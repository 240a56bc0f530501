"""Structured oscillations (lcsm_core.scan.structured) equal their dense tensors in every form, in fp64:
values, final state and every gradient, on awkward shapes; the factors are checked with messages naming them."""
import pytest
import torch

from lcsm_core import eos_scan
from lcsm_core.scan import prepare
from lcsm_core.scan.structured import DeltaRule, Outer, dense
from tests.closeness import assert_close

SHAPES = [(1, 1, 1), (37, 5, 7), (70, 7, 5), (130, 4, 3)]           # (T, k, d)


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def outer_states(T, k, d, kind, B=2, seed=0, complex_o=False):
    g = _gen(seed)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)
    decay = lambda *shape: 0.5 + 0.5 * torch.rand(*shape, generator=g, dtype=torch.float64)
    k_part = decay(k) if kind == "static-k" else decay(B, T, k)
    d_part = decay(d) if kind == "static-d" else decay(B, T, d)
    if complex_o:
        k_part = torch.polar(k_part, torch.rand(k_part.shape, generator=g, dtype=torch.float64) * 3.0)
    return [r(B, T, d), r(B, T, k), k_part, d_part, r(B, T, k)]


def delta_states(T, k, d, B=2, seed=0, beta_kind="tensor"):
    g = _gen(seed)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)
    keys = torch.nn.functional.normalize(r(B, T, k), dim=-1)
    beta = torch.rand(B, T, generator=g, dtype=torch.float64) if beta_kind == "tensor" else 1.0
    return [r(B, T, d), r(B, T, k), keys, beta, r(B, T, k)]


def loss_of(y, m):
    return (y * torch.linspace(-1, 1, y.shape[-1], dtype=y.dtype)).sum() + (m.abs() ** 2).sum()


def run(states, o_of, m0, **kw):
    i, e, a, b, s = states
    y, m = eos_scan(i, e, o_of(a, b), s, initial_state=m0, return_state=True, **kw)
    leaves = [x for x in states + [m0] if isinstance(x, torch.Tensor) and x.requires_grad]
    return y, m, torch.autograd.grad(loss_of(y, m), leaves)


def compare(states, structured_o, dense_o, m0, psi, form, chunk):
    states = [x.requires_grad_() if isinstance(x, torch.Tensor) else x for x in states]
    y_ref, m_ref, g_ref = run(states, dense_o, m0, psi=psi)                  # dense o, recurrent form
    y, m, g = run(states, structured_o, m0, psi=psi, form=form, chunk_size=chunk)
    assert_close(y, y_ref, "y")
    assert_close(m, m_ref, "final memory")
    for n, (a, b) in enumerate(zip(g, g_ref)):
        assert_close(a, b, f"grad {n}", scale=100)


FORMS = [("recurrent", 64), ("chunked", 16), ("chunked", 64), ("parallel", 64), ("auto", 64)]


@pytest.mark.parametrize("T,k,d", SHAPES, ids=str)
@pytest.mark.parametrize("kind", ["per-step", "static-k", "static-d", "complex"])
@pytest.mark.parametrize("form,chunk", FORMS, ids=str)
def test_outer_matches_its_dense_tensor(T, k, d, kind, form, chunk):
    states = outer_states(T, k, d, kind, complex_o=kind == "complex")
    m0 = torch.randn(2, k, d, dtype=torch.float64, requires_grad=True)
    compare(states, lambda a, b: Outer(a, b), lambda a, b: a.unsqueeze(-1) * b.unsqueeze(-2), m0,
            "elementwise", form, chunk)


@pytest.mark.parametrize("T,k,d", SHAPES, ids=str)
@pytest.mark.parametrize("beta_kind", ["tensor", "number"])
@pytest.mark.parametrize("form,chunk", [f for f in FORMS if f[0] != "parallel"], ids=str)
def test_delta_rule_matches_the_dense_matrix_path(T, k, d, beta_kind, form, chunk):
    states = delta_states(T, k, d, beta_kind=beta_kind)
    m0 = torch.randn(2, k, d, dtype=torch.float64, requires_grad=True)

    def householder(keys, beta):
        beta = torch.as_tensor(beta, dtype=keys.dtype)
        beta = beta.unsqueeze(-1) if beta.ndim else beta
        return torch.eye(keys.shape[-1], dtype=keys.dtype) - (beta * keys).unsqueeze(-1) * keys.unsqueeze(-2)
    compare(states, lambda a, b: DeltaRule(a, b), householder, m0, "matrix", form, chunk)


def test_dense_of_a_normalized_delta_rule_is_the_householder_like_matrix():
    keys = torch.randn(3, 4, dtype=torch.float64)
    beta = torch.rand(3, dtype=torch.float64)
    inp = prepare(torch.randn(3, 2, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64),
                  DeltaRule(keys, beta), torch.randn(3, 4, dtype=torch.float64), "matrix")
    expected = torch.eye(4, dtype=torch.float64) - beta[:, None, None] * keys[:, :, None] * keys[:, None, :]
    assert_close(dense(inp.o), expected, "I − β k kᵀ")


@pytest.mark.parametrize("o,psi,needle", [
    (lambda: Outer(torch.rand(2, 5, 4), torch.rand(2, 5, 3)), "elementwise", "Outer.k_part"),
    (lambda: Outer(torch.rand(2, 5, 3), torch.rand(2, 4, 6)), "elementwise", "Outer.d_part"),
    (lambda: Outer(torch.rand(2, 5, 3), torch.rand(2, 5, 6)), "matrix", "psi='elementwise'"),
    (lambda: DeltaRule(torch.rand(2, 5, 3)), "elementwise", "psi='matrix'"),
    (lambda: DeltaRule(torch.rand(2, 5, 4)), "matrix", "DeltaRule.k"),
    (lambda: DeltaRule(torch.rand(2, 5, 3), torch.rand(2, 4)), "matrix", "DeltaRule.beta"),
    (lambda: DeltaRule(torch.rand(2, 5, 3), "big"), "matrix", "DeltaRule.beta"),
    (lambda: DeltaRule(torch.ones(2, 5, 3, dtype=torch.long)), "matrix", "DeltaRule.k"),
])
def test_bad_factors_are_named(o, psi, needle):
    with pytest.raises(ValueError, match=needle.replace("(", r"\(").replace("'", "'")):
        eos_scan(torch.randn(2, 5, 6), torch.randn(2, 5, 3), o(), torch.randn(2, 5, 3), psi=psi)

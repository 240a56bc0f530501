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


def test_the_chunked_form_never_builds_the_dense_oscillation_of_an_outer_or_a_delta_rule(monkeypatch):
    from lcsm_core.scan import blocks, chunked, structured
    refuse = lambda *a, **k: pytest.fail("the chunked form built a dense o or an O(C²·k) decay")
    monkeypatch.setattr(structured, "dense", refuse)
    monkeypatch.setattr(chunked, "decay_matrix", refuse)
    monkeypatch.setattr(blocks, "decay_matrix", refuse)
    i, e, a, b, s = outer_states(70, 5, 7, "per-step")
    eos_scan(i, e, Outer(a, b), s, form="chunked", chunk_size=16)
    i, e, keys, beta, s = delta_states(70, 5, 7)
    eos_scan(i, e, DeltaRule(keys, beta), s, psi="matrix", form="chunked", chunk_size=16)


@pytest.mark.parametrize("structured_o", [True, False], ids=["outer", "k-vector"])
def test_a_fast_forgetting_row_halves_the_block_instead_of_expanding_the_decays(structured_o, monkeypatch):
    """float32, a row decaying by e^-0.96 per step (the codes' gates at k = 128 start there): 64 steps are
    61 nats, past float32's safe range; the block is halved to 32, still exact, with no O(C²·k) decay."""
    from lcsm_core.scan import chunked, chunked_factors
    monkeypatch.setattr(chunked, "decay_matrix", lambda *a, **k: pytest.fail("fell back to the exact decays"))
    g = _gen(3)
    T, k, d = 200, 6, 5
    rate = torch.full((1, T, k), 0.5)
    rate[..., 0] = 0.96
    k_part = torch.exp(-rate)
    d_part = 0.9 + 0.1 * torch.rand(1, T, d, generator=g)
    i, e, s = torch.randn(1, T, d, generator=g), torch.randn(1, T, k, generator=g), torch.randn(1, T, k, generator=g)
    o = Outer(k_part, d_part) if structured_o else k_part.unsqueeze(-1)
    o_dense = k_part.unsqueeze(-1) * (d_part.unsqueeze(-2) if structured_o else 1)
    found = chunked_factors.block_log_decays(torch.log(k_part), None, T, 64)
    assert found is not None and found[0] == 32
    y, m = eos_scan(i, e, o, s, form="chunked", chunk_size=64, return_state=True)
    y_ref, m_ref = eos_scan(i.double(), e.double(), o_dense.double(), s.double(), return_state=True)
    torch.testing.assert_close(y.double(), y_ref, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(m.double(), m_ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("factor", ["zero", "negative"])
def test_an_outer_with_zero_or_negative_factors_takes_the_exact_path(factor):
    i, e, a, b, s = outer_states(37, 4, 3, "per-step")
    a = a.clone()
    a[:, 5, 1] = 0.0 if factor == "zero" else -0.7
    y, m = eos_scan(i, e, Outer(a, b), s, form="chunked", chunk_size=16, return_state=True)
    y_ref, m_ref = eos_scan(i, e, a.unsqueeze(-1) * b.unsqueeze(-2), s, return_state=True)
    assert_close(y, y_ref, "y")
    assert_close(m, m_ref, "final memory")


@pytest.mark.parametrize("name", ["deltanet", "m1", "m2"])
def test_the_online_learners_give_the_dense_matrix_path_s_outputs(name):
    from lcsm_core import build_layer
    torch.manual_seed(0)
    layer = build_layer(name, 12, 8).double()
    x = torch.randn(2, 40, 12, dtype=torch.float64)
    st = layer.states(x)
    assert isinstance(st.scan_o, DeltaRule)
    y_dense = eos_scan(st.i, st.e, st.o, st.s, psi="matrix")                  # st.o: the dense I − β k kᵀ
    layer.form = "chunked"
    assert_close(layer.mix(x), y_dense, "y (chunked WY)")
    layer.form = "recurrent"
    assert_close(layer.mix(x), y_dense, "y (recurrent, by the factors)")

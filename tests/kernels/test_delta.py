"""Structured delta-rule kernels (o_t = I − β_t w_t w_tᵀ given as (w_t, β_t)): output, final state and every
gradient against a local fp64 step loop, on awkward shapes, fp32 and bf16, both the fused recurrent and the
chunked WY form; the loop itself against the dense k×k path of eos_scan (psi="matrix")."""
import pytest
import torch

from lcsm_core import eos_scan
from tests.closeness import assert_close

kernels = pytest.importorskip("lcsm_explorer.kernels")
from lcsm_explorer.kernels.delta import run_delta  # noqa: E402

NAMES = ("i", "e", "w", "beta", "s", "m0")


def delta_loop(i, e, w, beta, s, m0=None):
    """The readable reference: m ← m − β w (wᵀ m) + e iᵀ, y = mᵀ s, one step at a time."""
    B, T, D = i.shape
    m = torch.zeros(B, w.shape[-1], D, dtype=i.dtype) if m0 is None else m0
    ys = []
    for t in range(T):
        wt = w[:, t, :, None]
        m = m - beta[:, t, None, None] * wt * (wt.transpose(1, 2) @ m) + e[:, t, :, None] * i[:, t, None, :]
        ys.append((m * s[:, t, :, None]).sum(1))
    return torch.stack(ys, 1), m


def delta_states(B, T, k, d, *, dtype=torch.float32, m0=True, seed=0):
    g = torch.Generator().manual_seed(seed)
    i = torch.randn(B, T, d, generator=g)
    w = torch.nn.functional.normalize(torch.randn(B, T, k, generator=g), dim=-1)
    beta = torch.rand(B, T, generator=g)
    e = torch.randn(B, T, k, generator=g) / k ** 0.5       # a free expand state (DeltaNet's is β w)
    s = torch.randn(B, T, k, generator=g)
    m = torch.randn(B, k, d, generator=g) if m0 else None
    return [x if x is None else x.to(dtype) for x in (i, e, w, beta, s, m)]


def outputs_and_grads(fn, states, seed=1):
    leaves = [None if x is None else x.detach().clone().requires_grad_() for x in states]
    y, m = fn(*leaves)
    g = torch.Generator().manual_seed(seed)
    gy, gm = torch.randn(y.shape, generator=g).to(y.dtype), torch.randn(m.shape, generator=g).to(m.dtype)
    used = [x for x in leaves if x is not None]
    it = iter(torch.autograd.grad((y, m), used, (gy, gm)))
    return y, m, [None if x is None else next(it) for x in leaves]


def check(fn, states, dtype):
    y, m, grads = outputs_and_grads(fn, states)
    y_ref, m_ref, g_ref = outputs_and_grads(delta_loop, [None if x is None else x.double() for x in states])
    assert_close(y, y_ref, "y", precision=dtype)
    assert_close(m, m_ref, "m_T", precision=dtype)
    for name, a, b, x in zip(NAMES, grads, g_ref, states):
        if x is not None:
            assert a.dtype == x.dtype, f"grad {name}: dtype {a.dtype} != input {x.dtype}"
            assert_close(a, b, f"grad {name}", precision=dtype)


BF16 = torch.bfloat16
CASES = [   # (B, T, k, d, dtype, m0)
    pytest.param(2, 37, 5, 7, torch.float32, True, id="B2-T37-k5-d7"),
    pytest.param(1, 70, 5, 40, torch.float32, True, id="B1-T70-k5-d40"),      # three d-blocks, two chunks
    pytest.param(2, 1, 3, 7, torch.float32, False, id="B2-T1-k3-d7-no_m0"),
    pytest.param(1, 130, 20, 7, torch.float32, True, id="B1-T130-k20-d7"),    # three chunks, k past one block
    pytest.param(1, 37, 5, 7, BF16, True, id="B1-T37-k5-d7-bfloat16"),
    pytest.param(2, 1, 3, 7, BF16, False, id="B2-T1-k3-d7-no_m0-bfloat16"),   # bf16 at every awkward T
    pytest.param(1, 70, 5, 40, BF16, True, id="B1-T70-k5-d40-bfloat16"),
    pytest.param(1, 130, 20, 7, BF16, True, id="B1-T130-k20-d7-bfloat16"),
]


@pytest.mark.parametrize("impl", ["chunk", "fused_recurrent"])
@pytest.mark.parametrize("B, T, k, d, dtype, m0", CASES)
def test_delta_kernel_matches_the_fp64_loop(impl, B, T, k, d, dtype, m0):
    states = delta_states(B, T, k, d, dtype=dtype, m0=m0)
    check(lambda i, e, w, beta, s, m0: run_delta(i, e, w, beta, s, m0, impl=impl), states, dtype)


def test_delta_fused_checkpoint_interval():
    """Memories saved every 5 steps, T = 12: a short last segment in the recomputing backward."""
    states = delta_states(1, 12, 3, 5)
    check(lambda i, e, w, beta, s, m0: run_delta(i, e, w, beta, s, m0, impl="fused_recurrent", checkpoint=5),
          states, torch.float32)


def test_delta_loop_is_the_dense_matrix_scan():
    """The local loop is the EOS recurrence with the dense oscillation o_t = I − β_t w_t w_tᵀ (psi='matrix')."""
    i, e, w, beta, s, m0 = [x.double() for x in delta_states(2, 20, 4, 6)]
    o = torch.eye(4, dtype=torch.float64) - beta[..., None, None] * w[..., :, None] * w[..., None, :]
    y_ref, m_ref = eos_scan(i, e, o, s, psi="matrix", form="recurrent", initial_state=m0, return_state=True)
    y, m = delta_loop(i, e, w, beta, s, m0)
    assert_close(y, y_ref, "y", precision=torch.float64)
    assert_close(m, m_ref, "m_T", precision=torch.float64)


@pytest.mark.parametrize("impl", ["chunk", "fused_recurrent"])
def test_structured_kernels_match_the_dense_matrix_kernel(impl):
    """The structured kernels against the dense path they replace: the fused recurrent matrix kernel reading
    o_t = I − β_t w_t w_tᵀ as a k×k matrix per step (T = 70: two chunks); outputs, final state and the gradients
    of i, e, w, β, s, m0 (through the dense o by autograd) agree to fp32 round-off."""
    from lcsm_core.scan import kernel as adapter

    def dense(i, e, w, beta, s, m0):
        o = torch.eye(w.shape[-1]) - beta[..., None, None] * w[..., :, None] * w[..., None, :]
        return adapter.fused_recurrent_eos_matrix(i, e, o, s, initial_state=m0)

    states = delta_states(1, 70, 5, 7, seed=3)
    y, m, grads = outputs_and_grads(lambda *x: run_delta(*x, impl=impl), states)
    y_d, m_d, grads_d = outputs_and_grads(dense, states)
    assert_close(y, y_d.double(), "y", precision=torch.float32)
    assert_close(m, m_d.double(), "m_T", precision=torch.float32)
    for name, a, b in zip(NAMES, grads, grads_d):
        assert_close(a, b.double(), f"grad {name}", precision=torch.float32)


def test_sequences_past_the_int32_row_offsets_are_refused_in_words():
    """T · width ≥ 2³¹ would overflow the chunk kernels' int32 tile offsets: a clear error, not wrong numbers."""
    from lcsm_explorer.kernels.utils import check_offsets
    check_offsets(2 ** 24, 127)
    with pytest.raises(ValueError, match="int32 row offsets"):
        check_offsets(2 ** 24, 128, 64)


def test_delta_kernel_refuses_a_bad_impl_and_complex_states():
    states = delta_states(1, 3, 2, 4)
    with pytest.raises(ValueError, match="impl"):
        run_delta(*states, impl="parallel")
    states[0] = states[0].to(torch.complex64)
    with pytest.raises(ValueError, match="real states only"):
        run_delta(*states)


@pytest.mark.parametrize("impl", ["chunk", "fused_recurrent"])
def test_eos_scan_delta_rule_reaches_the_structured_kernels(impl, monkeypatch):
    """eos_scan(DeltaRule(k, β), psi='matrix', form='kernel') runs kernels.run_delta (no k×k tensor), with leading
    dims, a static β and the other forms' dtype and shapes; values and gradients match the fp64 reference."""
    from lcsm_core.scan import kernel as adapter
    from lcsm_core.scan.structured import DeltaRule
    calls = []
    real = kernels.run_delta
    monkeypatch.setattr(kernels, "run_delta", lambda *a, **kw: calls.append(kw["impl"]) or real(*a, **kw))
    monkeypatch.setattr(adapter, "scan_kernel_delta",
                        lambda inp, m0, _f=adapter.scan_kernel_delta: _f(inp, m0, impl=impl))
    g = torch.Generator().manual_seed(7)
    i, e, s = torch.randn(2, 3, 20, 7, generator=g), torch.randn(2, 3, 20, 5, generator=g) / 3, torch.randn(
        2, 3, 20, 5, generator=g)
    keys = torch.nn.functional.normalize(torch.randn(3, 20, 5, generator=g), dim=-1)   # shared over dim 0
    beta = torch.tensor(0.7)
    m0 = torch.randn(2, 3, 5, 7, generator=g)

    def run(form, dt):
        leaves = [x.to(dt).requires_grad_() for x in (i, e, keys, s, m0)]
        y, m = eos_scan(leaves[0], leaves[1], DeltaRule(leaves[2], beta.to(dt)), leaves[3], psi="matrix",
                        form=form, initial_state=leaves[4], return_state=True)
        out = torch.autograd.grad((y.square().sum() + m.sum()), leaves)
        return [y, m, *out]

    got, want = run("kernel", torch.float32), run("recurrent", torch.float64)
    assert calls == [impl]
    for name, a, b in zip(("y", "m_T", "di", "de", "dk", "ds", "dm0"), got, want):
        assert a.dtype == torch.float32, name
        assert_close(a, b, name, precision=torch.float32, scale=10)


def test_chunked_forward_takes_the_wy_backward(monkeypatch):
    """After the chunked forward the gradients come from the chunked WY backward (delta_wy.py), not the
    recurrent walk of the fused form."""
    import lcsm_explorer.kernels.delta as delta

    def refuse(*args, **kwargs):
        raise AssertionError("the chunked forward fell back to the recurrent backward")

    monkeypatch.setattr(delta, "delta_bwd", refuse)
    states = delta_states(1, 70, 5, 7)
    check(lambda i, e, w, beta, s, m0: run_delta(i, e, w, beta, s, m0, impl="chunk"), states, torch.float32)

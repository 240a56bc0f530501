"""Oscillations kept in their structure on the training path: a static k×d o (model code 0: 0-0-0-0, 1-0-1-0) is
one (k, d) tensor for the whole batch and every step (scan/chunked_static.py), DUR's g ḡᵀ an Outer, M3's
I − Diag{k_t} a Diagonal. Each equals the readable reference in fp64 — values, final state, every gradient —
and a training step never builds a (B, T, k, d) decay (or M3's (B, T, k, k) matrix)."""
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from lcsm_core import build_layer, build_layer_from_code, eos_scan
from lcsm_core.scan import Diagonal, chunked_static, prepare
from lcsm_core.training.config import ModelConfig
from lcsm_core.training.model import SequenceModel
from tests.closeness import assert_close

SHAPES = [(1, 4, 3), (37, 5, 7), (70, 7, 5), (130, 4, 4)]           # (T, k, d)


def static_states(T, k, d, kind, batch=(3,), seed=0):
    """i, e, o, s, m0 in fp64, all requiring grad; o one (k, d) tensor (or one per sequence for "per-sequence")."""
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)
    o = 0.3 + 0.65 * torch.rand(k, d, generator=g, dtype=torch.float64)
    if kind == "signed":                                               # zeros and negative reals: no log path
        o[0, 0], o[-1, :] = 0.0, -o[-1, :]
    elif kind == "growing":                                            # |o| > 1 somewhere: the recurrence's growth
        o[0, :] = 1.02
    elif kind == "complex":
        o = torch.polar(o, 3 * torch.rand(k, d, generator=g, dtype=torch.float64))
    elif kind == "per-sequence":                                       # (batch[0], 1, 1, k, d): one o per head
        o = 0.3 + 0.65 * torch.rand(batch[0], 1, 1, k, d, generator=g, dtype=torch.float64)
    m0 = r(*batch, k, d).to(o.dtype)
    return [x.requires_grad_() for x in (r(*batch, T, d), r(*batch, T, k), o, r(*batch, T, k), m0)]


def loss_of(y, m):
    return (y * torch.linspace(-1, 1, y.shape[-1], dtype=y.dtype)).sum() + (m.abs() ** 2).sum()


def run(leaves, **kw):
    i, e, o, s, m0 = leaves
    y, m = eos_scan(i, e, o, s, initial_state=m0, return_state=True, **kw)
    return [y, m, *torch.autograd.grad(loss_of(y, m), leaves)]


NAMES = ["y", "final memory", "grad i", "grad e", "grad o (summed over batch and time)", "grad s", "grad m0"]


def assert_same_as_reference(leaves, **kw):
    want = run(leaves)                                                 # the recurrent reference, autograd
    got = run(leaves, **kw)
    for name, a, b in zip(NAMES, got, want):
        assert_close(a, b, name, scale=1 if name in NAMES[:2] else 100)


@pytest.mark.parametrize("T,k,d", SHAPES, ids=str)
@pytest.mark.parametrize("kind", ["real", "signed", "growing", "complex", "per-sequence"])
@pytest.mark.parametrize("chunk", [1, 16, 64])
def test_a_static_kxd_oscillation_equals_the_reference(T, k, d, kind, chunk):
    batch = (2, 3) if kind == "per-sequence" else (3,)
    assert_same_as_reference(static_states(T, k, d, kind, batch), form="chunked", chunk_size=chunk)


@pytest.mark.parametrize("kind", ["real", "complex", "per-sequence"])
def test_groups_of_sequences_give_the_same_scan(kind, monkeypatch):
    """Groups of one and of two sequences (the last one short): what the cache-sized groups do at B = 64."""
    for sequences in (1, 2):
        item = 16 if kind == "complex" else 8
        monkeypatch.setattr(chunked_static, "GROUP_BYTES", sequences * 6 * 5 * item)
        batch = (5, 1) if kind == "per-sequence" else (5,)
        assert_same_as_reference(static_states(37, 6, 5, kind, batch), form="chunked", chunk_size=16)


def test_the_static_form_passes_gradcheck():
    i, e, o, s, m0 = static_states(9, 3, 4, "real", (2,))

    def f(i, e, o, s, m0):
        return eos_scan(i, e, o, s, form="chunked", chunk_size=4, initial_state=m0, return_state=True)
    assert torch.autograd.gradcheck(f, (i, e, o, s, m0))


def test_a_static_oscillation_with_no_initial_state_and_only_the_final_memory_used():
    i, e, o, s, _ = static_states(37, 5, 7, "real")
    for form in ("recurrent", "chunked"):
        _, m = eos_scan(i, e, o, s, form=form, chunk_size=16, return_state=True)
        grads = torch.autograd.grad(m.square().sum(), (i, e, o, s), materialize_grads=True)   # s: zero
        if form == "recurrent":
            want = (m, *grads)
        else:
            for name, a, b in zip(["final memory", "grad i", "grad e", "grad o", "grad s"], (m, *grads), want):
                assert_close(a, b, name, scale=100)


@pytest.mark.parametrize("code", ["0-0-0-0", "1-0-1-0", "0-0-1-2"])
def test_codes_with_a_static_decay_train_as_the_reference_does(code):
    """The layer's forward and every parameter gradient (rate_kd's summed over batch and time) with form="auto"
    (the static chunked form) equal the recurrent reference's."""
    torch.manual_seed(0)
    layer = build_layer_from_code(code, 12, 8).double()
    assert tuple(layer.states(torch.randn(1, 3, 12, dtype=torch.float64)).scan_o.shape) == (8, 12)
    x = torch.randn(3, 70, 12, dtype=torch.float64)
    outputs = {}
    for form in ("recurrent", "auto"):
        layer.form = form
        layer.zero_grad()
        y = layer(x)
        loss_of(y, torch.zeros(())).backward()
        outputs[form] = [y] + [p.grad.clone() for p in layer.parameters()]
    names = ["y"] + [f"grad {n}" for n, _ in layer.named_parameters()]
    for name, a, b in zip(names, outputs["auto"], outputs["recurrent"]):
        assert_close(a, b, name, scale=1 if name == "y" else 100)


@pytest.mark.parametrize("name", ["dur", "m3"])
@pytest.mark.parametrize("form", ["recurrent", "chunked", "auto"])
def test_dur_and_m3_give_the_dense_oscillation_s_outputs_and_gradients(name, form):
    """DUR hands Outer(g, ḡ), M3 Diagonal(1 − k): the same y and gradients (x and every parameter) as the dense
    g ḡᵀ (B, T, k, d) and diag(1 − k) (B, T, k, k) they stand for, through the recurrent reference."""
    torch.manual_seed(0)
    layer = build_layer(name, 12, 8).double()
    x = torch.randn(2, 45, 12, dtype=torch.float64, requires_grad=True)
    params = [x, *layer.parameters()]
    st = layer.states(x)
    assert type(st.scan_o).__name__ == {"dur": "Outer", "m3": "Diagonal"}[name]
    y_dense = eos_scan(st.i, st.e, st.o, st.s, psi=st.psi)                 # st.o: the dense view
    grad = lambda y: torch.autograd.grad(loss_of(y, torch.zeros(())), params, materialize_grads=True)  # out_proj: 0
    want = [y_dense, *grad(y_dense)]
    layer.form = form
    y = layer.mix(x)
    got = [y, *grad(y)]
    for n, (a, b) in enumerate(zip(got, want)):
        assert_close(a, b, "y" if n == 0 else f"grad {n}", scale=1 if n == 0 else 100)


@pytest.mark.parametrize("values_kind", ["per-step", "static"])
@pytest.mark.parametrize("form", ["recurrent", "chunked", "parallel", "auto"])
def test_a_diagonal_equals_its_matrix(values_kind, form):
    g = torch.Generator().manual_seed(1)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64).requires_grad_()
    T, k, d = 37, 5, 7
    values = (0.5 + 0.5 * torch.rand(*((2, T, k) if values_kind == "per-step" else (k,)), generator=g,
                                     dtype=torch.float64)).requires_grad_()
    i, e, s, m0 = r(2, T, d), r(2, T, k), r(2, T, k), r(2, k, d)
    leaves = [i, e, values, s, m0]

    def scan(o, **kw):
        y, m = eos_scan(i, e, o, s, psi="matrix", initial_state=m0, return_state=True, **kw)
        return [y, m, *torch.autograd.grad(loss_of(y, m), leaves)]
    want = scan(torch.diag_embed(values))
    got = scan(Diagonal(values), form=form, chunk_size=16)
    for n, (a, b) in enumerate(zip(got, want)):
        assert_close(a, b, NAMES[n], scale=1 if n < 2 else 100)


@pytest.mark.parametrize("o,psi,needle", [
    (lambda: Diagonal(torch.rand(2, 5, 3)), "elementwise", "psi='matrix'"),
    (lambda: Diagonal(torch.rand(2, 5, 4)), "matrix", "Diagonal.values"),
    (lambda: Diagonal(torch.rand(2, 4, 3)), "matrix", "Diagonal.values"),
    (lambda: Diagonal(torch.ones(2, 5, 3, dtype=torch.long)), "matrix", "Diagonal.values"),
])
def test_a_bad_diagonal_is_named(o, psi, needle):
    with pytest.raises(ValueError, match=needle.replace("(", r"\(")):
        eos_scan(torch.randn(2, 5, 6), torch.randn(2, 5, 3), o(), torch.randn(2, 5, 3), psi=psi)


def test_a_diagonal_reaches_the_forms_as_the_k_vector_it_equals():
    values = torch.rand(2, 5, 3)
    inp = prepare(torch.randn(2, 5, 6), torch.randn(2, 5, 3), Diagonal(values), torch.randn(2, 5, 3), "matrix")
    assert inp.psi == "elementwise" and inp.structure == "dense" and tuple(inp.o.shape) == (2, 5, 3, 1)


class LargestTensors(TorchDispatchMode):
    """Records the shape of every tensor an op returns (forward, autograd's backward, the optimizer)."""

    def __init__(self):
        super().__init__()
        self.shapes = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor):
                self.shapes.append((str(func), tuple(t.shape), t.numel()))
        return out


def training_step_tensors(layer: dict, B: int, T: int, d: int, k: int) -> LargestTensors:
    torch.manual_seed(0)
    model = SequenceModel(ModelConfig(**layer, d_model=d, expand_dim=k, n_layers=1), 16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, 16, (B, T))
    with LargestTensors() as seen:
        loss = torch.nn.functional.cross_entropy(model(tokens).flatten(0, 1), tokens.flatten())
        loss.backward()
        optimizer.step()
    return seen


# B·T·k·d = 3 145 728 numbers. The largest other tensors are far smaller: the MLP's B·T·4d (6 %), the static
# form's recomputed block, (C + 1) memories of one group of sequences (C = 64, the layers' block; 25 %).
B, T, D, K = 3, 256, 64, 64
LAYERS = [dict(code="0-0-0-0"), dict(code="1-0-1-0"), dict(variant="dur"), dict(variant="m3")]


@pytest.mark.parametrize("layer", LAYERS, ids=str)
def test_a_training_step_never_builds_a_per_step_oscillation(layer):
    """No op of the forward, the backward or the optimizer step returns half of B·T·k·d numbers (B·T·k·k for
    M3): the decay reaches the scan as one (k, d) tensor, an Outer or a Diagonal, and stays that way inside it."""
    seen = training_step_tensors(layer, B, T, D, K)
    big = [(op, shape) for op, shape, n in seen.shapes if n >= B * T * K * D // 2]
    assert not big, big[:5]


def test_the_check_sees_a_per_step_oscillation_where_there_is_one():
    """The same check on a code with a data-dependent k×d gate (1-6-1-0), whose (B, T, k, d) o is its own."""
    seen = training_step_tensors(dict(code="1-6-1-0"), B, T, D, K)
    assert any(n >= B * T * K * D // 2 for _, _, n in seen.shapes)


def kept_for_backward(layer: dict, form: str) -> int:
    """Numbers the layer's scan keeps for its backward (distinct storages), its states computed outside."""
    torch.manual_seed(0)
    eos = build_layer_from_code(layer["code"], D, K) if "code" in layer else build_layer(layer["variant"], D, K)
    st = eos.states(torch.randn(B, T, D))
    storages = {}

    def pack(t):
        storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes() // t.element_size()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        eos_scan(st.i, st.e, st.scan_o, st.s, psi=st.psi, form=form, nonfinite="propagate")
    return sum(storages.values())


@pytest.mark.parametrize("layer", LAYERS, ids=str)
def test_the_scan_keeps_no_per_step_memory_for_its_backward(layer):
    """form="auto" keeps less than half of B·T·k·d numbers for the backward (the memories entering the blocks,
    the states, the blocks' factors), where the recurrent reference keeps every step's memory."""
    assert kept_for_backward(layer, "auto") < B * T * K * D // 2
    assert kept_for_backward(layer, "recurrent") >= B * T * K * D

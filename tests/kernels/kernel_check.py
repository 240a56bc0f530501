"""Shared by the kernel tests: random states and the fp64 reference
(`eos_scan(form="recurrent")`) with every gradient."""
from __future__ import annotations

import pytest
import torch

from lcsm_core import eos_scan
from tests.closeness import assert_close

NAMES = ("i", "e", "o", "s", "initial_state")


def make_states(B, T, k, d, o_shape, *, dtype=torch.float32, complex_o=False, complex_e=False,
                initial_state=True, lead=None, seed=0):
    """Random (i, e, o, s, m0) with |o| in [0.6, 1) so 70 steps neither vanish nor blow up."""
    g = torch.Generator().manual_seed(seed)
    lead = (B,) if lead is None else lead

    def rnd(*shape):
        return torch.randn(*shape, generator=g)

    i, e, s = rnd(*lead, T, d), rnd(*lead, T, k) / k ** 0.5, rnd(*lead, T, k)
    o = 0.6 + 0.4 * torch.rand(tuple(o_shape), generator=g)
    if complex_o:
        o = o * torch.exp(1j * 3.0 * torch.rand(tuple(o_shape), generator=g))
    if complex_e:
        e = torch.complex(e, rnd(*lead, T, k) / k ** 0.5)
    m0 = rnd(*lead, k, d) if initial_state else None
    if complex_o and m0 is not None:
        m0 = torch.complex(m0, rnd(*lead, k, d))

    def cast(x):
        if x is None:
            return None
        return x if x.is_complex() else x.to(dtype)

    return [cast(x) for x in (i, e, o, s, m0)]


def _grads(fn, states, seed=1):
    """(y, m_T, grads) of fn with a random upstream gradient on both y and m_T."""
    leaves = [None if x is None else x.detach().clone().requires_grad_() for x in states]
    y, m = fn(*leaves)
    g = torch.Generator().manual_seed(seed)
    gy = torch.randn(y.shape, generator=g).to(y.dtype)
    gm = torch.randn(m.shape, generator=g)
    if m.is_complex():
        gm = torch.complex(gm, torch.randn(m.shape, generator=g))
    gm = gm.to(m.dtype)
    used = [x for x in leaves if x is not None]
    grads = torch.autograd.grad((y, m), used, (gy, gm))
    it = iter(grads)
    return y, m, [None if x is None else next(it) for x in leaves]


def reference(states, psi="elementwise", o_map=None):
    """fp64 (complex128) reference outputs and gradients."""
    def up(x):
        if x is None:
            return None
        return x.detach().to(torch.complex128 if x.is_complex() else torch.float64)

    def fn(i, e, o, s, m0):
        o = o if o_map is None else o_map(o)
        return eos_scan(i, e, o, s, psi=psi, form="recurrent", initial_state=m0, return_state=True)

    return _grads(fn, [up(x) for x in states])


def check_against_reference(fn, states, psi="elementwise", dtype=torch.float32, o_map=None):
    """fn(i, e, o, s, m0) -> (y, m_T); compare y, m_T and every gradient with the fp64 reference.
    o_map: the states hold a parameter p and both sides scan with o = o_map(p)."""
    if o_map is not None:
        kernel_fn = fn
        fn = lambda i, e, p, s, m0: kernel_fn(i, e, o_map(p), s, m0)  # noqa: E731
    y, m, grads = _grads(fn, states)
    y_ref, m_ref, grads_ref = reference(states, psi, o_map)
    state_dtype = states[0].dtype
    for x in states[1:4]:
        state_dtype = torch.promote_types(state_dtype, x.dtype)
    assert m.dtype == state_dtype, f"m_T dtype {m.dtype} != state dtype {state_dtype}"
    assert y.dtype == m.real.dtype, f"y dtype {y.dtype} != {m.real.dtype}"
    assert_close(y, y_ref, "y", precision=dtype)
    assert_close(m, m_ref, "m_T", precision=dtype)
    for name, gk, gr, x in zip(NAMES, grads, grads_ref, states):
        if x is None:
            continue
        assert gk.dtype == x.dtype, f"grad {name}: dtype {gk.dtype} != input {x.dtype}"
        assert_close(gk, gr, f"grad {name}", precision=dtype)


def case(B, T, k, d, o_kind, *, complex_o=False, dtype=torch.float32, marks=(), **kw):
    """A pytest.param with a readable id like "B2-T37-k5-d7-kx1-complex"."""
    tag = "-complex" if complex_o else ""
    dt = "" if dtype == torch.float32 else "-" + str(dtype).removeprefix("torch.")
    extra = "".join(f"-{key}" if v is True else f"-{key}{v}" for key, v in kw.items() if v not in (False, None))
    return pytest.param(dict(B=B, T=T, k=k, d=d, o_kind=o_kind, complex_o=complex_o, dtype=dtype, **kw),
                        id=f"B{B}-T{T}-k{k}-d{d}-{o_kind}{tag}{dt}{extra}", marks=marks)


def o_shape(B, T, k, d, o_kind):
    """o_kind: 'kxd', 'kx1', '1xd', '1x1' per step; 'static-kxd', ... a shared parameter; 'scalar'."""
    static = o_kind.startswith("static-")
    kind = o_kind.removeprefix("static-")
    if kind == "scalar":
        return ()
    kk, dd = kind.split("x")
    shape = (k if kk == "k" else 1, d if dd == "d" else 1)
    return shape if static else (B, T, *shape)

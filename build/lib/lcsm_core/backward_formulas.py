"""Which printed backward formulas of the LCSM paper (appendix 5.1, eqs. 11–12) and
of the earlier note (marked "need check") hold, checked against autograd.

Notation as printed: f_t is the oscillation, dm_t the gradient reaching m_t.
`check(formula_id)` evaluates a formula — printed or corrected — on random fp64
data and returns the largest deviation from autograd; the test suite asserts that
`holds` agrees with that number, and the "Check the math" page shows the table.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Formula:
    id: str
    psi: str            # "elementwise" (Type 1) or "matrix" (Type 2)
    quantity: str
    printed: str        # LaTeX, as printed
    holds: bool
    corrected: str      # LaTeX of the correct formula (same as printed when it holds)
    note: str


FORMULAS: tuple[Formula, ...] = (
    Formula("t1-ds", "elementwise", "ds_t", r"\mathbf{ds}_t = \mathbf{m}_t\,\mathbf{dy}_t", True,
            r"\mathbf{ds}_t = \mathbf{m}_t\,\mathbf{dy}_t", "Holds (conjugate mₜ when complex)."),
    Formula("t1-dm", "elementwise", "dm_{t-1}",
            r"\mathbf{dm}_{t-1} = \mathbf{f}_t \odot \mathbf{dm}_t + \mathbf{s}_{t-1}\mathbf{dy}_{t-1}^\top", True,
            r"\mathbf{dm}_{t-1} = \mathbf{f}_t \odot \mathbf{dm}_t + \mathbf{s}_{t-1}\mathbf{dy}_{t-1}^\top",
            "Holds when dmₜ is the total gradient reaching mₜ, starting from s dyᵀ at the last step."),
    Formula("t1-df", "elementwise", "df_t",
            r"\mathbf{df}_t = \mathbf{dm}_t \odot \mathbf{m}_t \in \mathbb{R}^{k\times k}", False,
            r"\mathbf{df}_t = \mathbf{dm}_t \odot \mathbf{m}_{t-1} \in \mathbb{R}^{k\times d}",
            "Wrong: fₜ multiplies mₜ₋₁, not mₜ; and the shape is k×d (printed k×k)."),
    Formula("t1-de", "elementwise", "de_t", r"\mathbf{de}_t = \mathbf{dm}_t\,\mathbf{i}_t", True,
            r"\mathbf{de}_t = \mathbf{dm}_t\,\mathbf{i}_t", "Holds."),
    Formula("t1-di", "elementwise", "di_t", r"\mathbf{di}_t = \mathbf{dm}_t^\top \mathbf{e}_t", True,
            r"\mathbf{di}_t = \mathbf{dm}_t^\top \mathbf{e}_t", "Holds."),
    Formula("t2-ds", "matrix", "ds_t", r"\mathbf{ds}_t = \mathbf{m}_t\,\mathbf{dy}_t", True,
            r"\mathbf{ds}_t = \mathbf{m}_t\,\mathbf{dy}_t", "Holds."),
    Formula("t2-dm", "matrix", "dm_{t-1}",
            r"\mathbf{dm}_{t-1} = \mathbf{f}_t\,\mathbf{dm}_t + \mathbf{s}_{t-1}\mathbf{dy}_{t-1}^\top", False,
            r"\mathbf{dm}_{t-1} = \mathbf{f}_t^\top\,\mathbf{dm}_t + \mathbf{s}_{t-1}\mathbf{dy}_{t-1}^\top",
            "Wrong unless fₜ is symmetric: the gradient flows back through the transpose."),
    Formula("t2-df", "matrix", "df_t", r"\mathbf{df}_t = \mathbf{dm}_t\,\mathbf{m}_t^\top", False,
            r"\mathbf{df}_t = \mathbf{dm}_t\,\mathbf{m}_{t-1}^\top",
            "Wrong: fₜ multiplies mₜ₋₁, so its gradient pairs dmₜ with mₜ₋₁."),
    Formula("t2-de", "matrix", "de_t", r"\mathbf{de}_t = \mathbf{dm}_t\,\mathbf{i}_t", True,
            r"\mathbf{de}_t = \mathbf{dm}_t\,\mathbf{i}_t", "Holds."),
    Formula("t2-di", "matrix", "di_t", r"\mathbf{di}_t = \mathbf{dm}_t^\top \mathbf{e}_t", True,
            r"\mathbf{di}_t = \mathbf{dm}_t^\top \mathbf{e}_t", "Holds."),
)

BY_ID = {f.id: f for f in FORMULAS}


def _problem(psi: str, seed: int, T: int = 5, k: int = 3, d: int = 4):
    """Random states, the memories m_0..m_T, autograd gradients and the total dm_t."""
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)
    i, e, s, dy = r(T, d), r(T, k), r(T, k), r(T, d)
    f = (r(T, k, d) if psi == "elementwise" else r(T, k, k) * 0.5)
    leaves = [x.clone().requires_grad_() for x in (i, e, f, s)]
    li, le, lf, ls = leaves
    zeros = [torch.zeros(k, d, dtype=torch.float64, requires_grad=True) for _ in range(T)]
    m = torch.zeros(k, d, dtype=torch.float64)
    M = [m]
    ys = []
    for t in range(T):
        m = (lf[t] * m if psi == "elementwise" else lf[t] @ m) + torch.outer(le[t], li[t]) + zeros[t]
        M.append(m)
        ys.append(m.T @ ls[t])
    loss = (torch.stack(ys) * dy).sum()
    grads = torch.autograd.grad(loss, leaves + zeros)
    di, de, df, ds = grads[:4]
    dm = list(grads[4:])                     # total gradient reaching m_1..m_T
    M = [x.detach() for x in M]              # M[t] = m_t, M[0] = m_0 = 0
    return dict(i=i, e=e, f=f, s=s, dy=dy, M=M, dm=dm, di=di, de=de, df=df, ds=ds, T=T)


def _evaluate(formula_id: str, p: dict, corrected: bool) -> float:
    """Largest |formula − autograd| over t (t indexes 1..T as in the paper)."""
    M, dm, T = p["M"], p["dm"], p["T"]
    fid = formula_id.split("-")[1]
    matrix = formula_id.startswith("t2")
    err = 0.0
    for t in range(T):                       # python t = paper t − 1
        if fid == "ds":
            got, want = M[t + 1] @ p["dy"][t], p["ds"][t]
        elif fid == "de":
            got, want = dm[t] @ p["i"][t], p["de"][t]
        elif fid == "di":
            got, want = dm[t].T @ p["e"][t], p["di"][t]
        elif fid == "df":
            m_used = M[t] if corrected else M[t + 1]
            got = dm[t] @ m_used.T if matrix else dm[t] * m_used
            want = p["df"][t]
        elif fid == "dm":
            if t == 0:
                continue                     # dm_{t-1} for t = 1 is the gradient of m_0 = 0: not defined here
            f_t = p["f"][t]
            back = (f_t.T if corrected else f_t) @ dm[t] if matrix else f_t * dm[t]
            got = back + torch.outer(p["s"][t - 1], p["dy"][t - 1])
            want = dm[t - 1]
        else:
            raise ValueError(f"unknown formula {formula_id!r}")
        err = max(err, float((got - want).abs().max()))
    return err


def check(formula_id: str, *, corrected: bool = False, seed: int = 0) -> float:
    """Max deviation from autograd of the printed (or corrected) formula on random data."""
    if formula_id not in BY_ID:
        raise ValueError(f"unknown formula {formula_id!r}; choose from {sorted(BY_ID)}")
    return _evaluate(formula_id, _problem(BY_ID[formula_id].psi, seed), corrected)


def check_all(seed: int = 0, tol: float = 1e-9) -> list[dict]:
    """One row per formula: printed error, corrected error, and whether each holds."""
    rows = []
    for f in FORMULAS:
        printed_err = check(f.id, seed=seed)
        corrected_err = check(f.id, corrected=True, seed=seed)
        rows.append(dict(id=f.id, psi=f.psi, quantity=f.quantity, printed=f.printed, corrected=f.corrected,
                         recorded_holds=f.holds, printed_error=printed_err, printed_holds=printed_err < tol,
                         corrected_error=corrected_err, note=f.note))
    return rows

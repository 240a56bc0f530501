"""`Sweep.compute_many`: each swept page computes its preview family in one core call, and that family is the
page's own `compute` member by member — every chart it draws (to fp64 rounding), every metric and notice it
prints and every quantity its exercises check, at the defaults, after held moves and at every preset.

The core functions' own member-by-member tests are in tests/dynamics/test_families.py; the cost, in
benchmarks/family_cost.py.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from lcsm_explorer.app.kit.sweep import sweep_values
from lcsm_explorer.app.kit.sweep_figure import numbers
from lcsm_explorer.app.lessons import lesson

PAGES = ("spring", "discretize", "rings", "lru_stability", "propagation")
HELD_MOVES = {     # page → settings other than the swept one, moved (each a new family)
    "spring": [dict(k=2.0), dict(m=0.1, k=10.0, forcing="sine", freq=3.0), dict(forcing="pulse train", period=2.0)],
    "discretize": [dict(c=0.5), dict(input="sine", freq=0.8, c=2.0), dict(input="step", m=0.3, k=9.0)],
    "rings": [dict(r_min=0.2), dict(n=1024, phase=0.1, seed=7), dict(r_min=0.9999)],
    "lru_stability": [dict(seed=1), dict(lr=0.1, gamma=False)],
    "propagation": [dict(theta=30), dict(gap=10, length=30, theta=180), dict(gap=200, length=400)],
}
RTOL = 1e-9        # relative; quantities also 1e-12 absolute (an error of 6e-15 in one, exactly 0 in the other)


def same(a, b, where: str = "") -> None:
    """Figure dicts equal: numbers to RTOL of their array's peak, everything else exactly."""
    if isinstance(a, dict) and "bdata" in a or isinstance(b, dict) and "bdata" in b or isinstance(a, np.ndarray):
        x, y = (numbers(v) if isinstance(v, dict) else np.asarray(v) for v in (a, b))
        assert x.shape == y.shape, where
        if x.dtype.kind in "fc":
            scale = max(1.0, float(np.nanmax(np.abs(x), initial=0.0)))
            assert np.array_equal(np.isnan(x), np.isnan(y)), where
            # a chart's arrays may be sent as float32 (smaller payloads): rounding apart in fp64 can land one
            # float32 step apart there
            sent_as_f4 = any(isinstance(v, dict) and v.get("dtype") == "f4" for v in (a, b))
            tol = 2.0 ** -22 if sent_as_f4 else RTOL
            assert np.allclose(x, y, rtol=0, atol=tol * scale, equal_nan=True), where
        else:
            assert np.array_equal(x, y), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), where
        for key in a:
            same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list | tuple):
        assert isinstance(b, list | tuple) and len(a) == len(b), where
        for n, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{n}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == b or math.isclose(a, b, rel_tol=RTOL, abs_tol=RTOL), where
    else:
        assert a == b, where


def held_of(page: str, changes: dict) -> dict:
    spec = lesson(page)
    values = {**spec.settings.defaults, **changes}
    return {name: value for name, value in values.items() if name != spec.sweep.setting}


def cases():
    for page in PAGES:
        spec = lesson(page)
        yield pytest.param(page, {}, id=f"{page}-defaults")
        for n, changes in enumerate(HELD_MOVES[page]):
            yield pytest.param(page, changes, id=f"{page}-moved-{n}")
        for preset in spec.presets:
            yield pytest.param(page, dict(preset.values), id=f"{page}-preset-{preset.label.split()[-1]}")


def assert_family_is_the_page(page: str, changes: dict) -> None:
    spec = lesson(page)
    setting = spec.settings[spec.sweep.setting]
    held = held_of(page, changes)
    values = sweep_values(setting, spec.sweep, held)
    family = spec.sweep.compute_many(held, values)
    assert len(family) == len(values)
    for value, got in zip(values, family):
        v = {**held, setting.name: value}
        try:
            want = spec.compute(v)
        except ValueError:
            assert got is None, value
            continue
        assert got is not None, value
        where = f"{page} {setting.name}={value}"
        want_figs, got_figs = spec.figures(v, want), spec.figures(v, got)
        assert list(want_figs) == list(got_figs)
        for name in want_figs:
            same(got_figs[name].to_dict(), want_figs[name].to_dict(), f"{where} {name}")
        assert spec.metrics(v, got) == spec.metrics(v, want), where              # the page's text, exactly
        quantities = spec.quantities(v, want)
        for name, number in spec.quantities(v, got).items():
            assert math.isclose(number, quantities[name], rel_tol=RTOL, abs_tol=1e-12) or \
                number == quantities[name], f"{where} {name}"


@pytest.mark.parametrize("page, changes", list(cases()))
def test_the_batched_family_is_the_pages_own_compute_member_by_member(page, changes):
    assert_family_is_the_page(page, changes)


@pytest.mark.parametrize("page", PAGES)
def test_every_swept_page_declares_its_batch(page):
    assert lesson(page).sweep.compute_many is not None


def test_a_value_the_core_refuses_has_no_member():
    """Rings' r_max = 1 (a slider cannot send it, a hand-edited family could): None, as `compute` refuses it."""
    spec = lesson("rings")
    family = spec.sweep.compute_many(held_of("rings", {}), [0.9, 1.0])
    assert family[0] is not None and family[1] is None

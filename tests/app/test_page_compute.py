"""Lessons 1 and 2 compute their page by the batched core call for one value (the fast path); each keeps its
readable reference (`reference_compute`, what the snippet prints) and the two draw the same page — every chart to
fp64 rounding, every metric and notice exactly, every quantity the exercises check — at values off the preview's
grid, at the ends of the swept range, after held moves and at every preset; a setting the core refuses reaches
the page as the reference's message."""
from __future__ import annotations

import math

import pytest

from lcsm_explorer.app.lessons import lesson
from tests.app.test_sweep_batch import RTOL, same

OFF_GRID = {       # page → settings moved (each case: the defaults with these changes)
    "discretize": [dict(dt=0.11), dict(dt=0.02), dict(dt=2.0), dict(dt=0.37, input="sine", freq=4.95),
                   dict(dt=0.21, input="step", c=0.0), dict(dt=1.93, m=0.1, k=10.0, c=5.0),
                   dict(dt=0.5, c=2.0, m=1.0, k=1.0)],                         # c = 2√(mk): critically damped
    "spring": [dict(c=0.21), dict(c=0.0), dict(c=5.0), dict(c=-0.37), dict(c=2.0),   # critical damping at c = 2
               dict(c=0.33, m=0.1, k=10.0, forcing="sine", freq=3.0), dict(c=1.07, forcing="pulse train", period=2.0),
               dict(c=0.0, k=0.0)],
}


def cases():
    for page, moves in OFF_GRID.items():
        for n, changes in enumerate(moves):
            yield pytest.param(page, changes, id=f"{page}-{n}")
        for preset in lesson(page).presets:
            yield pytest.param(page, dict(preset.values), id=f"{page}-preset-{preset.label.split()[-1]}")


def values_of(page: str, changes: dict) -> dict | None:
    spec = lesson(page)
    values = {**spec.settings.defaults, **changes}
    for name, value in changes.items():                 # a case outside the settings' own ranges is not a page
        setting = spec.settings[name]
        if setting.widget == "slider" and not setting.low <= value <= setting.high:
            return None
    return values


@pytest.mark.parametrize("page, changes", list(cases()))
def test_the_pages_compute_draws_what_its_readable_reference_draws(page, changes):
    spec = lesson(page)
    v = values_of(page, changes)
    if v is None:
        pytest.skip(f"{changes} is outside {page}'s settings")
    module = __import__(f"lcsm_explorer.app.lessons.{page}", fromlist=["reference_compute"])
    want, got = module.reference_compute(v), spec.compute(v)
    want_figs, got_figs = spec.figures(v, want), spec.figures(v, got)
    assert list(want_figs) == list(got_figs)
    for name in want_figs:
        same(got_figs[name].to_dict(), want_figs[name].to_dict(), f"{page} {changes} {name}")
    assert spec.metrics(v, got) == spec.metrics(v, want)
    quantities = spec.quantities(v, want)
    for name, number in spec.quantities(v, got).items():
        assert math.isclose(number, quantities[name], rel_tol=RTOL, abs_tol=1e-12) or number == quantities[name], name


@pytest.mark.parametrize("page, refused", [("discretize", dict(input="pulse")), ("spring", dict(m=0.0))])
def test_settings_the_core_refuses_reach_the_page_in_the_references_words(page, refused):
    spec = lesson(page)
    v = {**spec.settings.defaults, **refused}
    module = __import__(f"lcsm_explorer.app.lessons.{page}", fromlist=["reference_compute"])
    with pytest.raises(ValueError) as reference:
        module.reference_compute(v)
    with pytest.raises(ValueError) as page_error:
        spec.compute(v)
    assert str(page_error.value) == str(reference.value)

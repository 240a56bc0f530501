"""Which charts a drag moves (`Sweep.figures`), checked both ways on every swept page: a chart left out of the
family looks the same at every value of the swept setting (or has its own ▶ animation, which never follows a drag),
and a chart in it changes somewhere over the family (else it should be left out: drawn once, not per member)."""
from __future__ import annotations

import json

import pytest

from lcsm_explorer.app.kit.chart_element import chart_spec
from lcsm_explorer.app.kit.sweep import sweep_values
from lcsm_explorer.app.lessons import lesson
from tests.app.test_sweep import SWEPT, held

SHORT = {"lru_stability": dict(steps=40)}          # a shorter training: the same charts, a fraction of the time


def drawn_over_family(page: str) -> tuple[list, list[dict]]:
    """The family's values and, per value, every chart of the page as the browser receives it."""
    spec = lesson(page)
    setting = spec.settings[spec.sweep.setting]
    base = held(page)
    values = sweep_values(setting, spec.sweep, base)
    if page in SHORT:
        values = [v for v in values if v <= SHORT[page]["steps"]] or values[:3]
    drawn = []
    for value in values:
        at = {**base, setting.name: value}
        drawn.append({name: chart_spec(fig).spec for name, fig in spec.figures(at, spec.compute(at)).items()})
    return values, drawn


@pytest.mark.parametrize("page", list(SWEPT))
def test_charts_left_out_of_the_family_do_not_move_and_the_others_do(page):
    spec = lesson(page)
    values, drawn = drawn_over_family(page)
    at = {**held(page), spec.sweep.setting: values[-1]}
    result = spec.compute(at)
    following = set(spec.sweep.figures(at, result) if spec.sweep.figures is not None else spec.chart_names())
    assert spec.sweep.chart in following, "the lead chart carries the drag slider"
    for chart in spec.chart_names():
        specs = [d[chart] for d in drawn]
        if chart in following:
            assert len(set(specs)) > 1, f"{page}: {chart} is the same at every member: leave it out of Sweep.figures"
        else:
            own_play = bool(json.loads(specs[-1]).get("frames"))
            assert own_play or len(set(specs)) == 1, f"{page}: {chart} changes with the swept setting"


@pytest.mark.parametrize("page", [p for p in SWEPT if lesson(p).sweep.figures is not None])
def test_the_family_draws_its_charts_as_the_page_does(page):
    """`Sweep.figures` is a part of the page's `figures`: the same charts, the same JSON."""
    spec = lesson(page)
    at = {**spec.settings.defaults, **held(page), **SHORT.get(page, {})}     # (held: all but the swept one)
    result = spec.compute(at)
    whole = {name: chart_spec(fig).spec for name, fig in spec.figures(at, result).items()}
    part = {name: chart_spec(fig).spec for name, fig in spec.sweep.figures(at, result).items()}
    assert part and all(part[name] == whole[name] for name in part)

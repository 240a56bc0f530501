"""A page's `Sweep.figures` made from shared parts (`PlainFigure`: discretize's zoom from the z-plane's traces,
propagation's heat maps drawn once per family with only the ★ moved) draws every member's charts as the page's own
`figures` does: the same JSON, chart by chart, at every value of the family, for two held settings in a row."""
from __future__ import annotations

import pytest

from app.kit.chart_element import PlainFigure, chart_spec, plain_figure
from app.kit.sweep import sweep_values
from app.lessons import lesson

HELD = {"discretize": [{}, {"c": 0.5, "input": "sine"}], "propagation": [{}, {"theta": 30, "length": 150}]}


@pytest.mark.parametrize("page", list(HELD))
def test_preview_figures_are_the_page_figures_at_every_member(page):
    spec = lesson(page)
    setting = spec.settings[spec.sweep.setting]
    for change in HELD[page]:
        held = {**spec.settings.defaults, **change}
        values = sweep_values(setting, spec.sweep, held)
        results = spec.sweep.compute_many(held, values)
        for value, result in zip(values, results):
            at = {**held, setting.name: value}
            whole = spec.figures(at, result)
            part = spec.sweep.figures(at, result)
            assert list(part) == list(whole), "every chart follows, in the page's order"
            for chart, fig in part.items():
                assert chart_spec(fig) == chart_spec(whole[chart]), (page, change, value, chart)
                assert plain_figure(fig) == plain_figure(whole[chart]), (page, change, value, chart)
            assert sum(isinstance(fig, PlainFigure) for fig in part.values()) == 2, "two charts made from shared parts"


def test_a_plain_figure_is_its_own_plain_figure_and_copies_on_to_dict():
    fig = PlainFigure(data=[{"x": [1]}], layout={})
    assert plain_figure(fig) is fig
    copied = fig.to_dict()
    copied["data"][0]["x"].append(2)
    assert fig["data"][0]["x"] == [1]

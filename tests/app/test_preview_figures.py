"""A page's `Sweep.figures` made from shared parts (`PlainFigure`: discretize's, rings' and LRU stability's charts
refilled into the first ones drawn (`Refiller`), discretize's zoom from the z-plane's traces, propagation's heat
maps drawn once per family with only the ★ moved) draws every member's charts as the page's own `figures` does: the
same JSON, chart by chart, at every value of the family, for held settings in a row."""
from __future__ import annotations

import numpy as np
import pytest

from lcsm_core.dynamics.discretize_comparison import INPUTS
from lcsm_explorer.app.kit.chart_element import PlainFigure, chart_spec, plain_figure, refilled
from lcsm_explorer.app.kit.figure_style import MAX_LINE_POINTS
from lcsm_explorer.app.kit.sweep import sweep_values
from lcsm_explorer.app.lessons import lesson

# discretize's charts are refilled into the first ones the process drew (`Refiller`): held settings in every corner
# (no damping, a stiff light spring, a heavy soft one, overdamped, every input), each after the others
HELD = {"discretize": [{}, {"c": 0.5, "input": "sine"}, {"c": 0.0}, {"m": 0.1, "k": 10.0, "c": 0.0},
                       {"m": 5.0, "k": 0.1, "c": 5.0}, {"m": 0.1, "k": 0.1, "c": 5.0},
                       *({"input": kind, "freq": 5.0} for kind in INPUTS)],
        "propagation": [{}, {"theta": 30, "length": 150}],
        # rings: one edge (r_min 0), r_min above most r_max (swapped), the PathX corner, the fewest and most λ
        "rings": [{}, {"r_min": 0.0}, {"r_min": 0.95}, {"r_min": 0.9999, "phase": 0.1}, {"n": 8, "seed": 3},
                  {"n": 1024, "r_min": 0.999}],
        # lru_stability: the defaults, a run that leaves the disk and diverges, no γ, a ring at the circle
        "lru_stability": [{}, {"lr": 0.3}, {"lr": 0.03, "gamma": False}, {"r_max": 0.9999, "seed": 7}]}
# charts made from shared parts or refilled (PlainFigure)
SHARED = {"discretize": 5, "propagation": 2, "rings": 3, "lru_stability": 2}


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
            assert sum(isinstance(fig, PlainFigure) for fig in part.values()) == SHARED[page]


def test_refilled_refuses_what_it_cannot_make_as_build_does():
    template = {"data": [{"type": "scatter", "mode": "lines", "x": [0, 1], "y": [0, 1]}], "layout": {}}
    with pytest.raises(ValueError, match="no"):
        refilled(template, [{"customdata": [1, 2]}], {})            # its place among the trace's keys is unknown
    long = np.arange(MAX_LINE_POINTS + 1.0)
    with pytest.raises(ValueError, match="thins"):
        refilled(template, [{"x": long, "y": long}], {})             # build would thin it
    made = refilled(template, [{"x": np.arange(20.0), "y": np.arange(20.0)}], {"height": 300})
    assert made["data"][0]["x"]["dtype"] == "f4" and made["layout"] == {"height": 300}   # compacted as build does
    assert made["data"][0]["mode"] == "lines" and template["data"][0]["x"] == [0, 1]    # the template unchanged


def test_a_plain_figure_is_its_own_plain_figure_and_copies_on_to_dict():
    fig = PlainFigure(data=[{"x": [1]}], layout={})
    assert plain_figure(fig) is fig
    copied = fig.to_dict()
    copied["data"][0]["x"].append(2)
    assert fig["data"][0]["x"] == [1]

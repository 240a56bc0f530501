"""`preview_specs` draws each chart of a drag preview from the page's figure dicts (`render.plain_charts`) instead of
reading back the plain page's JSON: the same JSON, chart by chart, as its readable twin `reference_preview`, for
every sweep page at its defaults and presets, on-grid and off-grid values, in the presenter's view too, with the
figures built validated (tests) and unvalidated (the server's way)."""
from __future__ import annotations

import pytest

from lcsm_explorer.app.kit import figure_style
from lcsm_explorer.app.kit.family import prepared
from lcsm_explorer.app.kit.preview import family_key, preview_specs, reference_preview
from lcsm_explorer.app.kit.render import chart_specs, freeze
from lcsm_explorer.app.kit.sweep import sweep_family, sweep_values
from lcsm_explorer.app.lessons import lesson
from tests.app.test_sweep import SWEPT

# held settings beyond the presets: a spring that runs away (c < 0: its frames fit their own axes)
HELD = {"spring": [{"c": 0.2, "k": 4.0}], "discretize": [{"c": 0.0}], "rings": [{"r_min": 0.95}],
        "lru_stability": [{"lr": 0.3}], "propagation": [{"theta": 30}]}


def held_cases(page: str) -> list[dict]:
    spec = lesson(page)
    return [dict(spec.settings.defaults), *(p.state(spec.settings) for p in spec.presets[:2]),
            *({**spec.settings.defaults, **change} for change in HELD[page])]


def swept_values(page: str, held: dict) -> list:
    spec = lesson(page)
    setting = spec.settings[spec.sweep.setting]
    grid = sweep_values(setting, spec.sweep, held)
    picked = [grid[0], grid[len(grid) // 2], grid[-1]]
    if setting.kind == "float":                         # off the grid: the browser makes that value's frame
        picked.append(round((grid[0] + grid[1]) / 2, 6))
    return picked


@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize("page", list(SWEPT))
def test_a_preview_drawn_from_the_figures_is_the_one_read_back_from_json(page, validate, monkeypatch):
    monkeypatch.setattr(figure_style, "VALIDATE", validate)
    chart_specs.clear()                                 # the reference's plain JSON made this way too
    spec = lesson(page)
    setting = spec.sweep.setting
    for held in held_cases(page):
        key = family_key(spec, freeze(held))
        family = prepared(spec, key[1], sweep_family(spec, dict(key[1])))
        for value in swept_values(page, held):
            frozen = freeze({**held, setting: value})
            for present in (False, True):
                fast = preview_specs.__wrapped__(page, frozen, present, spec, family)
                checked = reference_preview(page, frozen, present, spec, family)
                assert fast.link == checked.link
                assert list(fast.charts) == list(checked.charts)
                for chart in checked.charts:
                    assert fast.charts[chart] == checked.charts[chart], (page, held, value, present, chart)

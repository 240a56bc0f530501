"""A family as the web process keeps it (`app/kit/family.py:prepared`, made in the preview worker): the page link's
JSON text holds exactly the members' frames and readouts, and every chart drawn from the members' outline is the
chart drawn from the whole members (`sweep_figure.preview_figure`, the reference path)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from plotly.utils import PlotlyJSONEncoder

from lcsm_explorer.app.kit.family import Family, empty, encoded, prepared, resolved
from lcsm_explorer.app.kit.render import chart_specs, freeze
from lcsm_explorer.app.kit.sweep import sweep_family
from lcsm_explorer.app.kit.sweep_figure import chart_family, family_frames, member, preview_figure
from lcsm_explorer.app.lessons import lesson
from tests.app.test_sweep import MOVES, SWEPT, held


def family_at(page: str, **changes) -> tuple[list[dict], Family]:
    spec = lesson(page)
    fixed = held(page, **changes)
    members = sweep_family(spec, fixed)
    return members, prepared(spec, tuple(sorted(fixed.items())), members)


@pytest.mark.parametrize("page", list(SWEPT))
def test_the_links_text_is_the_members_frames_and_readouts(page):
    spec = lesson(page)
    members, family = family_at(page)
    sent = resolved(family.link["family"])                     # as page_link.js holds it
    assert (family.link["page"], family.link["lead"]) == (page, spec.sweep.chart)
    assert len(family.link["family_id"]) == 16
    assert sent["readouts"] == {m["name"]: m["readouts"] for m in members}
    assert spec.sweep.chart in sent["charts"]
    for chart, groups in sent["charts"].items():
        expected = [{"signature": g["signature"], "frames": g["frames"]}
                    for g in family_frames(chart_family(members, chart))]
        assert groups == json.loads(json.dumps(expected, default=lambda a: a.tolist())), chart
    for chart in set(spec.chart_names()) - set(sent["charts"]):     # ▶ play, or left out of the family
        family_of = chart_family(members, chart)
        assert not family_of or any(m["own_frames"] for m in family_of), chart


@pytest.mark.parametrize("page", list(SWEPT))
def test_the_outline_holds_no_frame_and_draws_every_chart_as_the_members_do(page):
    spec = lesson(page)
    setting = spec.settings[spec.sweep.setting]
    other, moved = MOVES[page]
    for changes in ({}, {other: moved}):
        members, family = family_at(page, **changes)
        assert all("frame" not in part and "readouts" not in m for m in family.members for part in m["charts"].values())
        values = {**spec.settings.defaults, **changes}
        for current_value in (values[setting.name], SWEPT[page][1]):
            at = {**values, setting.name: current_value}
            specs = chart_specs(page, freeze(at), False, spec)
            for chart, plain in specs.items():
                fig = json.loads(plain.spec)
                here = member(setting, current_value, fig)
                reference = preview_figure(fig, here, chart_family(members, chart), setting.label)
                outlined = preview_figure(fig, here, chart_family(list(family.members), chart), setting.label,
                                          groups=family.groups.get(chart, []))
                assert outlined == reference, (page, changes, current_value, chart)


def test_a_failed_family_is_empty():
    spec = lesson("spring")
    family = empty(spec, tuple(sorted(held("spring").items())))
    assert family.members == () and family.groups == {}
    assert json.loads(family.link["family"]) == {"charts": {}, "readouts": {}, "arrays": []}


def test_an_array_in_more_than_one_frame_is_sent_once():
    members, family = family_at("discretize")               # the z-plane and its zoom: the same traces
    text = family.link["family"]
    arrays = json.loads(text)["arrays"]
    assert arrays and len({a["bdata"] for a in arrays}) == len(arrays)
    assert all(a["bdata"] not in text.replace(a["bdata"], "", 1) for a in arrays[:20])   # each once in the text
    whole = resolved(text)
    assert whole["charts"]["z-plane-zoom"][0]["frames"][0]["data"] == whole["charts"]["z-plane"][0]["frames"][0]["data"]
    assert len(text) < 0.75 * len(encoded({"charts": whole["charts"], "readouts": whole["readouts"]}))


@pytest.mark.parametrize("value", [
    {"a": [1.5, 2, "NaN in a string"], "b": {"bdata": "AAAANaNAAAA=", "dtype": "f4"}},
    {"a": [float("nan"), float("inf"), -float("inf")], "b": None},
    {"a": np.float32(0.25), "b": np.arange(3), "c": np.int64(7), "d": [np.float64("nan")]},
])
def test_the_links_text_is_encoded_as_plotly_encodes(value):
    assert encoded(value) == json.dumps(value, cls=PlotlyJSONEncoder, separators=(",", ":"))


def test_a_training_cut_at_each_member_is_sent_as_the_start_of_the_longest_run():
    members, family = family_at("lru_stability")            # every member is the one training cut at its step
    sent = json.loads(family.link["family"])
    cuts = [value for groups in sent["charts"].values() for group in groups for frame in group["frames"]
            for trace in frame["data"] for value in trace.values() if isinstance(value, dict) and "length" in value]
    assert len(cuts) >= 13 * 6                              # loss, |λ| and both paths of all but the longest
    whole = resolved(family.link["family"])
    longest = whole["charts"]["loss"][0]["frames"][-1]["data"][0]["y"]
    assert whole["charts"]["loss"][0]["frames"][3]["data"][0]["y"]["bdata"] != longest["bdata"]
    # the eigenvalue paths of 15 members, equations too, and each member's chart words (summaries and data tables,
    # ~50 KiB: a cut at each member's step shares no column with another's)
    assert len(family.link["family"]) < 124 * 1024

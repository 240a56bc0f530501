"""A runaway member's frame fits its own data (issue 21, defect 2): dragging Spring's damping to c < 0 showed the
exploding response as vertical lines leaving the family's fixed axes. Now such a frame names that axis's range
fitted to its own data (and says so in its title), every other frame of its group names the family's range (plotly
keeps a frame's layout once applied, so a drag back must restore it), and the drawing at the current value has
the range its frame has. The frames still do not depend on the current value (`family_frames` takes none)."""
from __future__ import annotations

import numpy as np
import pytest

from lcsm_explorer.app.kit.sweep import sweep_family
from lcsm_explorer.app.kit.sweep_figure import (
    PAD,
    RANGED_MARGIN,
    chart_family,
    family_frames,
    fixed_ranges,
    held_frames,
    member,
    numbers,
    preview_figure,
)
from lcsm_explorer.app.lessons import lesson
from tests.app.test_sweep import held

RUNAWAY_NOTE = " · ⚠ "      # "Time response · ⚠ y-axis ×10⁶": c = −1 reaches 10⁶, the calm ones 1


@pytest.fixture(scope="module")
def spring_family():
    return sweep_family(lesson("spring"), held("spring"))


def frames_by_name(family: list[dict], chart: str) -> dict[str, dict]:
    (group,) = family_frames(chart_family(family, chart))
    return {frame["name"]: frame for frame in group["frames"]}


def drawn_at(c: float, chart: str, family: list[dict]) -> tuple[dict, dict]:
    """The chart drawn at damping `c` as the page draws it (the preview figure) and the plain figure it came from."""
    spec = lesson("spring")
    values = {**spec.settings.defaults, "c": c}
    plain = spec.figures(values, spec.compute(values))[chart].to_dict()
    setting = spec.settings["c"]
    return preview_figure(plain, member(setting, c, plain), chart_family(family, chart), setting.label), plain


def data_extent(fig: dict, axis: str) -> tuple[float, float]:
    """The finite data on the x or y axis of every trace drawn on the first axes (x, y)."""
    ref = axis[0]
    values = np.concatenate([numbers(t[ref]) for t in fig["data"]
                             if t.get(f"{ref}axis", ref) == ref and t.get(ref) is not None])
    values = values[np.isfinite(values)]
    return float(values.min()), float(values.max())


def title_text(layout: dict) -> str:
    title = layout.get("title") or {}
    return title.get("text", "") if isinstance(title, dict) else str(title)


@pytest.mark.parametrize("chart, axes", [("response", ["yaxis"]), ("phase", ["xaxis", "yaxis"]),
                                         ("energy", ["yaxis"])])
def test_a_runaway_frame_fits_its_own_data_and_every_other_frame_names_the_family_range(spring_family, chart, axes):
    frames = frames_by_name(spring_family, chart)
    for frame in frames.values():                       # all or none: a frame's range persists once applied
        assert sorted(k for k in frame["layout"] if k.endswith("axis") or k[-1].isdigit()) == axes, frame["name"]
    calm = frames["1"]["layout"]
    wild = frames["-1"]["layout"]
    drawn, plain = drawn_at(-1.0, chart, spring_family)
    for axis in axes:
        low, high = data_extent(plain, axis)
        assert high - low > 1e5, f"c = -1 no longer runs away on {chart}'s {axis}: the test needs another value"
        span = wild[axis]["range"]
        assert wild[axis]["autorange"] is False
        slack = 1e-6 * (high - low)                         # the members' data is what float32 shows
        assert span[0] <= low + slack and high - slack <= span[1], (axis, span, low, high)   # all of it in view
        assert span[1] - span[0] <= (high - low) * (1 + 2 * PAD) * 1.001        # and fitted to it, not wider
        assert span[0] < low - PAD / 2 * (high - low) and high + PAD / 2 * (high - low) < span[1], \
            (axis, "an end marker at the data's edge would be cut in half")       # padded on x as on y
        family_span = calm[axis]["range"]
        assert family_span[1] - family_span[0] < 1e3, (axis, family_span)        # the calm members' range
        for name, frame in frames.items():
            if float(name) >= 0:
                assert frame["layout"][axis]["range"] == family_span, (name, axis)
    assert RUNAWAY_NOTE in title_text(wild) and RUNAWAY_NOTE not in title_text(calm)
    assert title_text(wild).startswith(title_text(plain["layout"]))


def test_the_drawing_at_a_runaway_member_is_its_frame_and_at_a_calm_one_the_family_range(spring_family):
    frames = frames_by_name(spring_family, "response")
    wild, _ = drawn_at(-1.0, "response", spring_family)
    assert title_text(wild["layout"]) == "Time response · ⚠ y-axis ×10⁶"         # |x| passes 10⁶, the calm ones ±1
    assert wild["layout"]["yaxis"]["range"] == frames["-1"]["layout"]["yaxis"]["range"]
    assert title_text(wild["layout"]) == title_text(frames["-1"]["layout"])
    assert wild["layout"]["meta"]["lcsm"]["ranges"] == {"yaxis": wild["layout"]["yaxis"]["range"]}
    calm, _ = drawn_at(1.0, "response", spring_family)
    assert calm["layout"]["yaxis"]["range"] == frames["1"]["layout"]["yaxis"]["range"]
    assert title_text(calm["layout"]) == title_text(frames["1"]["layout"])
    # room for the widest tick labels from the start: plotly's animation does not redo the margins
    assert wild["layout"]["margin"]["l"] == calm["layout"]["margin"]["l"] == RANGED_MARGIN
    poles, plain = drawn_at(1.0, "poles", spring_family)
    assert poles["layout"].get("margin") == plain["layout"].get("margin")


def test_only_a_ranged_y_axis_at_the_left_edge_widens_the_margin():
    """Propagation's runaway panel (yaxis4) is the lower right one: its labels lie between the panels, and a wider
    margin only squeezed the phone's chart until its notes overlapped."""
    spec = lesson("propagation")
    values = spec.settings.defaults
    family = sweep_family(spec, held("propagation"))
    plain = spec.figures(values, spec.compute(values))["traces"].to_dict()
    setting = spec.settings[spec.sweep.setting]
    drawn = preview_figure(plain, member(setting, values[setting.name], plain), chart_family(family, "traces"),
                           setting.label)
    assert "yaxis4" in drawn["layout"]["meta"]["lcsm"]["ranges"]
    assert drawn["layout"]["margin"] == plain["layout"]["margin"]


def test_a_runaway_value_off_the_grid_is_fully_drawn_and_its_own_frame_keeps_its_range(spring_family):
    """c = −0.75 is no member: the browser makes its frame from the drawing (`own_frame`), which must name the
    drawn ranges, or a drag to a member and back would keep that member's."""
    drawn, plain = drawn_at(-0.75, "response", spring_family)
    low, high = data_extent(plain, "yaxis")
    span = drawn["layout"]["yaxis"]["range"]
    assert span[0] <= low + 1e-6 * (high - low) and high - 1e-6 * (high - low) <= span[1] and high - low > 1e3
    assert RUNAWAY_NOTE in title_text(drawn["layout"])
    held_fig = held_frames(drawn, chart_family(spring_family, "response"))
    own = held_fig["frames"][-1]
    assert own["name"] == "-0.75" and own["layout"]["yaxis"] == {"range": span, "autorange": False}
    assert title_text(own["layout"]) == title_text(drawn["layout"])


def test_charts_without_a_runaway_name_no_range_in_their_frames(spring_family):
    """The s-plane's range is declared per member and never runs away: its frames stay as they were (smaller)."""
    for frame in frames_by_name(spring_family, "poles").values():
        assert not [key for key in frame["layout"] if key.endswith("axis")], frame["name"]
        assert RUNAWAY_NOTE not in title_text(frame["layout"])


def test_fixed_ranges_fit_a_runaway_current_drawing_to_its_own_data():
    def of(low, high):
        return dict(extents={"yaxis": (low, high, True)})
    calm = [of(-1.0, 1.0), of(-0.5, 0.8), of(-0.2, 0.6)]
    wild = of(-3e6, 1e6)
    assert fixed_ranges(calm + [wild], calm[1])["yaxis"] == fixed_ranges(calm, calm[1])["yaxis"]
    low, high = fixed_ranges(calm + [wild], wild)["yaxis"]
    assert low == pytest.approx(-3e6 - PAD * 4e6) and high == pytest.approx(1e6 + PAD * 4e6)


def test_the_presenter_view_widens_a_ranged_charts_left_margin_for_its_larger_ticks():
    from lcsm_explorer.app.kit.classroom import PRESENTER_RANGED_MARGIN, presenter_figure
    ranged = {"data": [], "layout": {"margin": {"l": RANGED_MARGIN}, "meta": {"lcsm": {"ranges": {"yaxis": [0, 1]}}}}}
    plain = {"data": [], "layout": {"margin": {"l": 60}, "meta": {"lcsm": {"follows": True}}}}
    assert presenter_figure(ranged)["layout"]["margin"]["l"] == PRESENTER_RANGED_MARGIN > RANGED_MARGIN
    assert presenter_figure(plain)["layout"]["margin"]["l"] == 60

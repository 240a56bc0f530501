"""Drag to preview (`Lesson.sweep`): the five closed-form pages draw every chart with a family of frames over their
most-dragged setting. A member is exactly the page at that value (every chart's frame, every readout), the family
stays small, and the pages render it (AppTest) in their instrument at their defaults and after either kind of move
(a commit of the swept control or of a held one).

The chart hygiene of the previews (finite frames, axes fixed across frames) is in test_figure_hygiene.py; the
drag itself, in a real browser, in tests/browser/test_instrument_browser.py.
"""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from lcsm_explorer.app.kit import family as families
from lcsm_explorer.app.kit.chart_element import plain_chart
from lcsm_explorer.app.kit.chart_text import chart_text
from lcsm_explorer.app.kit.classroom import ClassroomView
from lcsm_explorer.app.kit.instrument import family_mount_key
from lcsm_explorer.app.kit.page_text import chart_notes, page_text
from lcsm_explorer.app.kit.sweep import MAX_FRAMES, sweep_family, sweep_member, sweep_values
from lcsm_explorer.app.kit.sweep_figure import (
    MOVING_DATA,
    RUNAWAY,
    chart_family,
    family_frames,
    fixed_ranges,
    held_frames,
    member,
    numbers,
    preview_figure,
)
from lcsm_explorer.app.lessons import lesson
from tests.app.pages import assert_clean, commit, instrument, open_page

SWEPT = {"spring": ("c", 1.0), "discretize": ("dt", 0.5), "rings": ("r_max", 0.99), "lru_stability": ("steps", 100),
         "propagation": ("nu", 0.05)}        # page → (swept setting, a value on its grid the tests look at)


def held(page: str, **changes) -> dict:
    spec = lesson(page)
    values = {**spec.settings.defaults, **changes}
    return {name: value for name, value in values.items() if name != spec.sweep.setting}


def same_data(a, b) -> bool:
    """Equal as drawn: arrays within 1e-6 relatively or 1e-7 of the trace's largest value — what a chart can show
    (plotly draws float32). A batched `compute_many` adds in another order than `compute`, and an error curve is a
    difference of nearby numbers summed over 1000 steps: fp64 rounding there reaches 1e-9 of the scale."""
    numeric = [isinstance(v, dict) and "bdata" in v or isinstance(v, list) and numbers(v).size == len(v) > 0
               for v in (a, b)]
    if any(numeric):
        x, y = numbers(a), numbers(b)
        if x.shape != y.shape:
            return False
        finite = np.isfinite(x)
        scale = float(np.abs(x[finite]).max()) if finite.any() else 0.0
        # an array sent as float32 ("dtype": "f4"): values rounding apart in fp64 may round one float32 step apart
        tol = 2.0 ** -22 if any(isinstance(v, dict) and v.get("dtype") == "f4" for v in (a, b)) else 1e-9
        return bool(np.allclose(x, y, rtol=tol, atol=tol * scale, equal_nan=True))
    return a == b


def same_member(found: dict, expected: dict, where: str) -> None:
    """Two page members hold the same charts (data to fp64 rounding, marks exactly) and the same readouts."""
    assert found["name"] == expected["name"] and set(found["charts"]) == set(expected["charts"]), where
    for chart, part in expected["charts"].items():
        frame = found["charts"][chart]["frame"]
        assert len(frame["data"]) == len(part["frame"]["data"]), (where, chart)
        for moved, trace in zip(frame["data"], part["frame"]["data"]):
            assert set(moved) == set(trace) and all(same_data(moved[k], trace[k]) for k in moved), (where, chart)
        assert frame["layout"] == part["frame"]["layout"], (where, chart)
    assert without_notes(found["readouts"]) == without_notes(expected["readouts"]), where
    assert found["readouts"].get("notes") == expected["readouts"].get("notes"), where


def without_notes(readouts: dict) -> dict:
    return {key: value for key, value in readouts.items() if key != "notes"}


@pytest.mark.parametrize("page", list(SWEPT))
def test_each_closed_form_page_sweeps_its_most_dragged_setting_in_a_few_frames(page):
    spec = lesson(page)
    setting_name, on_grid = SWEPT[page]
    assert spec.sweep is not None and spec.sweep.setting == setting_name
    assert spec.sweep.chart in spec.chart_names()
    setting = spec.settings[setting_name]
    grid = sweep_values(setting, spec.sweep, spec.settings.defaults)
    assert 10 <= len(grid) <= MAX_FRAMES and on_grid in grid
    assert all(setting.valid(v) for v in grid) and grid == sorted(grid)


@pytest.mark.parametrize("page", list(SWEPT))
def test_a_member_is_the_whole_page_at_that_value(page):
    """The member for c = 1.0 holds, for every chart of the page, what that chart draws at c = 1.0, and the page's
    readouts at c = 1.0 (through `compute` — or `compute_many` — `figures` and `metrics`)."""
    spec = lesson(page)
    name, value = SWEPT[page]
    family = sweep_family(spec, held(page))
    assert [m["value"] for m in family] == sweep_values(spec.settings[name], spec.sweep, spec.settings.defaults)
    found = next(m for m in family if m["value"] == value)
    values = {**spec.settings.defaults, name: value}
    result = spec.compute(values)
    moved = spec.sweep.figures(values, result) if spec.sweep.figures is not None else spec.figures(values, result)
    assert set(found["charts"]) == set(moved)
    words = chart_notes(spec, values, result)
    texts = {chart: chart_text(plain_chart(fig), words.get(chart, ""), chart) for chart, fig in moved.items()}
    for chart, fig in moved.items():
        drawn, frame = fig.to_dict(), found["charts"][chart]["frame"]
        assert frame["name"] == found["name"] and len(frame["data"]) == len(drawn["data"]), chart
        for moved, trace in zip(frame["data"], drawn["data"]):
            assert set(moved) == {key for key in MOVING_DATA if key in trace}
            assert all(same_data(moved[key], trace[key]) for key in moved), (chart, trace.get("name"))
        for key in ("title", "shapes", "annotations"):
            assert frame["layout"][key] == drawn["layout"].get(key, [] if key != "title" else {}), chart
    assert without_notes(found["readouts"]) == page_text(spec, values, result)     # metrics, notices, equations
    # and each chart's note, which the browser's words of the member's frame open with (test_chart_words_js.py)
    assert found["readouts"]["notes"] == {chart: note for chart, note in words.items() if note}
    assert all(note in texts[chart]["summary"] for chart, note in found["readouts"]["notes"].items())
    assert found["readouts"]["metrics"], "a swept page shows numbers that a drag must move"
    assert found["readouts"]["equations"], "a swept page's live equations move with a drag"


@pytest.mark.parametrize("page", [p for p in SWEPT if lesson(p).sweep.compute_many is not None])
def test_a_batched_family_equals_the_page_computed_value_by_value(page):
    """`Sweep.compute_many` (one core call for the family) gives, member by member, the page of `compute`."""
    spec = lesson(page)
    for changes in ({}, dict([MOVES[page]])):
        fixed = held(page, **changes)
        batched = sweep_family(spec, fixed)
        one_by_one = [m for m in (sweep_member(spec, fixed, v)
                                  for v in sweep_values(spec.settings[spec.sweep.setting], spec.sweep, fixed)) if m]
        assert [m["name"] for m in batched] == [m["name"] for m in one_by_one], changes
        for found, expected in zip(batched, one_by_one):
            same_member(found, expected, f"{page} {changes} at {expected['name']}")


def test_the_preview_starts_at_the_current_value_with_the_axes_fixed_over_the_family(monkeypatch):
    import lcsm_explorer.app.kit.instrument as instrument
    monkeypatch.setattr(instrument.st, "session_state", {})              # the presets' caption: none pressed
    spec = lesson("spring")
    setting = spec.settings["c"]
    family = sweep_family(spec, held("spring"))
    values = {**spec.settings.defaults, "c": 0.2}                        # between two grid values (0 and 0.5)
    current_fig = spec.figures(values, spec.compute(values))["response"].to_dict()
    drawn = preview_figure(current_fig, member(setting, 0.2, current_fig), chart_family(family, "response"),
                           setting.label)
    assert "frames" not in drawn                                         # the picture at 0.2 only: frames come apart
    tag = drawn["layout"]["meta"]["lcsm"]
    assert tag == {"follows": True, "current": "0.2", "signature": [["scatter", "x", "y"], ["scatter", "x2", "y2"]],
                   "ranges": {"yaxis": drawn["layout"]["yaxis"]["range"]}}      # c < 0 runs away on x(t)
    fig = held_frames(drawn, chart_family(family, "response"))           # what the browser holds once linked
    names = [f["name"] for f in fig["frames"]]
    assert len(names) == len(family) + 1 == len(set(names))
    # the instrument's swept control (it replaced the chart's own slider): one position per member, in order, each
    # a frame of the chart; the page drawn at 0.2, after −1, −0.5 and 0; labelled with the setting
    prepared_family = families.prepared(spec, tuple(sorted(held("spring").items())), family)
    payload = json.loads(instrument.instrument_payload(spec, values, ClassroomView(), {}, {}, prepared_family))
    swept = payload["swept"]
    assert swept == {"name": "c", "chart": "response", "family_id": prepared_family.link["family_id"],
                     "members": [dict(name=m["name"], label=m["label"], order=m["order"]) for m in family]}
    steps = [m["name"] for m in swept["members"]]
    assert sorted(steps + ["0.2"], key=float) == sorted(names, key=float)        # every position has its frame
    assert [m["order"] for m in swept["members"]] == sorted(m["order"] for m in swept["members"])
    assert sum(m["order"] < 0.2 for m in swept["members"]) == 3          # −1, −0.5, 0
    (control,) = [c for c in payload["controls"] if c["name"] == swept["name"]]
    assert control["value"] == tag["current"] == "0.2" and control["label"] == setting.label == "damping c"
    assert fig["data"] == current_fig["data"]                            # drawn as the page draws it, styles and all
    for key in ("xaxis", "yaxis", "xaxis2", "yaxis2"):
        assert fig["layout"][key]["autorange"] is False and len(fig["layout"][key]["range"]) == 2
    # c < 0 passes 10⁶: those frames fit their own data (test_runaway_frames.py); c = 0 (±1) is in this range
    low, high = fig["layout"]["yaxis"]["range"]
    assert -1.2 < low < -1 and 1 < high < 1.2
    marks = {len(f["layout"]["annotations"]) for f in fig["frames"]} | {len(fig["layout"]["annotations"])}
    assert len(marks) == 1                                               # a divergence note cannot outstay its frame
    on_grid = preview_figure(current_fig, member(setting, 0.5, current_fig), chart_family(family, "response"),
                             setting.label)
    assert on_grid["layout"]["meta"]["lcsm"]["current"] == "0.5"
    held_on_grid = held_frames(on_grid, chart_family(family, "response"))  # a member: the family holds its frame
    assert [f["name"] for f in held_on_grid["frames"]] == [m["name"] for m in family]
    own = fig["frames"][-1]                                              # 0.2, no member: made from the drawing
    assert own["name"] == "0.2" and [t["y"] for t in own["data"]] == [t["y"] for t in current_fig["data"]]


def test_the_family_frames_do_not_depend_on_the_current_value_and_keep_what_moves():
    spec = lesson("spring")
    family = sweep_family(spec, held("spring"))
    (group,) = family_frames(chart_family(family, "response"))
    assert [f["name"] for f in group["frames"]] == [m["name"] for m in family]
    for frame, m in zip(group["frames"], family):                        # only what is the same in all is left out
        for n, trace in enumerate(m["charts"]["response"]["frame"]["data"]):
            for key, value in trace.items():
                assert frame["data"][n].get(key, group["constants"].get((n, key))) == value, (m["name"], n, key)
    (alone,) = family_frames(chart_family(family[:1], "response"))      # one member: nothing is "the same"
    assert alone["frames"][0]["data"] == family[0]["charts"]["response"]["frame"]["data"]


def test_a_runaway_member_leaves_the_picture_but_the_current_one_never_does():
    def of(low, high):
        return dict(extents={"yaxis": (low, high, True)})
    calm = [of(-1.0, 1.0), of(-0.5, 0.8), of(-0.2, 0.6)]
    wild = of(-1e6, 1e6)
    low, high = fixed_ranges(calm + [wild], calm[0])["yaxis"]
    assert -1.2 < low and high < 1.2
    assert fixed_ranges(calm + [wild], wild)["yaxis"][1] > 1e6 and RUNAWAY > 1


def test_members_the_current_figure_cannot_share_are_left_out():
    """r_max = 0 draws one ring edge fewer: no frame can apply to it trace by trace, so it is drawn plain."""
    spec = lesson("rings")
    values = {**spec.settings.defaults, "r_max": 0.0}
    current_fig = spec.figures(values, spec.compute(values))["eigenvalues"].to_dict()
    setting = spec.settings["r_max"]
    family = sweep_family(spec, held("rings"))
    assert preview_figure(current_fig, member(setting, 0.0, current_fig), chart_family(family, "eigenvalues"),
                          setting.label) == current_fig


# --- the pages, drawn -----------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def never_shed(monkeypatch):
    """A busy test machine must not pause the previews these tests look for (shedding: test_preview_pool.py)."""
    monkeypatch.setenv("LCSM_PREVIEW_MAX_LOAD", "1e9")


def with_preview(at, page: str, timeout: float = 180):
    """The page once its preview is in: the family is computed off the request path, so rerun until it is
    (in a browser the waiting instrument's fragment does this)."""
    deadline = time.monotonic() + timeout
    while not has_preview(at, page) and time.monotonic() < deadline:
        time.sleep(0.5)
        at.run()
    return at


def has_preview(at, page: str) -> bool:
    try:
        preview_of(at, page)
        return True
    except AssertionError:
        return False


def family_mount(at, page: str) -> dict | None:
    """The instrument's family mount (`instrument.family_payload`), None where the page draws none."""
    for element in at.get("bidi_component"):
        if element.proto.id.endswith(f"-{family_mount_key(page)}"):
            proto = element.proto
            return json.loads(proto.bytes if proto.WhichOneof("data") == "bytes" else proto.json)
    return None


def preview_of(at, page: str) -> dict:
    """The instrument of a page whose preview is in: its lead chart tagged as following the family, the family
    mounted with it, and its swept control stepping over that family's members (what the chart's slider was)."""
    payload = instrument(at, page)
    swept = payload["swept"]
    tag = payload["figures"][swept["chart"]]["layout"].get("meta", {}).get("lcsm", {})
    family = family_mount(at, page)
    if tag.get("follows") and swept["members"] and family is not None \
            and family["family_id"] == swept["family_id"] == tag["family"]:
        return payload
    raise AssertionError("no preview on the page")


def drawn_at(payload: dict) -> str:
    """The value the page is drawn at (its lead chart's and its swept control's: one value everywhere)."""
    swept = payload["swept"]
    (control,) = [c for c in payload["controls"] if c["name"] == swept["name"]]
    assert payload["figures"][swept["chart"]]["layout"]["meta"]["lcsm"]["current"] == control["value"]
    return control["value"]


def member_label(payload: dict, name: str) -> str:
    return {m["name"]: m["label"] for m in payload["swept"]["members"]}[name]


MOVES = {"spring": ("k", 2.0), "discretize": ("c", 0.5), "rings": ("r_min", 0.2), "lru_stability": ("seed", 1),
         "propagation": ("theta", 30)}      # page → a held setting moved (its family is computed anew)


@pytest.mark.parametrize("page", list(SWEPT))
def test_each_page_renders_its_preview_and_keeps_it_through_slider_moves(page):
    """A move is the instrument's commit (`instrument.apply_commit`: the values into the settings' keys), of its
    swept control or of another one."""
    spec = lesson(page)
    name, value = SWEPT[page]
    at = with_preview(open_page(page), page)
    assert_clean(at, page)
    setting = spec.settings[name]
    payload = preview_of(at, page)
    assert drawn_at(payload) == member(setting, setting.default, {"data": [], "layout": {}})["name"]

    commit(at, page, **{name: value})                                   # the swept setting: its family is cached
    assert_clean(at, f"{page} {name}={value}")
    payload = preview_of(at, page)
    here = member(setting, value, {"data": [], "layout": {}})
    assert drawn_at(payload) == here["name"] and member_label(payload, here["name"]) == here["label"]

    other, moved = MOVES[page]
    commit(at, page, **{other: moved})                                  # a held setting: a new family, drawn when in
    assert_clean(at, f"{page} {other}={moved}")
    assert len(preview_of(with_preview(at, page), page)["swept"]["members"]) >= 10


def test_a_teacher_link_that_hides_or_locks_the_swept_setting_draws_the_plain_chart():
    for query in ({"show": "k"}, {"lock": "1"}):
        at = open_page("spring", query)
        assert_clean(at, str(query))
        figures = instrument(at, "spring")["figures"]
        assert not any(fig["layout"].get("meta") for fig in figures.values()), query
        assert family_mount(at, "spring") is None and not has_preview(at, "spring")
    at = with_preview(open_page("spring", {"show": "c", "lock": "1"}), "spring")   # c left to the students
    assert preview_of(at, "spring")["swept"]["members"]

"""One family drives the whole page during a drag (`app.kit.preview`, `app.kit.page_link`): the link's data holds
every chart's frames and every member's readouts and does not change with the swept value (sent once per family);
every chart is drawn at the current value and tagged for the browser code (the lead's tag with the current
readouts), only the lead chart has the visible slider, and the release commits the value to the setting.
The drag itself, in chromium: tests/browser/test_drag_whole_page.py.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from app.kit import page_link
from app.kit.preview import PagePreview, family_key, preview_specs, store_family
from app.kit.render import chart_specs, computed, freeze
from app.kit.sweep import readout_text, sweep_family
from app.lessons import lesson
from tests.app.pages import assert_clean, open_page
from tests.app.test_sweep import SWEPT, has_preview, held, preview_of, with_preview


def page_preview_at(page: str, **changes) -> tuple[PagePreview, dict]:
    spec = lesson(page)
    values = {**spec.settings.defaults, **changes}
    frozen = freeze(values)
    key = family_key(spec, frozen)
    store_family(key, sweep_family(spec, dict(key[1])))
    return preview_specs(page, frozen, False, spec, page_family(key)), values


def page_family(key):
    from app.kit.preview import FAMILIES
    return FAMILIES.lookup(key)


def link_family(preview: PagePreview) -> dict:
    return json.loads(preview.link["family"])


def held_by(preview: PagePreview, chart: str) -> list[str]:
    """The frame names a chart holds once the page link has added them (`page_link.js` framesFor: the family's of
    its signature, and the current value's own, made from the drawing, where it is no member)."""
    tag = json.loads(preview.charts[chart].spec)["layout"]["meta"]["lcsm"]
    groups = [g for g in link_family(preview)["charts"][chart] if g["signature"] == tag["signature"]]
    names = [f["name"] for g in groups for f in g["frames"]]
    return names + ([tag["current"]] if tag["current"] not in names else [])


@pytest.mark.parametrize("page", list(SWEPT))
def test_every_chart_follows_the_family_and_only_the_lead_has_the_slider(page):
    spec = lesson(page)
    preview, values = page_preview_at(page)
    assert set(preview.charts) == set(spec.chart_names())
    lead_names = None
    for chart, drawn in preview.charts.items():
        fig = json.loads(drawn.spec)
        tag = fig["layout"]["meta"]["lcsm"]
        assert (tag["page"], tag["chart"], tag["family"]) == (page, chart, preview.link["family_id"])
        sliders = [s for s in fig["layout"].get("sliders", [])
                   if s.get("currentvalue", {}).get("prefix", "").startswith("drag to preview")]
        assert len(sliders) == (chart == spec.sweep.chart), chart
        if chart == spec.sweep.chart:
            assert tag["follows"] and "frames" not in fig, "the lead chart carries frames of its own"
            lead_names = [step["value"] for step in sliders[0]["steps"]]
            assert lead_names == [step["args"][0][0] for step in sliders[0]["steps"]]
    plain = chart_specs(page, freeze(values), False, spec)
    framed = []
    for chart, drawn in preview.charts.items():        # a chart's frames are named as the lead's steps
        fig = json.loads(drawn.spec)
        if json.loads(plain[chart].spec).get("frames") and chart != spec.sweep.chart:
            assert fig["layout"].pop("meta")["lcsm"]["follows"] is False
            assert fig == json.loads(plain[chart].spec), f"{chart}: its own animation was replaced"
            continue
        assert fig["layout"]["meta"]["lcsm"]["follows"] and "frames" not in fig, chart
        assert drawn.nbytes < plain[chart].nbytes + 16 * 1024, f"{chart}: more than the picture at the value"
        names = held_by(preview, chart)
        assert names and set(names) <= set(lead_names), chart
        framed.append(chart)
    animated = {c for c in plain if json.loads(plain[c].spec).get("frames") and c != spec.sweep.chart}
    assert set(framed) == set(spec.chart_names()) - animated, f"{page}: only {framed} follow a drag"
    assert set(link_family(preview)["charts"]) == set(framed), "the link carries frames no chart takes"


@pytest.mark.parametrize("page", list(SWEPT))
def test_the_link_holds_every_members_readouts_and_the_lead_chart_the_current_ones(page):
    spec = lesson(page)
    name, value = SWEPT[page]
    preview, values = page_preview_at(page)
    link = preview.link
    setting = spec.settings[name]
    assert link["page"] == page and link["lead"] == spec.sweep.chart and "current" not in link
    tag = json.loads(preview.charts[spec.sweep.chart].spec)["layout"]["meta"]["lcsm"]
    assert tag["current"] == setting.encode(values[name])
    at_default = readout_text(spec.metrics(values, computed(page, freeze(values), spec)))
    assert tag["readouts"] == at_default
    moved = {**values, name: value}
    readouts = link_family(preview)["readouts"]
    assert readouts[setting.encode(value)] == readout_text(spec.metrics(moved, spec.compute(moved)))
    for step in json.loads(preview.charts[spec.sweep.chart].spec)["layout"]["sliders"][-1]["steps"]:
        assert step["value"] in readouts or step["value"] == tag["current"]


@pytest.mark.parametrize("page", list(SWEPT))
def test_a_swept_move_changes_the_charts_but_not_the_links_data(page):
    """The family goes to the browser once: the link's data is the same, byte for byte, at every value of the swept
    setting (so Streamlit sends a reference to it), while the charts show each value's picture."""
    spec = lesson(page)
    name, value = SWEPT[page]
    here, _ = page_preview_at(page)
    there, _ = page_preview_at(page, **{name: value})
    assert here.link == there.link
    lead = spec.sweep.chart
    assert here.charts[lead].spec != there.charts[lead].spec
    tag = json.loads(there.charts[lead].spec)["layout"]["meta"]["lcsm"]
    assert tag["current"] == spec.settings[name].encode(value)
    family = sum(len(g["frames"]) for groups in link_family(here)["charts"].values() for g in groups)
    assert family >= 10 * len(here.charts) - 10                     # the frames are in the link, not the charts


def test_the_presenter_view_keeps_the_tags():
    spec = lesson("spring")
    values = spec.settings.defaults
    frozen = freeze(values)
    key = family_key(spec, frozen)
    store_family(key, sweep_family(spec, held("spring")))
    preview = preview_specs("spring", frozen, True, spec, page_family(key))
    plain = preview_specs("spring", frozen, False, spec, page_family(key))
    assert preview.link == plain.link                                 # one family's frames for both views
    for chart, drawn in preview.charts.items():
        tag = json.loads(drawn.spec)["layout"]["meta"]["lcsm"]
        assert tag["follows"] and tag["chart"] == chart and held_by(preview, chart)


# --- the release commits the value ------------------------------------------------------------------------
class FakeStreamlit:
    def __init__(self, state):
        self.session_state = state


@pytest.mark.parametrize("sent, expected", [("1.25", 1.25), ("-0.75", -0.75), ("9", 0.2), ("nonsense", 0.2),
                                            (None, 0.2), (3, 0.2)])
def test_the_release_writes_the_value_into_the_settings_widget_key(monkeypatch, sent, expected):
    spec = lesson("spring")
    key = page_link.link_key("spring")
    state = {spec.settings.key("c"): 0.2, key: {"commit": sent}}
    monkeypatch.setattr(page_link, "st", FakeStreamlit(state))
    page_link.commit(spec.settings, "c", key)
    assert state[spec.settings.key("c")] == expected          # out of range, unreadable or not text: unchanged


# --- the page, drawn ----------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def never_shed(monkeypatch):
    monkeypatch.setenv("LCSM_PREVIEW_MAX_LOAD", "1e9")


def links(at) -> list[dict]:
    return [json.loads(c.proto.bytes) for c in at.get("bidi_component")]


def test_the_links_payload_is_its_data_with_the_family_as_an_object():
    preview, _ = page_preview_at("rings")
    sent = json.loads(page_link.link_payload(preview.link))
    assert sent["family"] == json.loads(preview.link["family"]) and sent["family_id"] == preview.link["family_id"]
    assert (sent["page"], sent["lead"], sent["readout"]) == ("rings", "eigenvalues", "st-key-lcsm-readout")


def test_the_page_mounts_one_link_once_its_preview_is_in_and_none_where_a_teacher_locks_the_setting():
    at = with_preview(open_page("spring"))
    assert_clean(at, "spring")
    (link,) = links(at)
    assert link["page"] == "spring" and link["readout"] == "st-key-lcsm-readout"
    assert all(json.loads(c.proto.spec)["layout"]["meta"]["lcsm"]["page"] == "spring" for c in at.get("plotly_chart"))
    (sent,) = at.get("bidi_component")
    at.slider(key=lesson("spring").settings.key("c")).set_value(1.0).run()
    assert_clean(at, "c=1.0")
    (again,) = at.get("bidi_component")
    assert again.proto.SerializeToString() == sent.proto.SerializeToString()   # the same message: sent as a reference
    assert json.loads(preview_of(at)["layout"]["meta"]["lcsm"]["current"]) == 1
    locked = open_page("spring", {"lock": "1"})
    assert not has_preview(locked) and not links(locked)


def test_the_inline_mode_redraws_every_chart_as_its_preview(monkeypatch):
    monkeypatch.setenv("LCSM_PREVIEW_WORKERS", "0")
    at = open_page("spring", {"k": "3.5"})                  # a family no other test cached
    assert_clean(at, "inline")
    framed = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(framed) == 4 and all(f["layout"]["meta"]["lcsm"]["follows"] for f in framed)
    assert len(links(at)) == 1


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the JS syntax check needs it")
def test_the_link_script_parses_as_a_module(tmp_path):
    script = tmp_path / "page_link.mjs"
    script.write_text((Path(page_link.__file__).with_name("page_link.js")).read_text())
    done = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the JS check needs it")
def test_the_link_script_puts_every_shared_array_back_as_python_reads_it(tmp_path):
    """page_link.js's `withArrays` (run on the family as it arrives) gives the family `family.resolved` reads."""
    from app.kit.family import resolved
    preview, _ = page_preview_at("discretize")                 # the z-plane and its zoom share arrays
    text = preview.link["family"]
    assert json.loads(text)["arrays"]
    script = tmp_path / "page_link.mjs"
    script.write_text((Path(page_link.__file__).with_name("page_link.js")).read_text() + "\nexport { withArrays };\n")
    (tmp_path / "family.json").write_text(text)
    run = tmp_path / "run.mjs"
    run.write_text("import { withArrays } from './page_link.mjs';\nimport { readFileSync, writeFileSync } from 'fs';\n"
                   "const family = withArrays(JSON.parse(readFileSync(process.argv[2], 'utf8')));\n"
                   "delete family.arrays;\nwriteFileSync(process.argv[3], JSON.stringify(family));\n")
    done = subprocess.run(["node", str(run), str(tmp_path / "family.json"), str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out.json").read_text()) == resolved(text)

"""A member's page drawn in the browser: after a committed move to a member of the family it holds, the browser is
sent no chart and no text (`instrument.kept_member`); it moves each chart it drew to the member's frame
(`instrument.js:memberFigure`, in Python `sweep_figure.member_figure`) and shows the member's readouts. Both must
be the page the server would have drawn at that member: every chart, from every member of its group, and the text."""
from __future__ import annotations

import json

import pytest

from lcsm_explorer.app.kit.cache import clear_all
from lcsm_explorer.app.kit.family import prepared, resolved
from lcsm_explorer.app.kit.instrument_page import page_texts
from lcsm_explorer.app.kit.page_charts import freeze
from lcsm_explorer.app.kit.preview import preview_specs, store_family
from lcsm_explorer.app.kit.sweep import sweep_family
from lcsm_explorer.app.kit.sweep_figure import member_figure
from lcsm_explorer.app.lessons import lesson
from tests.app.test_sweep import SWEPT, held


def family_at(page: str):
    """The family at the page's defaults, kept as the web process keeps it: with its members' results as the pages
    at their values (`preview.store_family`), so a page drawn at a member is drawn from the family's own numbers."""
    clear_all()                                         # no page computed before, from another test's numbers
    spec = lesson(page)
    key = (page, tuple(sorted(held(page).items())))
    results: dict = {}
    members = sweep_family(spec, dict(key[1]), results)
    store_family(key, members, results)
    return members, prepared(spec, key[1], members)


def page_at(page: str, family, name: str):
    spec = lesson(page)
    setting = spec.settings[spec.sweep.setting]
    values = {**dict(family.held), setting.name: setting.parse(name)}
    frozen = freeze(values)
    return preview_specs(page, frozen, False, spec, family), page_texts(page, frozen, spec)


@pytest.mark.parametrize("page", list(SWEPT))
def test_every_chart_moved_to_a_member_is_the_chart_drawn_there(page):
    _, family = family_at(page)
    sent = resolved(family.link["family"])                 # as instrument.js holds it
    names = [m["name"] for m in family.members]
    drawn = {name: page_at(page, family, name)[0] for name in names}
    moved = 0
    for chart, groups in sent["charts"].items():
        for group in groups:
            in_group = [f["name"] for f in group["frames"]]
            for start in (in_group[0], in_group[-1]):     # drawn at one member, then moved to each of its group
                before = json.loads(drawn[start].charts[chart].spec)
                for frame in group["frames"]:
                    expected = json.loads(drawn[frame["name"]].charts[chart].spec)
                    assert member_figure(before, frame, frame["name"]) == expected, (chart, start, frame["name"])
                    moved += 1
    assert moved >= len(names)


@pytest.mark.parametrize("page", list(SWEPT))
def test_a_members_readouts_and_chart_notes_are_the_page_drawn_there(page):
    """The member's readouts as the page drawn there shows them, and each chart's note its words open with (the
    browser words the chart from its frame: tests/app/test_chart_words_js.py)."""
    _, family = family_at(page)
    sent = resolved(family.link["family"])
    for m in family.members:
        charts, text = page_at(page, family, m["name"])
        got = dict(sent["readouts"][m["name"]])
        said = got.pop("notes")
        assert got == json.loads(json.dumps(text)), m["name"]
        for chart, note in said.items():
            assert f": {note.strip().rstrip('.')}" in charts.charts[chart].text["summary"], (m["name"], chart)

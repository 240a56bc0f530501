"""The browser's chart words (`app/kit/chart_words.js`) equal `chart_text.py`'s, to the last character and digit: on
every chart of every member of every swept lesson's family as the browser holds it (the member's figure, its note),
and on figures made to reach the corners (numbers exactly halfway between two written ones, gaps, infinities, heat
maps, histograms, categories, panels). Run in node (Debian's nodejs, installed with the tests)."""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import plotly.graph_objects as go
import pytest

from lcsm_explorer.app.kit.chart_element import plain_chart
from lcsm_explorer.app.kit.chart_text import chart_text
from lcsm_explorer.app.kit.page_charts import computed, freeze
from lcsm_explorer.app.kit.sweep import unworded_page
from lcsm_explorer.app.lessons import lesson
from tests.app.test_member_figure import family_at, page_at
from tests.app.test_sweep import SWEPT
from tests.browser.app_server import IN_CI, ROOT

NODE = shutil.which("node")
WORDS_JS = ROOT / "app" / "kit" / "chart_words.js"
RUNNER = """import { chartText } from "./chart_words.mjs";
import { readFileSync, writeFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
writeFileSync(process.argv[3], JSON.stringify(cases.map(([figure, note, name]) => chartText(figure, note, name))));
"""


def js_words(cases: list[tuple[dict, str, str]], tmp_path) -> list[dict]:
    """chartText of each (figure, note, name), run in node."""
    if NODE is None:
        (pytest.fail if IN_CI else pytest.skip)("node is not installed (scripts/install.sh --tests installs nodejs)")
    (tmp_path / "chart_words.mjs").write_text(WORDS_JS.read_text())
    (tmp_path / "run.mjs").write_text(RUNNER)
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    subprocess.run([NODE, "run.mjs", "cases.json", "out.json"], cwd=tmp_path, check=True, timeout=120)
    return json.loads((tmp_path / "out.json").read_text())


def as_sent(text: dict) -> dict:
    return json.loads(json.dumps(text))


def compare(cases, expected, got) -> None:
    assert len(got) == len(expected)
    for (_, _, name), want, have in zip(cases, expected, got):
        assert have["summary"] == want["summary"], name
        assert have["tables"] == want["tables"], name


@pytest.mark.parametrize("page", list(SWEPT))
def test_every_members_words_as_the_browser_makes_them_are_the_servers(page, tmp_path):
    members, family = family_at(page)
    spec = lesson(page)
    setting = spec.settings[spec.sweep.setting]
    cases, expected = [], []
    for m in family.members:
        values = {**dict(family.held), setting.name: setting.parse(m["name"])}
        frozen = freeze(values)
        charts, _ = page_at(page, family, m["name"])
        _, _, notes = unworded_page(spec, values, computed(page, frozen, spec))
        for chart, drawn in charts.charts.items():
            if drawn.text is None:
                continue
            cases.append((json.loads(drawn.spec), notes.get(chart, ""), chart))
            expected.append(as_sent(drawn.text))
    assert len(cases) >= len(family.members)
    compare(cases, expected, js_words(cases, tmp_path))


def corner_figures() -> list[tuple[dict, str, str]]:
    t = np.arange(0, 20.5, 0.25)                                      # 10.25 s: "10.2", as Python writes it
    halfway = np.array([1.125, 2.375, 0.0625, 1e-5, 123456.0, -0.0, 0.99995, 999.5, 1e21, 3e-300])
    decay = np.exp(-t / 3) * np.cos(2 * t)
    gappy = decay.copy()
    gappy[[3, 10]] = np.nan
    gappy[20] = np.inf
    grid = np.outer(np.linspace(-1, 1, 30), np.linspace(0.5, 2, 40))
    grid[2, 5] = np.nan
    figs = [
        go.Figure(go.Scatter(x=t, y=decay, name="x(t) (c = 0.5)"),
                  layout=dict(title="Position (Δ = 0.1 s)", xaxis_title="t (s)", yaxis_title="x")),
        go.Figure([go.Scatter(x=t, y=gappy, name="gaps"), go.Scatter(x=t, y=-decay, name="mirror", mode="markers"),
                   go.Scatter(x=[0, 1], y=[0, 1], hoverinfo="skip")], layout=dict(title="Gaps")),
        go.Figure(go.Scatter(x=np.arange(len(halfway)), y=halfway, mode="markers", name="halfway")),
        go.Figure(go.Bar(x=["a", "b", "c", "d", "e", "f"], y=[3.0, 1.125, 2.5, 0.5, 9.75, 4.0], name="bars"),
                  layout=dict(title="Categories", xaxis_title="letter")),
        go.Figure(go.Bar(x=["one", "two"], y=[1.5, 2.5]), layout=dict(yaxis_title="count (n)")),
        go.Figure(go.Heatmap(z=grid, x=np.linspace(0.5, 2, 40), y=np.linspace(-1, 1, 30),
                             hovertemplate="c %{x}<br>k %{y}<br>log₁₀ dist %{z:.2f}"),
                  layout=dict(title="Map", xaxis_title="c", yaxis_title="k (N/m)")),
        go.Figure(go.Heatmap(z=[[1, 2], [3, 4]])),
        go.Figure(go.Histogram(x=np.random.default_rng(0).normal(size=333), name="draws")),
        go.Figure(go.Scatter(x=np.cos(t), y=np.sin(t), name="circle"), layout=dict(title="A path")),
        go.Figure(go.Scatter(y=[2.0, 2.0, 2.0, 2.0, 2.0, 2.0], name="flat")),
        go.Figure([go.Scatter(x=t, y=decay * k, name=f"c = {k:g} (underdamped)") for k in (1, 2, 3, 4, 5, 6)],
                  layout=dict(title="Many")),
        go.Figure(go.Scatter(x=t, y=1 - np.exp(-t), name="step"), layout=dict(title="Rise")),
    ]
    panels = go.Figure([go.Scatter(x=t, y=decay, name="naive", xaxis="x", yaxis="y"),
                        go.Scatter(x=t, y=decay ** 2, name="naive", xaxis="x2", yaxis="y2")])
    panels.update_layout(xaxis=dict(domain=[0, 0.45], title="t"), xaxis2=dict(domain=[0.55, 1], matches="x"),
                         yaxis=dict(domain=[0, 1]), yaxis2=dict(domain=[0, 1]),
                         annotations=[dict(text="loss", x=0.225, y=1, xref="paper", yref="paper", yanchor="bottom"),
                                      dict(text="|λ|", x=0.775, y=1, xref="paper", yref="paper",
                                           yanchor="bottom")])
    figs.append(panels)
    cases = [(json.loads(json.dumps(plain_chart(fig))), "", f"corner {n}") for n, fig in enumerate(figs)]
    cases.append((cases[0][0], "What matters: the half-life.. ", "with a note"))
    cases.append(({"data": [{"type": "scatter", "y": [None, None, None]}], "layout": {}}, "", "all gaps"))
    cases.append(({"data": [{"type": "scatter", "x": [0, 1, 2, 3, 4, 5], "y": [1, None, 3, 4, 5, 6]}],
                   "layout": {"title": {"text": "Lists<br>with <b>markup</b>"}}}, "", "lists"))
    return cases


def test_corner_figures_are_worded_alike(tmp_path):
    cases = corner_figures()
    expected = [as_sent(chart_text(fig, note, name)) for fig, note, name in cases]
    compare(cases, expected, js_words(cases, tmp_path))


@pytest.mark.parametrize("value", [1.125, 2.375, 10.25, 0.0625, 999.5, 9.995, 1e-5, 1.5e-5, 123456.0, 1e16, 2.5e-7,
                                   0.00012345, 99.95, 0.1, 1 / 3, -2.675, 5e-324, 1.5e300])
def test_numbers_are_written_as_python_writes_them(value, tmp_path):
    fig = {"data": [{"type": "scatter", "mode": "markers", "x": [value], "y": [value], "name": "v"}],
           "layout": {"title": {"text": "One"}}}
    want = as_sent(chart_text(fig, "", "one"))
    assert js_words([(fig, "", "one")], tmp_path)[0] == want

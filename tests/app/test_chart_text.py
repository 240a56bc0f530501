"""Every chart says what it shows (`app/kit/chart_text.py`): a one-sentence summary read from its data (its accessible
name) and its series' points as tables ("Show the data").

- every chart of every lesson (at its defaults and presets) and of the live pages: a summary that opens with its
  title and holds a number of its own data, and one table per data trace holding that trace's points, thinned;
- a summary changes whenever what its chart shows changes (presets, a setting's ends, a family's members);
- the readouts a lesson declares per chart (`Lesson.chart_readouts`) are readouts the page shows, said first;
- Streamlit's charts carry the summary as `alt` (their accessible name) and a "Show the data" expander with the
  tables as HTML.
The browser side (names in the accessibility tree, tables, the live region): tests/browser/test_chart_text_browser.py.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lcsm_explorer.app.kit.chart_element import chart_spec, plain_chart
from lcsm_explorer.app.kit.chart_export import unavailable
from lcsm_explorer.app.kit.chart_text import (
    MAX_GRID_COLUMNS,
    MAX_GRID_ROWS,
    MAX_ROWS,
    cell,
    chart_text,
    column,
    data_html,
    number,
    rows_of,
    shown,
    thinned,
)
from lcsm_explorer.app.kit.family import prepared, resolved
from lcsm_explorer.app.kit.figure_style import plotly_array
from lcsm_explorer.app.kit.page_text import chart_notes, readouts
from lcsm_explorer.app.kit.sweep import sweep_family, unworded_page
from lcsm_explorer.app.kit.widgets import DATA_LABEL
from lcsm_explorer.app.lessons import lesson
from lcsm_explorer.app.lessons.paper_lab import accuracy_figure
from lcsm_explorer.app.lessons.train_live import curves_figure, eigen_figure, last_eigenvalues_figure, overlay_figure
from tests.app.test_figure_hygiene import FIGURE_PAGES, SHORT_COMPUTE, cases, fake_metrics, fake_snapshots

NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?")


def page_charts(page: str, values: dict) -> dict[str, tuple[dict, dict]]:
    """Every chart of the page at `values`: (its plain figure, its text as the renderer makes it)."""
    spec = lesson(page)
    result = SHORT_COMPUTE.get(page, spec.compute)(values)
    notes = chart_notes(spec, values, result)
    return {name: (plain_chart(fig), chart_spec(fig, notes.get(name, ""), name).text)
            for name, fig in spec.figures(values, result).items()}


def short_cases(page: str) -> list[tuple[str, dict]]:
    return [(name, values) for name, values in cases(page) if name == "defaults" or name.startswith("preset")]


def live_figures() -> dict[str, dict]:
    from lcsm_core.paper_lab import DEFAULT_SPECS, shipped_grid
    spec = DEFAULT_SPECS["data_dependence"]
    figures = {"train_live curves": curves_figure(fake_metrics(120, 0), "training curves"),
               "train_live diverged": curves_figure(fake_metrics(120, 0, diverge=True), "training curves", 118.0),
               "train_live eigenvalues": eigen_figure(fake_snapshots(2, 2)),
               "train_live compare": overlay_figure([(f"run {n}", fake_metrics(60, n)) for n in range(3)]),
               "train_live compare eigenvalues": last_eigenvalues_figure([(f"run {n}", fake_snapshots(2, n))
                                                                         for n in range(3)]),
               "paper_lab accuracy": accuracy_figure(spec, shipped_grid(spec).results)}
    return {name: plain_chart(fig) for name, fig in figures.items()}


def decoded(value) -> np.ndarray | None:
    if value is None:
        return None
    if isinstance(value, dict) and "bdata" in value:
        return plotly_array(value)
    return np.asarray(value)


def data_traces(fig: dict) -> list[dict]:
    """The traces a reader is told about: every one but the references drawn for the eye (`hoverinfo="skip"`)."""
    return [t for t in fig["data"] if t.get("hoverinfo") != "skip" and t.get("visible") is not False]


def own_numbers(fig: dict) -> np.ndarray:
    found = [decoded(t.get(key)) for t in data_traces(fig) for key in ("x", "y", "z")]
    found = [a.astype(float).ravel() for a in found if a is not None and a.dtype.kind in "fiu"]
    found = np.concatenate(found) if found else np.zeros(0)
    return found[np.isfinite(found)]


def says_a_number_of(summary: str, data: np.ndarray) -> bool:
    """Whether a number written in the summary is one of the data's values, as the summary rounds them."""
    rounded = {number(v) for v in np.unique(data)}
    return any(found in rounded for found in NUMBER.findall(summary))


def title_of(fig: dict, name: str) -> str:
    title = fig["layout"].get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return " ".join(re.sub(r"<[^>]+>", " ", (text or name).replace("<br>", " ")).split())


def check_text(fig: dict, text: dict, where: str) -> None:
    summary = text["summary"]
    assert summary.startswith(title_of(fig, "") or "") and summary.endswith("."), where
    assert says_a_number_of(summary, own_numbers(fig)), f"{where}: no number of its data in {summary!r}"
    assert len(text["tables"]) == len(data_traces(fig)), where
    for trace, table in zip(data_traces(fig), text["tables"]):
        check_table(trace, table, f"{where} {trace.get('name')!r}")


def check_table(trace: dict, table: dict, where: str) -> None:
    """The table holds the trace's own points: every row one of them (rounded as `cell` rounds), first and last
    among them, no more than the table's bound."""
    kind = trace.get("type", "scatter")
    x, y = decoded(trace.get("x")), decoded(trace.get("y"))
    assert len(table["columns"]) == len(table["headers"]) and len({len(c) for c in table["columns"]}) == 1, where
    if kind in ("heatmap", "contour"):
        z = decoded(trace["z"]).astype(float)
        rows, cols = thinned(z.shape[0], MAX_GRID_ROWS), thinned(z.shape[1], MAX_GRID_COLUMNS)
        assert [column_ for column_ in table["columns"][1:]] == [column(z[rows, c]) for c in cols], where
        return
    if kind == "histogram":
        data = np.sort(x[np.isfinite(x)].astype(float))
        assert table["columns"][1] == column(data[thinned(len(data), MAX_ROWS)]), where
        return
    x = np.arange(len(y)) if x is None else x
    picked = thinned(len(y), MAX_ROWS)
    assert len(picked) <= MAX_ROWS and picked[0] == 0 and picked[-1] == len(y) - 1, where
    xs = column(x[picked]) if x.dtype.kind in "fiu" else [str(v) for v in x[picked]]
    assert table["columns"] == [xs, column(y.astype(float)[picked])], where


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_every_chart_says_what_it_shows_and_tables_its_points(page):
    for name, values in short_cases(page):
        for chart, (fig, text) in page_charts(page, values).items():
            check_text(fig, text, f"{page} [{name}] {chart}")


def test_the_live_pages_charts_say_what_they_show():
    for name, fig in live_figures().items():
        check_text(fig, chart_text(fig), name)


def moved(one: list[dict], other: list[dict]) -> bool:
    """Whether two drawings of a chart show other numbers: other series, or a value of a table moved by more than
    1 % of its column's span (0.9999 → 1 is no change a reader can see). A series renamed is not (its label may
    name the setting that moved: "LRU eigenvalue (ν = 0.01, θ = 0°)")."""
    if [[len(c) for c in t["columns"]] for t in one] != [[len(c) for c in t["columns"]] for t in other]:
        return True
    for a, b in zip(one, other):
        for x, y in zip(a["columns"], b["columns"]):
            if any(isinstance(v, str) for v in x + y):
                if x != y:
                    return True
                continue
            x, y = (np.array([np.nan if v is None else v for v in c], dtype=float) for c in (x, y))
            span = np.nanmax(np.abs(np.concatenate([x, y])), initial=0.0)
            if np.any(np.abs(x - y) > 1e-2 * span + 1e-12) or np.any(np.isnan(x) != np.isnan(y)):
                return True
    return False


MORE = re.compile(r"(\d+|one) more series in the data table")


def said(text: dict) -> list[dict]:
    """The tables of the series its summary says (the first ones; the rest it counts as "N more series")."""
    more = MORE.search(text["summary"])
    rest = 0 if more is None else (1 if more[1] == "one" else int(more[1]))
    return text["tables"][:len(text["tables"]) - rest]


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_a_summary_changes_when_its_chart_changes(page):
    """Across the defaults, presets and each setting's ends: two drawings of a chart in which a series its summary
    says shows something different (`moved`) never share a summary; and every summary says at least one series."""
    seen: dict[str, list[tuple[list, str]]] = {}     # chart → (tables said, summary) drawn so far
    changed = 0
    for name, values in cases(page):
        for chart, (_, text) in page_charts(page, values).items():
            assert said(text) or not text["tables"], f"{page} [{name}] {chart}: says no series"
            for tables, summary in seen.setdefault(chart, []):
                if moved(tables, said(text)):
                    changed += 1
                    assert summary != text["summary"], f"{page} [{name}] {chart}: {summary!r}"
            seen[chart].append((said(text), text["summary"]))
    assert changed, f"{page}: no case changed any chart"


@pytest.mark.parametrize("page", [p for p in FIGURE_PAGES if lesson(p).sweep is not None])
def test_each_member_of_a_family_says_its_own_summary(page):
    """Moving the swept control shows members whose main chart differs: so do their summaries. The family carries
    each member's readouts and its charts' notes, not their words: the browser words a chart from the frame it
    moves it to (tests/app/test_chart_words_js.py holds those words equal to these)."""
    spec = lesson(page)
    held = {k: v for k, v in spec.settings.defaults.items() if k != spec.sweep.setting}
    results: dict = {}
    members = sweep_family(spec, held, results)
    summaries = []
    for m in members:
        values = {**held, spec.sweep.setting: m["value"]}       # drawn from the family's own compute (a batch)
        figures, text, notes = unworded_page(spec, values, results[m["value"]])
        summaries.append(chart_text(figures[spec.sweep.chart], notes.get(spec.sweep.chart, ""), "")["summary"])
        assert m["readouts"] == {**text, "notes": {k: v for k, v in notes.items() if v}}
    assert len(set(summaries)) == len(summaries), summaries
    sent = resolved(prepared(spec, tuple(sorted(held.items())), members).link["family"])
    assert sent["readouts"] == json.loads(json.dumps({m["name"]: m["readouts"] for m in members}))
    assert not any("charts" in text for text in sent["readouts"].values())


@pytest.mark.parametrize("page", [p for p in FIGURE_PAGES if lesson(p).chart_readouts])
def test_the_readouts_a_lesson_declares_per_chart_are_readouts_it_shows(page):
    spec = lesson(page)
    shown_labels, charts = set(), set()
    for name, values in short_cases(page) if page == "lru_stability" else cases(page):
        result = SHORT_COMPUTE.get(page, spec.compute)(values)
        shown_labels |= {m["label"] for m in readouts(spec, values, result)[0]}
        charts |= set(spec.figures(values, result))
        if name == "defaults":
            notes = chart_notes(spec, values, result)
            texts = page_charts(page, values)
            for chart, note in notes.items():
                assert texts[chart][1]["summary"].startswith(f"{title_of(texts[chart][0], chart)}: {note}")
    for chart, labels in spec.chart_readouts:
        assert chart in charts, f"{page}: no chart {chart!r}"
        assert set(labels) <= shown_labels, f"{page}: never shown: {set(labels) - shown_labels}"


# --- the words and numbers themselves -------------------------------------------------------------------------
def test_numbers_are_written_plainly():
    assert [number(v) for v in (0.98123, -0.0, 1.5e-5, 123456.0, float("inf"), float("nan"), 20.0)] == \
        ["0.981", "0", "1.5e-5", "1.23e5", "infinite", "undefined", "20"]
    assert column(np.array([0.86314, 12345.6, -0.000123456, 20.0, np.nan, np.inf, 1.28e-24, 0.0])) == \
        [0.8631, 12350, -0.0001235, 20, None, "∞", 1.28e-24, 0]
    assert [shown(v) for v in (0.8631, 12350, 1.28e-24, None, "key 1", 0)] == \
        ["0.8631", "1.235e+04", "1.28e-24", "", "key 1", "0"]
    assert cell("a") == "a" and cell(3.14159) == 3.142
    rounded = column(np.random.default_rng(0).normal(size=2000) * 10.0 ** np.random.default_rng(1).integers(-20, 20,
                                                                                                             2000))
    assert all(len(json.dumps(v)) <= 24 for v in rounded)     # never 0.86310000000000001


def test_tables_are_thinned_evenly_with_their_ends():
    for n in (1, 2, 50, 51, 601, 10_000):
        picked = thinned(n, MAX_ROWS)
        assert len(picked) == min(n, MAX_ROWS) and picked[0] == 0 and picked[-1] == n - 1
        assert np.all(np.diff(picked) > 0)


def test_a_path_a_few_points_and_a_flat_line_are_said_as_such():
    import plotly.graph_objects as go

    from lcsm_explorer.app.kit.figure_style import axis, build
    t = np.linspace(0, 10, 201)
    fig = plain_chart(build([go.Scatter(x=np.cos(t), y=np.sin(t), name="circle"),
                             go.Scatter(x=[1.0, 2.0], y=[3.0, 4.0], mode="markers", name="poles"),
                             go.Scatter(x=t, y=np.full_like(t, 0.5), name="flat")],
                            "Shapes", xaxis=axis("t (s)"), yaxis=axis("v")))
    summary = chart_text(fig)["summary"]
    assert summary.startswith("Shapes: circle: a path from (1, 0) to (-0.839, -0.544)")
    assert "poles at (1, 3) and (2, 4)" in summary and "flat: stays at 0.5 from t = 0 s to t = 10 s" in summary
    decaying = plain_chart(build([go.Scatter(x=t, y=np.exp(-t) * np.cos(3 * t), name="x")], "Decay",
                                 xaxis=axis("t (s)")))
    assert "settles by t = " in chart_text(decaying, "underdamped")["summary"]
    assert chart_text(decaying, "underdamped")["summary"].startswith("Decay: underdamped; x: highest 1 at t = 0 s")


def test_the_html_table_escapes_and_heads_its_rows_and_columns():
    text = {"summary": "a <b> & c", "tables": [{"caption": "x<1", "headers": ["t (s)", "y"],
                                                 "columns": [[0, 0.5], [1.25, None]]}]}
    html = data_html(text)
    assert "a &lt;b&gt; &amp; c" in html and "<caption>x&lt;1</caption>" in html and "\n" not in html
    assert '<th scope="col">t (s)</th>' in html and '<th scope="row">0.5</th><td></td>' in html
    assert rows_of(text["tables"][0]) == [["0", "1.25"], ["0.5", ""]]


# --- Streamlit's charts: the summary as the chart's name, the tables under it ------------------------------
def test_a_streamlit_chart_is_named_by_its_summary_and_shows_its_data():
    from tests.app.pages import open_page
    at = open_page("eos_view")
    assert not at.exception
    spec = lesson("eos_view")
    values = spec.settings.defaults
    texts = {chart: text for chart, (_, text) in page_charts("eos_view", values).items()}
    charts = at.get("plotly_chart")
    assert [c.proto.alt for c in charts] == [texts[name]["summary"] for name in spec.chart_names()]
    shown_data = [e for e in at.expander if e.label == DATA_LABEL]
    assert len(shown_data) == len(charts)
    first = shown_data[0].markdown[0].value
    assert first.startswith('<div class="lcsm-chart-data"><p>') and first.count("<table>") == len(
        texts["states"]["tables"])
    saves = [b for b in at.get("download_button") if b.proto.label.startswith("Save as")]   # SVG, PNG per chart
    assert saves and [b.proto.label for b in saves[:2]] == ["Save as SVG", "Save as PNG"] or unavailable()


SCRIPT = '''
import numpy as np
import plotly.graph_objects as go
import streamlit as st
from lcsm_explorer.app.kit.chart_element import chart_spec
from lcsm_explorer.app.kit.figure_style import axis, build
from lcsm_explorer.app.kit.widgets import show_chart
x = np.linspace(0, 1, 50)
fig = build([go.Scatter(x=x, y=x ** 2, name="square")], "a chart", xaxis=axis("t"))
show_chart(fig, "figure")
st.plotly_chart(fig, alt=chart_spec(fig).text["summary"], key="by-streamlit")
'''


def test_the_chart_element_carries_alt_as_st_plotly_chart_does():
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert not at.exception
    ours, theirs = at.get("plotly_chart")
    assert ours.proto.alt == theirs.proto.alt == "a chart: square: rises from 0 at t = 0 to 1 at t = 1."

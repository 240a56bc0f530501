"""Colour is never the only cue, and every chart's text and lines stand out, in Streamlit's light and dark themes
(app/kit/figure_style.py, "Colour"; the colour arithmetic: tests/colour_vision.py).

- The palette: its colours (and the neutral GREY, and the theme's INK in both themes) stay at least
  `MIN_DELTA_E` (CIEDE2000) apart seen normally and under simulated protanopia, deuteranopia and tritanopia, and
  each holds 3:1 against both themes' backgrounds.
- Every chart of every page at its defaults (and the live pages' builders): the series its legend names on one
  plot are drawn in the palette's colours and differ by something besides colour (dash, width, marker, bar
  pattern, lines against markers).
- The same charts, drawn in each theme: every piece of text (the figure's font, titles, tick labels, axis titles,
  colour bar ticks, notes, hover labels) at 4.5:1 against what it stands on, every line, marker and bar at 3:1
  against the chart's background (a marker may stand out by its outline).
"""
from __future__ import annotations

import itertools

import pytest

from lcsm_explorer.app.kit.figure_style import DASHES, GREY, INK, PALETTE, PAPER
from lcsm_explorer.app.lessons import lesson
from lcsm_explorer.app.lessons.paper_lab import accuracy_figure
from lcsm_explorer.app.lessons.train_live import curves_figure, eigen_figure, last_eigenvalues_figure, overlay_figure
from tests.app.test_figure_hygiene import FIGURE_PAGES, SHORT_COMPUTE, fake_metrics, fake_snapshots
from tests.colour_vision import DEFICIENCIES, THEMES, contrast, delta_e, resolved

MIN_DELTA_E = 12.0      # CIEDE2000; 2.3 is a just-noticeable difference, Okabe & Ito's orange and yellow fall to 11.6
TEXT, GRAPHICS = 4.5, 3.0                       # WCAG 2.2 AA: 1.4.3 (text), 1.4.11 (graphical objects)
ROLES = [*PALETTE, GREY, INK]                   # every colour a named series may have
VIEWS = ("normal", *DEFICIENCIES)


def palette_in(theme: str) -> list[str]:
    return [resolved(c, theme) for c in ROLES]


def closest_pair(colours: list[str], view: str) -> tuple[float, str, str]:
    return min((delta_e(a, b, view), a, b) for a, b in itertools.combinations(colours, 2))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("view", VIEWS)
def test_the_palette_stays_apart_under_each_deficiency(theme, view):
    found, a, b = closest_pair(palette_in(theme), view)
    assert found >= MIN_DELTA_E, f"{view}, {theme}: {a} and {b} are ΔE2000 {found:.1f} apart"


@pytest.mark.parametrize("theme", THEMES)
def test_every_series_colour_holds_3_to_1_on_the_background(theme):
    for colour in palette_in(theme):
        ratio = contrast(colour, resolved(PAPER, theme))
        assert ratio >= GRAPHICS, f"{colour} on {theme}: {ratio:.2f}:1"


def test_the_theme_placeholders_are_streamlits():
    """INK and PAPER are the placeholders Streamlit's plotly template uses for its text and background colours."""
    from streamlit.elements.lib.streamlit_plotly_theme import BG_COLOR, GRAY_90
    assert (INK, PAPER) == (GRAY_90, BG_COLOR)


# --- every chart ----------------------------------------------------------------------------------------------
def page_figures() -> list[tuple[str, dict]]:
    found = []
    for page in FIGURE_PAGES:
        spec = lesson(page)
        values = spec.settings.defaults
        result = SHORT_COMPUTE.get(page, spec.compute)(values)
        found += [(f"{page} {chart}", fig.to_dict()) for chart, fig in spec.figures(values, result).items()]
    from lcsm_core.paper_lab import DEFAULT_SPECS, shipped_grid
    grid = DEFAULT_SPECS["data_dependence"]
    found += [("train_live curves", curves_figure(fake_metrics(120, 0, diverge=True), "training", 118.0).to_dict()),
              ("train_live eigenvalues", eigen_figure(fake_snapshots(12, 1)).to_dict()),
              ("train_live compare eigenvalues",
               last_eigenvalues_figure([(f"run {n}", fake_snapshots(2, n)) for n in range(4)]).to_dict()),
              ("train_live compare", overlay_figure([(f"run {n}", fake_metrics(60, n)) for n in range(8)]).to_dict()),
              ("paper_lab accuracy", accuracy_figure(grid, shipped_grid(grid).results).to_dict())]
    return found


FIGURES = page_figures()
NAMES = [name for name, _ in FIGURES]


def named_series(fig: dict) -> list[dict]:
    """The traces a legend names (what a reader compares by their look)."""
    return [t for t in fig["data"] if t.get("name") and t.get("showlegend") is not False
            and t.get("type", "scatter") in ("scatter", "bar", "histogram")]


def colour_of(trace: dict) -> str | None:
    for part in ("line", "marker"):
        colour = (trace.get(part) or {}).get("color")
        if isinstance(colour, str) and not (part == "line" and (trace.get("line") or {}).get("width") == 0):
            return colour
    return None


def look(trace: dict) -> tuple:
    """What tells a series apart besides its colour."""
    line, marker = trace.get("line") or {}, trace.get("marker") or {}
    mode = trace.get("mode", "lines" if trace.get("type", "scatter") == "scatter" else "bars")
    return (trace.get("type", "scatter"), mode, line.get("dash", "solid"), line.get("width"),
            (marker.get("symbol", "circle"), marker.get("size")) if "markers" in mode else None,
            (marker.get("pattern") or {}).get("shape"),
            trace.get("fill"))


@pytest.mark.parametrize("name", NAMES)
def test_compared_series_differ_by_more_than_colour(name):
    """On one plot, series the legend names are drawn in the palette's colours, and any two differ by dash, width,
    marker or pattern; where a plot holds more series than there are dashes (a live page's runs or layers), two of
    them may share those if their colours stay `MIN_DELTA_E` apart under every deficiency (`series_style`)."""
    fig = dict(FIGURES)[name]
    plots: dict[tuple, list[dict]] = {}
    for trace in named_series(fig):
        plots.setdefault((trace.get("xaxis", "x"), trace.get("yaxis", "y")), []).append(trace)
    for series in plots.values():
        if len({t["name"] for t in series}) < 2:
            continue
        for trace in series:
            colour = colour_of(trace)
            scaled = "colorscale" in (trace.get("marker") or {})          # coloured by a value: its colour bar
            assert trace.get("fill") or scaled or colour in ROLES, f"{name}: {trace['name']!r} in {colour}"
        for a, b in itertools.combinations(series, 2):
            if a["name"] == b["name"] or look(a) != look(b):
                continue
            assert len(series) > len(DASHES), f"{name}: {a['name']!r} and {b['name']!r} differ by colour alone"
            for theme, view in itertools.product(THEMES, VIEWS):
                apart = delta_e(resolved(colour_of(a), theme), resolved(colour_of(b), theme), view)
                assert apart >= MIN_DELTA_E, f"{name}: {a['name']!r} and {b['name']!r}, {view} {theme}: ΔE {apart:.1f}"
        for theme in THEMES:
            colours = sorted({resolved(c, theme) for c in map(colour_of, series) if c in ROLES})
            for view in VIEWS:
                if len(colours) > 1:
                    found, a, b = closest_pair(colours, view)
                    assert found >= MIN_DELTA_E, f"{name} ({theme}, {view}): {a}, {b} ΔE2000 {found:.1f}"


def text_parts(fig: dict):
    """(where, font colour, background) of every piece of text a chart draws (None: inherited from the figure's
    font). Axis tick labels and titles must name their colour: Streamlit's template colours them otherwise."""
    layout = fig["layout"]
    paper = layout.get("paper_bgcolor", PAPER)
    yield "font", (layout.get("font") or {}).get("color"), paper
    yield "title", ((layout.get("title") or {}).get("font") or {}).get("color"), paper
    for key, spec in layout.items():
        if key[:5] in ("xaxis", "yaxis"):
            yield f"{key} ticks", (spec.get("tickfont") or {}).get("color", "unset"), paper
            yield f"{key} title", ((spec.get("title") or {}).get("font") or {}).get("color", "unset"), paper
    hover = layout.get("hoverlabel") or {}
    yield "hover label", (hover.get("font") or {}).get("color", "unset"), hover.get("bgcolor", "unset")
    for note in layout.get("annotations", []):
        yield f"note {note.get('text')!r}", (note.get("font") or {}).get("color"), note.get("bgcolor") or paper
    for trace in fig["data"]:
        for bar in (trace.get("colorbar"), (trace.get("marker") or {}).get("colorbar")):
            if bar is not None:
                yield "colour bar", (bar.get("tickfont") or {}).get("color"), paper


def worst_contrast(colour: str, background: str, theme: str) -> float:
    """Text over a translucent box is read over whatever lies beneath it: the worst of white, black and the page."""
    if resolved(background, theme, "white") == resolved(background, theme, "black"):
        return contrast(resolved(colour, theme), resolved(background, theme))
    return min(contrast(resolved(colour, theme), resolved(background, theme, beneath))
               for beneath in ("white", "black", PAPER))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("name", NAMES)
def test_chart_text_holds_4_5_to_1(name, theme):
    fig = dict(FIGURES)[name]
    font = (fig["layout"].get("font") or {}).get("color")
    for where, colour, background in text_parts(fig):
        assert colour != "unset" and background != "unset", f"{name}: {where} leaves its colour to the template"
        colour = colour or font
        assert colour is not None, f"{name}: {where} has no colour"
        ratio = worst_contrast(colour, background, theme)
        assert ratio >= TEXT, f"{name} ({theme}): {where} {resolved(colour, theme)} at {ratio:.2f}:1"


def graphics(fig: dict):
    """(where, [(colour, opacity) it may stand out by]) of every line, marker and bar drawn on the chart's
    background (a heat map's contours lie on the map; a fill is named by its outline or its legend entry). A colour
    array (a colour scale) is told apart by the markers' outline."""
    for trace in fig["data"]:
        kind, name = trace.get("type", "scatter"), trace.get("name")
        opacity = trace.get("opacity", 1)
        line, marker = trace.get("line") or {}, trace.get("marker") or {}
        fill = [(marker.get("color", line.get("color")), opacity * marker.get("opacity", 1))]   # plotly's default
        if kind == "scatter":
            mode = trace.get("mode", "lines")
            if "lines" in mode and line.get("width", 2) > 0:
                yield f"{name} line", [(line.get("color"), opacity)]
            if "markers" in mode:
                outline = marker.get("line") or {}
                yield f"{name} markers", fill + ([(outline.get("color"), opacity)] if outline.get("width", 0) else [])
        elif kind in ("bar", "histogram"):
            yield f"{name} bars", fill
    for shape in fig["layout"].get("shapes", []):
        if shape.get("type") == "line" and (shape.get("line") or {}).get("width", 1) > 0:
            yield f"line at {shape.get('x0')}, {shape.get('y0')}", [(shape["line"].get("color"), 1)]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("name", NAMES)
def test_chart_lines_hold_3_to_1(name, theme):
    fig = dict(FIGURES)[name]
    paper = resolved(fig["layout"].get("paper_bgcolor", PAPER), theme)
    for where, colours in graphics(fig):
        ratios = [contrast(resolved(c, theme, opacity=o), paper) for c, o in colours if isinstance(c, str)]
        assert ratios and max(ratios) >= GRAPHICS, f"{name} ({theme}): {where} {colours}: {ratios}"


def test_the_checks_catch_what_the_issue_found():
    """Grey template text (#808495, 3.7:1 on white), plotly's orange line (2.2:1 on white), two runs told apart by
    red and green alone, and a near-black line on the dark theme each fail their check."""
    from lcsm_explorer.app.kit.figure_style import build, scatter

    def run(name: str, colour: str, **line):
        return scatter(y=[1.0, 2.0], name=name, mode="lines", line=dict(color=colour, **line))

    fine = build([run("a", PALETTE[0]), run("b", PALETTE[1], dash="dash")], "t").to_dict()
    FIGURES.append(("fine", fine))
    grey_ticks = build([run("a", PALETTE[0])], "t", xaxis=dict(tickfont=dict(color="#808495"))).to_dict()
    orange = build([run("a", "#ff7f0e")], "t").to_dict()
    red_green = build([run("a", "#d62728"), run("b", "#2ca02c")], "t").to_dict()
    black = build([run("a", "#222222")], "t").to_dict()
    FIGURES.extend([("grey ticks", grey_ticks), ("orange", orange), ("red green", red_green), ("black", black)])
    try:
        test_compared_series_differ_by_more_than_colour("fine")
        for theme in THEMES:
            test_chart_text_holds_4_5_to_1("fine", theme)
            test_chart_lines_hold_3_to_1("fine", theme)
        for check, name, theme in ((test_chart_text_holds_4_5_to_1, "grey ticks", "light"),
                                   (test_chart_lines_hold_3_to_1, "orange", "light"),
                                   (test_chart_lines_hold_3_to_1, "black", "dark")):
            with pytest.raises(AssertionError):
                check(name, theme)
        with pytest.raises(AssertionError):
            test_compared_series_differ_by_more_than_colour("red green")
    finally:
        del FIGURES[-5:]

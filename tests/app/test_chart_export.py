"""A chart saved as SVG or PNG from its data line (app/kit/chart_export.py): drawn by plotly's Kaleido in the
system's chromium from the spec the page sent, on white paper; where Kaleido or chromium is missing, a sentence that
says what to install (never a traceback)."""
from __future__ import annotations

import builtins
import json

import plotly.graph_objects as go
import pytest

from lcsm_explorer.app.kit import chart_export
from lcsm_explorer.app.kit.chart_element import chart_spec
from lcsm_explorer.app.kit.figure_style import axis, build
from lcsm_explorer.app.kit.internals.plotly_theme import THEME_BACKGROUND, THEME_TEXT
from tests.browser.app_server import IN_CI


@pytest.fixture
def chart():
    return chart_spec(build([go.Scatter(x=[0, 1, 2], y=[1, 0.5, 0.25], name="decay")], "a decay",
                            xaxis=axis("t"), yaxis=axis("x")))


def test_a_saved_chart_goes_on_white_paper(chart):
    assert THEME_TEXT in chart.spec                                     # the page's theme decides, in the browser
    paper = chart_export.on_paper(chart.spec)
    text = json.dumps(paper)
    assert THEME_TEXT not in text and THEME_BACKGROUND not in text
    assert chart_export.LIGHT_TEXT in text and paper["data"][0]["name"] == "decay"


def test_only_svg_and_png(chart):
    with pytest.raises(ValueError, match="svg or png"):
        chart_export.chart_file(chart.spec, chart.height, "pdf")


def test_what_is_missing_is_said(monkeypatch):
    real_import = builtins.__import__

    def without_kaleido(name, *args, **kwargs):
        if name == "kaleido":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)
    chart_export.unavailable.cache_clear()
    monkeypatch.setattr(builtins, "__import__", without_kaleido)
    assert "pip install" in chart_export.unavailable()
    monkeypatch.setattr(builtins, "__import__", real_import)
    chart_export.unavailable.cache_clear()
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setattr(chart_export.shutil, "which", lambda name: None)
    assert "apt-get install chromium" in chart_export.unavailable()
    chart_export.unavailable.cache_clear()


@pytest.mark.slow
def test_the_files_are_an_svg_and_a_png_of_the_chart(chart):
    missing = chart_export.unavailable()
    if missing and not IN_CI:
        pytest.skip(missing)
    svg = chart_export.chart_file(chart.spec, chart.height, "svg").decode()
    assert svg.startswith("<svg") and "a decay" in svg and chart_export.LIGHT_TEXT.lower() in svg.lower().replace(
        "rgb(49, 51, 63)", chart_export.LIGHT_TEXT.lower())
    png = chart_export.chart_file(chart.spec, chart.height, "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (chart_export.WIDTH * chart_export.PNG_SCALE, chart.height * chart_export.PNG_SCALE)

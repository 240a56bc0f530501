"""A chart Streamlit draws, saved as SVG or PNG from a download control under it (not the chart's tool bar).

The server draws the file with plotly's own `plotly.io.to_image` (Kaleido: plotly.js in a headless Chromium, the
browser the app's tests use), from the chart's spec as the page sent it, only when a learner asks for it (a deferred
`st.download_button`). The spec's theme placeholders become the light theme's colours: a saved chart goes on white
paper. One drawing at a time per process: each starts a browser, and a class clicking at once waits its turn
instead of starting thirty. Where Kaleido or a Chromium is missing, `unavailable()` says what to install, and the
page shows that sentence instead of the buttons. The lesson instrument saves its charts in the browser
(`Plotly.downloadImage`, instrument.js): no server round trip.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import threading

from .internals.plotly_theme import THEME_BACKGROUND, THEME_TEXT

FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
LIGHT_TEXT, LIGHT_BACKGROUND = "#31333F", "#FFFFFF"        # Streamlit's light theme: text, background
WIDTH = 900                                               # a saved chart's width in CSS px (its height: the chart's)
PNG_SCALE = 2                                             # as the tool bar's PNG
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
_ONE_AT_A_TIME = threading.Lock()


@functools.cache
def unavailable() -> str | None:
    """Why this server cannot draw a chart's file (None: it can), in a sentence a learner or operator can act on."""
    try:
        import kaleido  # noqa: F401
    except ImportError:
        return "Saving charts as SVG or PNG needs Kaleido on the server: pip install kaleido."
    if not (os.environ.get("BROWSER_PATH") or any(shutil.which(name) for name in BROWSERS)):
        return ("Saving charts as SVG or PNG needs Chromium on the server (Debian: apt-get install chromium; "
                "or BROWSER_PATH=/path/to/chrome).")
    return None


def on_paper(spec: str) -> dict:
    """The chart's figure as it goes on paper: the theme's placeholders replaced by the light theme's colours."""
    return json.loads(spec.replace(THEME_TEXT, LIGHT_TEXT).replace(THEME_BACKGROUND, LIGHT_BACKGROUND))


def chart_file(spec: str, height: int, fmt: str) -> bytes:
    """The chart (its spec, as `ChartSpec.spec`) drawn as an SVG or PNG file."""
    if fmt not in FORMATS:
        raise ValueError(f"a chart is saved as {' or '.join(FORMATS)}, not {fmt!r}")
    import plotly.io

    figure = on_paper(spec)
    with _ONE_AT_A_TIME:
        return plotly.io.to_image(figure, format=fmt, width=WIDTH, height=height,
                                  scale=PNG_SCALE if fmt == "png" else 1, validate=False)

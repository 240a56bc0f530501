"""A plotly chart sent from its finished JSON spec: `ChartSpec` (built once, cached) and `emit_chart`.

`st.plotly_chart(fig)` rebuilds the figure's plotly objects on every call (validation of a dict, `to_dict()` deep
copies, `plotly.io.to_json`): on a lesson page that was about half of a rerun's CPU, for charts whose settings had
not changed. Here a chart is serialized once (`chart_spec`, exactly as `st.plotly_chart` does it), cached by the
renderer, and `emit_chart` enqueues the same element from the cached string.

PRIVATE STREAMLIT API: `emit_chart` mirrors the non-selection path of
`streamlit/elements/plotly_chart.py::PlotlyMixin.plotly_chart` of the pinned streamlit 1.67.0 (the proto fields,
the element id from `compute_and_register_element_id`, `LayoutConfig(width, height)`, `dg._enqueue`).
tests/app/test_chart_element.py compares what it enqueues with what `st.plotly_chart` enqueues for the same figure.
Where those internals are missing (another streamlit), it falls back to `st.plotly_chart` on the parsed spec.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import streamlit as st

try:                                                      # streamlit 1.67.0 internals (see the docstring)
    from streamlit.elements.lib.form_utils import current_form_id
    from streamlit.elements.lib.layout_utils import LayoutConfig
    from streamlit.elements.lib.utils import compute_and_register_element_id
    from streamlit.proto.PlotlyChart_pb2 import PlotlyChart as PlotlyChartProto
    INTERNALS = True
except ImportError:                                       # pragma: no cover - another streamlit
    INTERNALS = False

THEME = "streamlit"
WIDTH = "stretch"
DEFAULT_HEIGHT = 450                                      # plotly.js's, as streamlit resolves "content"
SELECTION_MODE = ("points", "box", "lasso")               # st.plotly_chart's default (part of the element id)


@dataclass(frozen=True)
class ChartSpec:
    """One chart as the browser receives it: `spec`, the figure's JSON (plotly.io.to_json), and its height."""

    spec: str
    height: int = DEFAULT_HEIGHT

    @property
    def nbytes(self) -> int:
        return len(self.spec)


def chart_spec(fig) -> ChartSpec:
    """The spec `st.plotly_chart(fig)` would send, for a plotly Figure or a figure dict (validated as it does)."""
    import plotly.io
    import plotly.tools

    figure = plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
    return ChartSpec(plotly.io.to_json(figure, validate=False), figure_height(figure))


def figure_height(figure: dict) -> int:
    height = (figure.get("layout") or {}).get("height")
    return int(height) if isinstance(height, int | float) and height > 0 else DEFAULT_HEIGHT


def emit_chart(chart: ChartSpec, config: dict[str, Any], *, key: str, container=None) -> None:
    """Draw `chart` in `container` (default: the current place on the page), as st.plotly_chart would with
    `config`, `key`, width "stretch", height "content", the streamlit theme and no selections."""
    dg = container if container is not None else st._main      # `_enqueue` finds the active block itself
    if not INTERNALS or not hasattr(dg, "_enqueue"):
        dg.plotly_chart(json.loads(chart.spec), config=config, key=key)
        return
    proto = PlotlyChartProto()
    proto.theme = THEME
    proto.form_id = current_form_id(dg)
    proto.spec = chart.spec
    proto.config = json.dumps(config)
    proto.id = compute_and_register_element_id(
        "plotly_chart", user_key=key, key_as_main_identity=False, dg=dg, plotly_spec=proto.spec,
        plotly_config=proto.config, selection_mode=SELECTION_MODE, is_selection_activated=False, theme=THEME,
        width=WIDTH, height="content", alt=None)
    dg._enqueue("plotly_chart", proto, layout_config=LayoutConfig(width=WIDTH, height=chart.height))

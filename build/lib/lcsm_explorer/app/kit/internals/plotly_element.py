"""A plotly chart element enqueued from its finished JSON spec, as `st.plotly_chart` enqueues it.

PRIVATE STREAMLIT API: `enqueue_plotly_chart` mirrors the non-selection path of
`streamlit/elements/plotly_chart.py::PlotlyMixin.plotly_chart` (the PlotlyChart proto's fields, the element id
from `compute_and_register_element_id` — given the spec's identity instead of the spec itself —,
`LayoutConfig(width, height)`, `DeltaGenerator._enqueue`), so that a cached chart is not serialized again on every
rerun. tests/app/test_chart_element.py compares what it enqueues with what `st.plotly_chart` enqueues. Where those
internals are missing or take other parameters (`missing()`), it enqueues nothing and says so: the caller draws
the chart with `st.plotly_chart` (the public path).
"""
from __future__ import annotations

import json
from typing import Any

import streamlit as st

from .signatures import has_parameters, nothing_missing

try:
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.elements.lib.form_utils import current_form_id
    from streamlit.elements.lib.layout_utils import LayoutConfig
    from streamlit.elements.lib.utils import compute_and_register_element_id
    from streamlit.proto.PlotlyChart_pb2 import PlotlyChart as PlotlyChartProto
    IMPORTED = True
except ImportError:                                       # another streamlit: `missing()` says so
    IMPORTED = False

THEME = "streamlit"
WIDTH = "stretch"
SELECTION_MODE = ("points", "box", "lasso")               # st.plotly_chart's default (part of the element id)
PROTO_FIELDS = ("theme", "form_id", "spec", "config", "alt", "id")
_usable: bool | None = None                                # `missing()`'s answer, asked once


def missing() -> list[str]:
    """What this Streamlit lacks of what `enqueue_plotly_chart` calls, with the parameters it passes (empty: it
    can enqueue)."""
    if not IMPORTED:
        return ["streamlit.elements.lib's form_utils, layout_utils, utils and streamlit.proto.PlotlyChart_pb2"]
    found = []
    if not has_parameters(getattr(DeltaGenerator, "_enqueue", None), ("layout_config",)):
        found.append("DeltaGenerator._enqueue(delta_type, element_proto, layout_config)")
    if not has_parameters(compute_and_register_element_id, ("element_type", "user_key", "dg", "key_as_main_identity")):
        found.append("compute_and_register_element_id(element_type, user_key, dg, key_as_main_identity)")
    if not has_parameters(LayoutConfig, ("width", "height")):
        found.append("LayoutConfig(width, height)")
    fields = set(PlotlyChartProto.DESCRIPTOR.fields_by_name)
    if not set(PROTO_FIELDS) <= fields:
        found.append(f"PlotlyChart proto fields {sorted(set(PROTO_FIELDS) - fields)}")
    return found


def usable() -> bool:
    """Whether `enqueue_plotly_chart` can enqueue here (`missing()` empty), asked once per process."""
    global _usable
    if _usable is None:
        _usable = nothing_missing(missing)
    return _usable


def enqueue_plotly_chart(spec: str, identity: str, height: int, config: dict[str, Any], *, key: str,
                         alt: str | None, container=None) -> bool:
    """Enqueue the chart `spec` (plotly.io.to_json of the figure; `identity` stands for it in the element id) in
    `container` (default: the current place on the page), as st.plotly_chart would with `config`, `key`, width
    "stretch", height "content", the streamlit theme, no selections and `alt`; whether it was enqueued (False:
    draw it with st.plotly_chart)."""
    dg = container if container is not None else st._main      # `_enqueue` finds the active block itself
    if not usable() or not hasattr(dg, "_enqueue"):
        return False
    proto = PlotlyChartProto()
    proto.theme = THEME
    proto.form_id = current_form_id(dg)
    proto.spec = spec
    proto.config = json.dumps(config)
    if alt is not None:
        proto.alt = alt
    proto.id = compute_and_register_element_id(
        "plotly_chart", user_key=key, key_as_main_identity=False, dg=dg, plotly_spec=identity,
        plotly_config=proto.config, selection_mode=SELECTION_MODE, is_selection_activated=False, theme=THEME,
        width=WIDTH, height="content", alt=alt)
    dg._enqueue("plotly_chart", proto, layout_config=LayoutConfig(width=WIDTH, height=height))
    return True

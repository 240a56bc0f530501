"""`emit_chart` (a private-API mirror of st.plotly_chart, `app.kit.chart_element`) enqueues what st.plotly_chart
enqueues for the same figure: the same parsed spec, config, theme, form and layout (width, height)."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from app.kit.chart_element import INTERNALS

SCRIPT = '''
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from app.kit.chart_element import chart_spec, emit_chart
from app.kit.figure_style import axis, build
import numpy as np
import plotly.graph_objects as go

ENQUEUED = []
original = DeltaGenerator._enqueue

def recording(self, delta_type, proto, layout_config=None, **kw):
    if delta_type == "plotly_chart":
        ENQUEUED.append((proto.spec, proto.config, proto.theme, proto.form_id, layout_config.width,
                         layout_config.height))
    return original(self, delta_type, proto, layout_config=layout_config, **kw)

DeltaGenerator._enqueue = recording
try:
    x = np.linspace(0, 1, 50)
    fig = build([go.Scatter(x=x, y=np.sin(x), name="sin")], "a chart", height=300, xaxis=axis("t"))
    config = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "filename": "f", "scale": 2}}
    left, right = st.columns(2)
    left.plotly_chart(fig, config=config, key="by-streamlit")
    emit_chart(chart_spec(fig), config, key="by-spec", container=right)
    with st.container():
        emit_chart(chart_spec(fig.to_dict()), config, key="in-a-block")
finally:
    DeltaGenerator._enqueue = original
st.session_state["enqueued"] = ENQUEUED
'''


def test_the_spec_element_matches_st_plotly_chart():
    assert INTERNALS, "streamlit's plotly_chart internals moved: emit_chart falls back to st.plotly_chart"
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert not at.exception
    theirs, *ours = at.session_state["enqueued"]
    assert len(ours) == 2
    for mine in ours:
        assert json.loads(mine[0]) == json.loads(theirs[0])                 # the figure
        assert json.loads(mine[1]) == json.loads(theirs[1])                 # the config
        assert mine[2:] == theirs[2:] == ("streamlit", "", "stretch", 300)  # theme, form, width, height
    charts = at.get("plotly_chart")
    assert len(charts) == 3 and len({c.proto.id for c in charts}) == 3 and all(c.proto.id for c in charts)

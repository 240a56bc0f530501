"""`emit_chart` (a private-API mirror of st.plotly_chart, `app/kit/chart_element.py`) enqueues what st.plotly_chart
enqueues for the same figure: the same parsed spec, config, theme, form and layout (width, height)."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from lcsm_explorer.app.kit.internals import plotly_element

SCRIPT = '''
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from lcsm_explorer.app.kit.chart_element import chart_spec, emit_chart
from lcsm_explorer.app.kit.figure_style import axis, build
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
    assert plotly_element.usable(), "streamlit's plotly_chart internals moved: emit_chart falls back to st.plotly_chart"
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


# --- chart_spec (no deep copy of the figure) writes what st.plotly_chart's way writes ----------------------
def edge_figures():
    """Figures whose arrays take each of plotly's conversion paths: float32/float64, int64 narrowed, a 2-D z,
    an empty array, a byte-swapped array, an array under a skipped key ("range"), a list, numpy scalars, frames."""
    import numpy as np
    import plotly.graph_objects as go

    from lcsm_explorer.app.kit.figure_style import build

    x = np.linspace(0, 1, 40)
    yield build([go.Scatter(x=x, y=np.sin(x), name="sin"), go.Scatter(x=np.arange(40), y=x.astype(np.float32))],
                "floats and ints", xaxis=dict(range=np.array([0.0, 1.0])))
    yield build([go.Heatmap(z=np.arange(12.0).reshape(3, 4)), go.Scatter(x=np.zeros(0), y=np.zeros(0))], "2-D")
    yield go.Figure(go.Scatter(x=np.arange(5, dtype=">f8"), y=[1, 2, np.float64(3.5)], text=np.array(["a"] * 5)))
    yield go.Figure(go.Scatter(x=np.array([0, 2**40]), y=np.array([1, 2], dtype=np.uint64)),
                    frames=[go.Frame(data=[go.Scatter(x=x, y=x ** 2)], name="f")])


def test_chart_spec_writes_the_reference_spec():
    from lcsm_explorer.app.kit.chart_element import chart_spec, reference_chart_spec

    for fig in edge_figures():
        before = fig.to_dict()
        assert chart_spec(fig) == reference_chart_spec(fig)
        assert json.dumps(fig.to_dict(), default=str) == json.dumps(before, default=str)   # the figure unchanged


def test_chart_spec_writes_the_reference_spec_for_every_lesson_chart():
    """Every chart of every lesson with figures, at its defaults and presets: the same string, byte for byte."""
    from lcsm_explorer.app.kit.chart_element import chart_spec, reference_chart_spec
    from lcsm_explorer.app.lessons import lesson
    from tests.app.test_figure_hygiene import FIGURE_PAGES, SHORT_COMPUTE, cases

    for page in FIGURE_PAGES:
        spec = lesson(page)
        for name, values in cases(page):
            if name != "defaults" and not name.startswith("preset"):
                continue
            for chart, fig in spec.figures(values, SHORT_COMPUTE.get(page, spec.compute)(values)).items():
                assert chart_spec(fig) == reference_chart_spec(fig), f"{page} [{name}] {chart}"


ID_SCRIPT = '''
import streamlit as st
import numpy as np
import plotly.graph_objects as go
from lcsm_explorer.app.kit.chart_element import chart_spec, emit_chart
from lcsm_explorer.app.kit.figure_style import build

amplitude = st.session_state.get("amplitude", 1.0)
x = np.linspace(0, 1, 50)
emit_chart(chart_spec(build([go.Scatter(x=x, y=amplitude * x)], "a chart")), {}, key="chart")
'''


def test_the_element_id_follows_the_spec():
    """The id is computed from the spec's identity: the same spec keeps its id across reruns, a new one gets a new
    id (as with st.plotly_chart, which hashes the whole spec)."""
    at = AppTest.from_string(ID_SCRIPT, default_timeout=60).run()
    first = at.get("plotly_chart")[0].proto.id
    assert at.run().get("plotly_chart")[0].proto.id == first
    at.session_state["amplitude"] = 2.0
    assert at.run().get("plotly_chart")[0].proto.id != first

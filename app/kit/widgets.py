"""Streamlit pieces the renderer and the live pages share: a setting's widget, preset buttons,
a chart with its words and SVG/PNG downloads, a row of metrics and notices."""
from __future__ import annotations

import functools
from collections.abc import Sequence

import plotly.graph_objects as go
import streamlit as st

from . import chart_export
from .chart_element import ChartSpec, chart_spec, emit_chart
from .chart_text import data_html
from .classroom import ClassroomView, presenter_figure
from .lesson import Metric, Notice
from .settings import Preset, Setting, Settings
from .url_state import apply_values

PRESENTING_KEY = "classroom.presenting"       # set by the renderer each run: charts drawn for a projector


def draw_setting(setting: Setting, key: str, values: dict, disabled: bool = False) -> None:
    """The widget a setting declares, bound to its session-state key (its value lives there)."""
    common = dict(key=key, help=setting.help, on_change=setting.on_change, disabled=disabled)
    names = setting.option_labels.get if setting.option_labels else str
    if setting.widget == "slider":
        st.slider(setting.label, setting.low, type(setting.low)(setting.upper(values)), step=setting.step,
                  format=setting.format, **common)
    elif setting.widget == "number":
        st.number_input(setting.label, setting.low, setting.high, step=setting.step, format=setting.format,
                        **common)
    elif setting.widget == "select_slider":
        st.select_slider(setting.label, setting.options, format_func=names, **common)
    elif setting.widget == "selectbox":
        st.selectbox(setting.label, setting.options, format_func=names, **common)
    elif setting.widget == "radio":
        st.radio(setting.label, setting.options, format_func=names, horizontal=True, **common)
    elif setting.widget == "toggle":
        st.toggle(setting.label, **common)
    else:
        st.text_input(setting.label, max_chars=setting.max_length, **common)


def draw_sidebar_settings(spec: Settings, values: dict, view: ClassroomView | None = None) -> None:
    """Every sidebar setting that is shown for these values and the classroom view, under its group's
    subheader (read-only where the view locks it); in the sidebar, or in the presenter view's controls column."""
    view = view or ClassroomView()
    drawn = [s for s in spec.params if not s.in_main and (s.shown is None or s.shown(values)) and view.drawn(s.name)]
    group = ""
    for setting in drawn:
        if setting.group and setting.group != group:
            st.subheader(setting.group)
        group = setting.group
        draw_setting(setting, spec.key(setting.name), values, disabled=not view.editable(setting.name))


def preset_buttons(spec: Settings, presets: Sequence[Preset]) -> None:
    """A button per preset; a click sets the page's widgets before they are drawn."""
    st.markdown("**Presets**")
    for n, preset in enumerate(presets):
        st.button(preset.label, key=preset_button_key(spec, n), help=preset.insight, width="stretch",
                  on_click=apply_preset, args=(spec, preset))
    preset_insight(spec)


def preset_button_key(spec: Settings, n: int) -> str:
    """The key of the sidebar button of preset number `n`."""
    return f"{spec.page}.preset.{n}"


def apply_preset(spec: Settings, preset: Preset) -> None:
    """A preset picked (a sidebar button, or a pill by the chart): its values into the page's widgets, its
    insight under the presets (`preset_insight`)."""
    apply_values(spec, preset.state(spec))
    st.session_state[spec.insight_key] = preset.insight


def preset_insight(spec: Settings) -> None:
    """The last picked preset's insight, under the presets (buttons or pills)."""
    chosen = st.session_state.get(spec.insight_key)
    if chosen:
        st.caption(f"💡 {chosen}")


def show_chart(fig: go.Figure | dict | ChartSpec, filename: str, *, container=None, key: str | None = None) -> None:
    """A plotly chart with the modebar's "download as PNG" saving `<filename>.png` at 2× scale.

    `fig` may be a `ChartSpec` (the renderer caches those: drawn from the cached string, no plotly objects made;
    the caller has applied the presenter view), a figure dict from `Figure.to_dict()` or a Figure. Its summary is its
    accessible name, and "Show the data" under it holds its numbers (`lcsm_explorer.app.kit.chart_text`).
    """
    if not isinstance(fig, ChartSpec):
        if st.session_state.get(PRESENTING_KEY):
            fig = presenter_figure(fig if isinstance(fig, dict) else fig.to_dict())
        fig = chart_spec(fig)
    key = key or f"chart.{filename}"
    emit_chart(fig, chart_config(filename), key=key, container=container)
    if fig.text is not None:
        show_data(fig.text, container, chart=fig, filename=filename, key=key)


def show_data(text: dict, container=None, chart: ChartSpec | None = None, filename: str = "chart",
              key: str = "chart") -> None:
    """"Show the data" under a chart: its summary (also its accessible name), its series' points as HTML tables
    (a screen reader walks a table by its headings; st.dataframe draws a canvas grid) and, for `chart`, a button
    each to save it as SVG or PNG (drawn on the server when clicked: chart_export.py). Folded, it is one tab stop."""
    with (container if container is not None else st).expander(DATA_LABEL):
        if chart is not None:                           # first: a long table would push them out of sight
            save_buttons(chart, filename, key)
        st.markdown(data_html(text), unsafe_allow_html=True)


DATA_LABEL = "Show the data · SVG · PNG"


def save_buttons(chart: ChartSpec, filename: str, key: str) -> None:
    """Two download buttons, SVG and PNG, whose file is drawn only when one is clicked (no rerun); where this
    server cannot draw files, the sentence that says what it lacks."""
    missing = chart_export.unavailable()
    if missing:
        st.caption(missing)
        return
    row = st.container(horizontal=True)
    for fmt in chart_export.FORMATS:
        row.download_button(f"Save as {fmt.upper()}", functools.partial(
            chart_export.chart_file, chart.spec, chart.height, fmt), file_name=f"{filename}.{fmt}",
            mime=chart_export.FORMATS[fmt], key=f"{key}.{fmt}", on_click="ignore", icon=":material/download:")


def chart_config(filename: str) -> dict:
    """One tool on a chart's bar, the PNG download: plotly's other tools (zoom, pan, autoscale) are each a tab stop,
    eight a chart, between a keyboard user and the next control; a drag still zooms, a double click resets."""
    return {"displaylogo": False, "modeBarButtons": [["toImage"]],
            "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2}}


def show_readout(items: Sequence[Metric | Notice]) -> None:
    """Metrics in one row, then each notice as a banner."""
    metrics = [m for m in items if isinstance(m, Metric)]
    for col, m in zip(st.columns(len(metrics)) if metrics else (), metrics):
        col.metric(m.label, m.value, m.delta, help=m.help, delta_arrow="off",
                   delta_color={True: "normal", False: "inverse", None: "off"}[m.good])
    for n in items:
        if isinstance(n, Notice):
            getattr(st, n.level)(n.text, icon=n.icon)

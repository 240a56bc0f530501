"""Draw a plotly figure with a PNG download named after the page and chart."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st


def show_chart(fig: go.Figure | dict, filename: str, *, key: str | None = None, container=None) -> None:
    """st.plotly_chart with the modebar's "download as PNG" saving `<filename>.png` at 2× scale.

    `fig` may be a figure dict from `Figure.to_dict()` (see page_figures): it was validated when it
    was built, so it is wrapped without validating again.
    """
    if isinstance(fig, dict):
        fig = go.Figure(fig, _validate=False)
    config = {"displaylogo": False,
              "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2}}
    (container or st).plotly_chart(fig, config=config, key=key or f"chart.{filename}")

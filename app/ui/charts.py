"""Draw a plotly figure with a PNG download named after the page and chart."""
from __future__ import annotations

import streamlit as st


def show_chart(fig, filename: str, *, key: str | None = None, container=None) -> None:
    """st.plotly_chart with the modebar's "download as PNG" saving `<filename>.png` at 2× scale."""
    config = {"displaylogo": False,
              "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2}}
    (container or st).plotly_chart(fig, config=config, key=key or f"chart.{filename}")

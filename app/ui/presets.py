"""One-click presets: a named set of page settings that shows one key insight."""
from __future__ import annotations

import streamlit as st

from .query_params import PageParams, Preset
from .query_state import apply_values

__all__ = ["Preset", "preset_buttons"]


def preset_buttons(spec: PageParams, presets: list[Preset], container=None) -> None:
    """A button per preset; a click sets the page's widgets before they are drawn."""
    where = container or st.sidebar
    where.markdown("**Presets**")
    for n, preset in enumerate(presets):
        where.button(preset.label, key=f"{spec.page}.preset.{n}", help=preset.insight, width="stretch",
                     on_click=_apply, args=(spec, preset))
    chosen = st.session_state.get(f"{spec.page}.preset.last")
    if chosen:
        where.caption(f"💡 {chosen}")


def _apply(spec: PageParams, preset: Preset) -> None:
    apply_values(spec, preset.values)
    st.session_state[f"{spec.page}.preset.last"] = preset.insight

"""Page settings held in st.session_state (the widgets' keys) and mirrored in the URL.

The renderer does, on every run:

    load_settings(SETTINGS)               # before the widgets: URL → session state, notes shown
    values = save_settings(SETTINGS)      # session state → URL (only what changed)
    ... widgets with key=SETTINGS.key(name), no value= argument ...
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from .settings import Settings


def load_settings(spec: Settings) -> None:
    """Fill every missing widget key from the URL (or the default), and show a note for bad URL values.

    A key already in session state (the widget exists) wins over the URL, so moving a
    slider is never undone by the stale URL of the previous run. Coming back to a page
    through the navigation (a URL without its settings) restores the last values seen in
    this session.
    """
    missing = [p for p in spec.params if spec.key(p.name) not in st.session_state]
    if missing:
        _fill(spec, missing)
    _clamp(spec)


def _fill(spec: Settings, missing) -> None:
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    if not any(p.name in query for p in spec.params):
        query = spec.encode({**spec.defaults, **st.session_state.get(_saved_key(spec), {})})
    values, notes = spec.read(query)
    for p in missing:
        st.session_state[spec.key(p.name)] = values[p.name]
    for p in spec.params:  # a value the widget cannot hold (stale state): reset it
        if not p.valid(st.session_state[spec.key(p.name)]):
            st.session_state[spec.key(p.name)] = p.default
    if notes:
        st.warning("This link had settings that could not be used:\n\n" + "\n".join(f"- {n}" for n in notes),
                   icon="⚠️")


def _clamp(spec: Settings) -> None:
    """Hold each setting whose upper bound depends on others (e.g. a step t < T) inside that bound."""
    values = current_settings(spec)
    for p in spec.params:
        upper = p.upper(values)
        if upper is not None and values[p.name] > upper:
            st.session_state[spec.key(p.name)] = type(values[p.name])(upper)


def current_settings(spec: Settings) -> dict[str, Any]:
    return {p.name: st.session_state.get(spec.key(p.name), p.default) for p in spec.params}


def save_settings(spec: Settings) -> dict[str, Any]:
    """Write every setting into the URL (only the ones that changed) and return the values."""
    values = current_settings(spec)
    st.session_state[_saved_key(spec)] = dict(values)
    for name, text in spec.encode(values).items():
        if st.query_params.get(name) != text:
            st.query_params[name] = text
    return values


def apply_values(spec: Settings, values: dict[str, Any]) -> None:
    """Set widget keys (use from an on_click callback, before the widgets are drawn)."""
    for name, value in values.items():
        st.session_state[spec.key(name)] = value


def _saved_key(spec: Settings) -> str:
    return f"{spec.page}.__last_settings"

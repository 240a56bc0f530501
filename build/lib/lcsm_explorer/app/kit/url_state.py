"""Page settings held in st.session_state (the widgets' keys) and mirrored in the URL.

The renderer does, on every run:

    load_settings(SETTINGS)               # before the widgets: URL → session state, notes shown
    values = save_settings(SETTINGS)      # session state → URL (only what changed)
    ... widgets with key=SETTINGS.key(name), no value= argument ...
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from .internals.widget_states import SentWidget, resend_widget_values, sent_widgets
from .settings import Setting, Settings

COPY_SUFFIX = ".with_chart"   # a setting's second widget: its copy drawn with the main chart (chart_controls)


def copy_key(spec: Settings, name: str) -> str:
    """The session-state key of a setting's copy drawn with the chart (the setting's own key belongs to the
    sidebar)."""
    return spec.key(name) + COPY_SUFFIX


def load_settings(spec: Settings) -> None:
    """Fill every missing widget key from the browser's widget, else the URL (or the default), and show a note
    for bad URL values.

    A key already in session state (the widget exists) wins over the URL, so moving a
    slider is never undone by the stale URL of the previous run. Coming back to a page
    through the navigation (a URL without its settings) restores the last values seen in
    this session. A fresh session whose first run is a widget event (a tab that reconnected to
    another web process after its own died, then moved a slider) fills each key from the value the
    browser sent for that widget: filled from the URL, the moved setting would snap back to the URL's
    value (a value set in session state wins over the widget's).
    """
    missing = [p for p in spec.params if spec.key(p.name) not in st.session_state]
    if missing:
        _fill(spec, missing)
    _clamp(spec)
    resend_values(spec)


def resend_values(spec: Settings) -> None:
    """Every setting's widget carries the value it shows in every run (`internals.widget_states.resend_widget_values`
    says why; tests/app/test_widget_values_resent.py)."""
    resend_widget_values([spec.key(p.name) for p in spec.params])


def _fill(spec: Settings, missing) -> None:
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    if not any(p.name in query for p in spec.params):
        query = spec.encode({**spec.defaults, **st.session_state.get(_saved_key(spec), {})})
    values, notes = spec.read(query)
    sent = sent_widget_values(spec, missing, settled=values)
    for p in missing:
        st.session_state[spec.key(p.name)] = sent.get(p.name, values[p.name])
    for p in spec.params:  # a value the widget cannot hold (stale state): reset it
        if not p.valid(st.session_state[spec.key(p.name)]):
            st.session_state[spec.key(p.name)] = p.default
    for p in missing:      # a recovered move does what its widget's callback would have (Train live's lr steers)
        if p.on_change is not None and p.name in sent and sent[p.name] != values[p.name]:
            p.on_change()
    if notes:
        st.warning("This link had settings that could not be used:\n\n" + "\n".join(f"- {n}" for n in notes),
                   icon="⚠️")


def sent_widget_values(spec: Settings, params, settled: dict | None = None) -> dict[str, Any]:
    """name → the value the browser sent this run for the widget of each of `params` (only widgets this session
    has not drawn yet: a reconnected tab's first event), where it decodes to a value the setting can hold.

    A setting drawn twice (its sidebar widget and, on a phone, its copy with the main chart) sends both; the
    fresh session cannot run the copy's callback (it has not drawn the copy), so the one the learner moved is
    the one that differs from `settled` (the tab's URL values: both widgets held them after the last run), the
    sidebar's when both or neither do."""
    sent = sent_widgets()
    found = {}
    for p in params:
        keys = (spec.key(p.name), copy_key(spec, p.name))
        held = [v for v in (wire_value(p, sent[k]) for k in keys if k in sent) if v is not None and p.valid(v)]
        moved = [v for v in held if settled is None or v != settled.get(p.name)]
        if held:
            found[p.name] = (moved or held)[0]
    return found


def wire_value(setting: Setting, sent: SentWidget) -> Any:
    """The value a widget sent (`internals.widget_states.SentWidget`), as `draw_setting`'s widget of `setting`
    serializes it (sliders: one number in a list; select_slider, selectbox, radio: the option's label; toggle: a
    bool), or None."""
    raw = sent.value
    if sent.kind == "array":
        if len(raw) != 1:
            return None
        raw = raw[0]
    if setting.kind == "bool":
        return raw if isinstance(raw, bool) else None
    if setting.kind == "choice":
        label = setting.option_labels.get if setting.option_labels else str
        by_label = {label(option): option for option in setting.options}
        return by_label.get(raw) if isinstance(raw, str) else None
    if setting.kind == "text":
        return raw if isinstance(raw, str) else None
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    return int(raw) if setting.kind == "int" and float(raw).is_integer() else float(raw) if setting.kind == "float" \
        else None


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

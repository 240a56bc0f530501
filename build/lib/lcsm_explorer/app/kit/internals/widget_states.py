"""What the browser sent this run for each widget drawn with key=, read from Streamlit's widget states.

A fresh session whose first run is a widget event (a tab that reconnected to another web process after its own
died) has not drawn the widget, so its callback cannot run and session state does not hold the value; the value
is only in the widget states the browser sent with the rerun. Streamlit has no public way to read them: this
reads `get_session_state().get_widget_states()` (PRIVATE STREAMLIT API), finds each widget's key at the end of
Streamlit's widget id ("$$ID-<hash>-<key>", `WIDGET_ID`), and unpacks the WidgetState proto's value into a
`SentWidget`. Where that is missing (`missing()`), nothing is read: such a tab's first move is lost (the public
path), never the app.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import streamlit as st

from .signatures import nothing_missing

try:
    from streamlit.runtime.state import get_session_state
except ImportError:                                       # another streamlit: `missing()` says so
    get_session_state = None

WIDGET_ID = re.compile(r"\$\$ID-[0-9a-f]+-(.+)$")      # Streamlit's id of a widget drawn with key=: its key ends it
ARRAYS = frozenset(("double_array_value", "string_array_value", "int_array_value"))
TRIGGERS = {"trigger_value": "trigger", "json_trigger_value": "json_trigger", "string_trigger_value": "string_trigger"}
_usable: bool | None = None                                # `missing()`'s answer, asked once


@dataclass(frozen=True)
class SentWidget:
    """One widget's value as the browser sent it: `kind` "array" (a slider, select_slider, pills: `value` a
    tuple), "trigger" (a button's click: a bool), "json_trigger" (a component's message: its JSON text),
    "string_trigger", or "value" (a number, a string, a bool)."""

    kind: str
    value: Any


def missing() -> list[str]:
    """What this Streamlit lacks of what `sent_widgets` reads: the session's widget states, the WidgetState proto's
    id and value fields, a widget id that starts "$$ID" (empty: it can read them)."""
    if get_session_state is None:
        return ["streamlit.runtime.state.get_session_state"]
    from streamlit.proto.WidgetStates_pb2 import WidgetState
    from streamlit.runtime.state import common
    from streamlit.runtime.state.session_state import SessionState
    found = [] if callable(getattr(SessionState, "get_widget_states", None)) else ["SessionState.get_widget_states"]
    oneof = WidgetState.DESCRIPTOR.oneofs_by_name.get("value")
    fields = {field.name for field in oneof.fields} if oneof is not None else set()
    if "id" not in WidgetState.DESCRIPTOR.fields_by_name or not (ARRAYS | TRIGGERS.keys()) <= fields:
        found.append(f"WidgetState proto fields id and value: {sorted(ARRAYS | TRIGGERS.keys())}")
    if getattr(common, "GENERATED_ELEMENT_ID_PREFIX", None) != "$$ID":
        found.append('widget ids that start "$$ID" (GENERATED_ELEMENT_ID_PREFIX)')
    return found


def usable() -> bool:
    """Whether `sent_widgets` can read the widget states here (`missing()` empty), asked once per process."""
    global _usable
    if _usable is None:
        _usable = nothing_missing(missing)
    return _usable


def sent_widgets() -> dict[str, SentWidget]:
    """user key → what the browser sent this run, for every widget drawn with key= (empty where nothing was sent,
    outside a session, or where this Streamlit has no widget states to read)."""
    if not usable():
        return {}
    try:
        protos = get_session_state().get_widget_states()
    except Exception:                                  # noqa: BLE001 — no session (bare mode): nothing was sent
        return {}
    found = {}
    for proto in protos:
        match = WIDGET_ID.search(proto.id)              # a trigger's id has a prefix
        sent = _sent(proto) if match else None
        if sent is not None:
            found[match.group(1)] = sent
    return found


def _sent(proto) -> SentWidget | None:
    field = proto.WhichOneof("value")
    if field is None:
        return None
    raw = getattr(proto, field)
    if field in ARRAYS:
        return SentWidget("array", tuple(raw.data))
    return SentWidget(TRIGGERS.get(field, "value"), raw)


def resend_widget_values(keys) -> None:
    """Set each of `keys` held in session state to its own value, so this run's widget carries the value it shows.

    A frontend assumption: Streamlit sends a widget's value to the browser only in a run that set its key, and its
    frontend draws a widget it mounts afresh (a page's widgets after a navigation, a column that changed shape) at
    the value the run sent, else at its default, and sends that back with the next move. Public API only; it is
    here because it holds only while the frontend mounts widgets that way."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]

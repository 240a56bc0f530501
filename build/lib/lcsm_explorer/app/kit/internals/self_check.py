"""The start-up self-check: is every private internal the app relies on there, with the signature it expects?

Each area of `internals` that calls or replaces something private says what this Streamlit (or plotly) lacks of
it (`missing()`), and each takes the public path where something is missing: plain `st.plotly_chart` for a
cached chart, Streamlit's own one-wake-up-per-event handlers instead of batching, no recovery of a reconnected
tab's first move, plotly's own figure constructors. `self_check()` asks every area once per process, before the
first session, and logs one line naming the areas that took the public path, so the app starts on a Streamlit
it was not pinned to and the log says what it does without.
"""
from __future__ import annotations

import logging

from . import plotly_element, plotly_objects, script_events, widget_states

_LOGGER = logging.getLogger(__name__)
FALLBACK_LINE = "Streamlit/plotly internals missing, taking the public path for"
AREAS = {"cached chart elements (st.plotly_chart instead)": plotly_element.missing,
         "batched script events (one wake-up per event instead)": script_events.missing,
         "a reconnected tab's first move (not recovered)": widget_states.missing,
         "figures built without plotly's copies (plotly's constructors instead)": plotly_objects.missing}
_found: dict[str, list[str]] | None = None


def missing_internals() -> dict[str, list[str]]:
    """Area → what this Streamlit or plotly lacks of the internals it relies on, for every area that lacks
    something (empty: every internal is there)."""
    found = {}
    for area, missing in AREAS.items():
        try:
            lacks = missing()
        except Exception as why:                        # noqa: BLE001 — a check that fails is a missing internal
            lacks = [f"the check failed: {why!r}"]
        if lacks:
            found[area] = lacks
    return found


def self_check() -> dict[str, list[str]]:
    """Check every internal once per process and log one line where some are missing; what `missing_internals`
    found."""
    global _found
    if _found is None:
        _found = missing_internals()
        if _found:
            import plotly
            import streamlit

            _LOGGER.warning("%s (streamlit %s, plotly %s): %s", FALLBACK_LINE, streamlit.__version__,
                            plotly.__version__,
                            "; ".join(f"{area}: lacks {', '.join(lacks)}" for area, lacks in _found.items()))
    return _found

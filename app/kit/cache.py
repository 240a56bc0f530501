"""The one cache convention of the app: `@cached` (streamlit's cache_data, no spinner, bounded).

The renderer caches every lesson's `compute` and figures with it, keyed on (page, settings). A
lesson uses it itself only for an expensive step that depends on fewer settings than the whole
page (e.g. a grid that does not move with a slider), so that moving that slider stays fast.
Arguments must be hashable values; results must pickle (numpy arrays and dataclasses do).
"""
from __future__ import annotations

import streamlit as st


def cached(fn=None, *, max_entries: int = 256):
    decorate = st.cache_data(show_spinner=False, max_entries=max_entries)
    return decorate if fn is None else decorate(fn)

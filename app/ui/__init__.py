"""Shared page helpers: URL state, lesson rendering, presets, chart display, figure builders.

Modules that import streamlit: query_state (bind_page_params), presets, lesson_view, charts,
cached_core. Pure (no streamlit): query_params (Param, PageParams), lesson_content, figures/*.
"""

"""Plotly figure builders: pure functions from core results to go.Figure (no streamlit)."""

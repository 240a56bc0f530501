"""LCSM core: the Expand–Oscillation–Shrink recurrence and everything built on it.

Never imports streamlit or plotly: pages call into this package, not the reverse.
"""
from .scan import eos_scan

__all__ = ["eos_scan"]

"""LCSM core: the Expand–Oscillation–Shrink recurrence and everything built on it.

Never imports streamlit or plotly: pages call into this package, not the reverse.
"""
from .codes import ModelCode, all_codes, parse_code
from .scan import FORMS, device_summary, eos_scan
from .variants import VARIANTS, EOSLayer, EOSStates, build_layer, build_layer_from_code, variant_table

__all__ = ["FORMS", "VARIANTS", "EOSLayer", "EOSStates", "ModelCode", "all_codes", "build_layer",
           "build_layer_from_code", "device_summary", "eos_scan", "parse_code", "variant_table"]

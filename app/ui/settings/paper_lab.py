"""Settings of the paper lab page (lesson 9)."""
from app.ui.query_params import PageParams, Param
from lcsm_core.paper_lab import ABLATIONS

SETTINGS = PageParams("paper_lab", (
    Param.choice("ablation", "oscillation", tuple(ABLATIONS)),
    Param.choice("seq_len", 64, (32, 64, 128)), Param.int("kv_pairs", 4, 1, 16),
    Param.choice("d_model", 32, (16, 32, 64)), Param.float("lr", 3e-3, 1e-4, 3e-2),
    Param.int("budget", 20, 5, 120), Param.int("seeds", 1, 1, 3)))

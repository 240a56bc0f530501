"""Settings and presets of the discretize page (lesson)."""
from app.ui.query_params import PageParams, Param, Preset
from lcsm_core.dynamics.discretize_comparison import INPUTS

SETTINGS = PageParams("discretize", (
    Param.float("dt", 0.1, 0.02, 2.0), Param.float("m", 1.0, 0.1, 5.0), Param.float("k", 1.0, 0.1, 10.0),
    Param.float("c", 0.2, 0.0, 5.0), Param.choice("input", "release", INPUTS), Param.float("freq", 1.0, 0.1, 5.0)))
PRESETS = [
    Preset("🔬 Fine Δ", dict(dt=0.05, m=1.0, k=1.0, c=0.2, input="release"),
           "Small Δ: all three methods agree with the continuous system."),
    Preset("🪜 Coarse Δ, ZOH exact", dict(dt=1.0, m=1.0, k=1.0, c=0.2, input="release"),
           "A release (no input) is sampled exactly by ZOH at any Δ; bilinear and Euler are not."),
    Preset("⚠️ Euler unstable", dict(dt=0.3, m=1.0, k=1.0, c=0.2, input="release"),
           "Δ = 0.3 > 2ζ/ωn = 0.2: Euler's poles leave the unit circle although the spring is stable."),
    Preset("〰️ Sine input", dict(dt=0.5, m=1.0, k=1.0, c=0.5, input="sine", freq=0.8),
           "A sine is not piecewise constant: now ZOH has an error too, bilinear is usually closest."),
]

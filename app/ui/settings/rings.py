"""Settings and presets of the rings page (lesson)."""
from app.ui.query_params import PageParams, Param, Preset

SETTINGS = PageParams("rings", (
    Param.float("r_min", 0.4, 0.0, 0.9999), Param.float("r_max", 0.9, 0.0, 0.9999),
    Param.float("phase", 2.0, 0.01, 2.0), Param.int("n", 128, 8, 1024), Param.int("seed", 0, 0, 99)))
PRESETS = [
    Preset("📰 Article figure", dict(r_min=0.4, r_max=0.9, phase=2.0),
           "The article's ring: r ∈ [0.4, 0.9], any phase."),
    Preset("🖼️ sCIFAR ring", dict(r_min=0.9, r_max=0.999, phase=2.0),
           "LRU on sequential CIFAR: eigenvalues close to the circle, horizons 10–1000 steps."),
    Preset("🧮 ListOps ring", dict(r_min=0.0, r_max=0.9, phase=2.0),
           "Short tasks can live with short memory: r ∈ [0, 0.9]."),
    Preset("🛣️ PathX ring", dict(r_min=0.999, r_max=0.9999, phase=0.1),
           "16k-step sequences: |λ| ≥ 0.999 and phase ≤ π/10 — slow, smooth memory."),
]

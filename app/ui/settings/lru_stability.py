"""Settings and presets of the lru_stability page (lesson)."""
from app.ui.query_params import PageParams, Param, Preset

LEARNING_RATES = (0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3)
SETTINGS = PageParams("lru_stability", (
    Param.choice("lr", 0.01, LEARNING_RATES), Param.int("steps", 60, 10, 150), Param.bool("gamma", True),
    Param.float("r_max", 0.999, 0.5, 0.9999), Param.int("seed", 0, 0, 9)))
PRESETS = [
    Preset("🐢 Gentle steps", dict(lr=0.001, steps=60, gamma=True, r_max=0.95),
           "Small steps from a ring well inside the circle: both parameterizations stay inside the disk."),
    Preset("🚀 Large steps", dict(lr=0.03, steps=60, gamma=True, r_max=0.999),
           "lr = 0.03: naive λ is pushed out of the unit disk within a few steps; exponential λ cannot leave."),
    Preset("💥 Reckless steps", dict(lr=0.3, steps=60, gamma=True, r_max=0.999),
           "lr = 0.3: the naive model explodes and training stops; the exponential one keeps learning."),
    Preset("📏 No γ normalization", dict(lr=0.01, steps=60, gamma=False, r_max=0.9999),
           "Without γ the modes near |λ| = 1 blow the output up by 1/√(1 − |λ|²)."),
]

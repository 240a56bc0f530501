"""Settings and presets of the online-learners page (lesson 7)."""
from app.ui.query_params import PageParams, Param, Preset

SETTINGS = PageParams("online_learners", (
    Param.int("n_keys", 8, 1, 64), Param.int("key_dim", 16, 1, 64), Param.int("repeats", 3, 1, 10),
    Param.float("beta", 1.0, 0.05, 2.0), Param.float("gate", 0.9, 0.5, 1.0), Param.float("key_scale", 1.0, 0.1, 3.0),
    Param.int("seed", 0, 0, 99)))
PRESETS = [
    Preset("📦 Room to spare", dict(n_keys=8, key_dim=16, beta=1.0, key_scale=1.0),
           "Fewer keys than dimensions: DeltaNet and Longhorn recall almost perfectly; linear attention piles up."),
    Preset("🧳 Overloaded", dict(n_keys=32, key_dim=8, beta=1.0, key_scale=1.0),
           "More keys than dimensions: every rule interferes, the overwriting ones least."),
    Preset("💥 Long keys", dict(n_keys=8, key_dim=16, beta=1.0, key_scale=2.0),
           "β‖k‖² = 4: DeltaNet's eigenvalue −3 leaves the disk; Longhorn stays inside."),
    Preset("🐟 Forgetful gate", dict(gate=0.6, n_keys=8, key_dim=16, key_scale=1.0),
           "GLA with g = 0.6 forgets a key within a few steps of its last visit."),
]

"""Settings and presets of the spring page (lesson)."""
from app.ui.query_params import PageParams, Param, Preset
from lcsm_core.dynamics.forcing import FORCINGS

SETTINGS = PageParams("spring", (
    Param.float("m", 1.0, 0.1, 5.0), Param.float("k", 1.0, 0.1, 10.0), Param.float("c", 0.2, -1.0, 5.0),
    Param.choice("forcing", "impulse", FORCINGS), Param.float("freq", 1.0, 0.1, 5.0),
    Param.float("period", 5.0, 1.0, 15.0)))
PRESETS = [
    Preset("🌊 Underdamped", dict(m=1.0, k=1.0, c=0.2, forcing="impulse"), "ζ < 1: it rings while it decays."),
    Preset("⚖️ Critically damped", dict(m=1.0, k=1.0, c=2.0, forcing="impulse"),
           "ζ = 1: the fastest return to rest without overshoot — a double pole."),
    Preset("🐌 Overdamped", dict(m=1.0, k=1.0, c=4.0, forcing="impulse"), "ζ > 1: two real poles, slow creep back."),
    Preset("🎵 Undamped", dict(m=1.0, k=1.0, c=0.0, forcing="impulse"), "c = 0: energy is conserved forever."),
    Preset("💥 Negative damping", dict(m=1.0, k=1.0, c=-0.3, forcing="impulse"),
           "c < 0: the damper pumps energy in — exploding, like exploding gradients."),
    Preset("📻 Resonance", dict(m=1.0, k=1.0, c=0.1, forcing="sine", freq=1.0),
           "Forcing at ωn: the amplitude builds up to 1/(c ωn)."),
]

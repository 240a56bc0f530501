"""Settings and presets of the propagation page (lesson)."""
from app.ui.query_params import PageParams, Param, Preset

SETTINGS = PageParams("propagation", (
    Param.int("gap", 100, 1, 200), Param.int("length", 200, 1, 400), Param.float("nu", 0.01, -0.05, 0.3),
    Param.int("theta", 15, 0, 180)))
PRESETS = [
    Preset("📰 Article setup", dict(gap=100, length=200, nu=0.01, theta=15),
           "Pulses 10 s apart: the lightly damped spring keeps aa and ab apart, the heavily damped one cannot."),
    Preset("🫥 Forgets", dict(gap=100, length=200, nu=0.1, theta=15),
           "ν = 0.1: |λ|²⁰⁰ = e⁻²⁰ — the first token is gone."),
    Preset("💥 Explodes", dict(gap=100, length=400, nu=-0.03, theta=15),
           "ν < 0: |λ| > 1 and both states blow up."),
    Preset("🧠 Long memory", dict(gap=50, length=400, nu=0.002, theta=5),
           "ν = 0.002: horizon 500 steps, small phase — still distinguishable after 400 steps."),
]

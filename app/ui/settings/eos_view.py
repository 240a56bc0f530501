"""Settings and presets of the EOS view page (lesson 6)."""
from app.ui.query_params import PageParams, Param, Preset
from lcsm_core import VARIANTS, all_codes
from lcsm_core.eos_view import SIGNALS

SETTINGS = PageParams("eos_view", (
    Param.choice("source", "variant", ("variant", "model code")),
    Param.choice("variant", "gla", VARIANTS),
    Param.choice("code", "1-9-1-0", tuple(all_codes()) + ("0",)),
    Param.choice("signal", "random", SIGNALS),
    Param.float("scale", 1.0, 0.1, 50.0),
    Param.int("T", 48, 4, 128), Param.int("k", 8, 1, 16), Param.int("d", 8, 1, 16),
    Param.int("seed", 0, 0, 99), Param.int("channel", 0, 0, 15), Param.int("t", 47, 0, 127)))
PRESETS = [
    Preset("♾️ Linear attention never forgets", dict(source="variant", variant="linear_attention", signal="impulse",
                                                    scale=1.0),
           "o = 1: an impulse stays in memory forever; W is a plain masked QKᵀ."),
    Preset("🚪 GLA forgets selectively", dict(source="variant", variant="gla", signal="random", scale=1.0),
           "A data-dependent decay g_t: each row of the memory fades at its own, input-chosen rate."),
    Preset("🌀 Cosformer rotates", dict(source="variant", variant="cosformer", signal="impulse", T=128),
           "o = exp(iθ): the memory turns in the complex plane; W holds cos((t − s)θ)."),
    Preset("💥 DeltaNet explodes", dict(source="variant", variant="deltanet", signal="random", scale=20.0),
           "Unnormalized keys: eigenvalue 1 − β‖k‖² < −1 and the memory diverges."),
    Preset("🐂 Longhorn holds", dict(source="variant", variant="longhorn", signal="random", scale=20.0),
           "Same push, but 1 − (k⊙k)εᵀ stays in (0, 1]: bounded memory."),
    Preset("🧪 LCSM code 1-9-1-0", dict(source="model code", code="1-9-1-0", signal="random", scale=1.0),
           "Data-dependent expand and shrink, oscillation = outer(data-dependent k, learned d)."),
]

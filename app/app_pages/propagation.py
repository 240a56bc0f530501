"""Lesson 5 · Information propagation: "aa" vs "ab" through damped, undamped and unstable systems."""
import math

import numpy as np
import streamlit as st

from app.ui import cached_core, page_figures
from app.ui.charts import show_chart
from app.ui.lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro
from app.ui.presets import preset_buttons
from app.ui.query_state import load_settings, save_settings
from app.ui.settings.propagation import PRESETS, SETTINGS
from lcsm_core.dynamics.propagation import EXPLODE_ABOVE, FORGET_BELOW

lesson = cached_lesson("propagation")
lesson_intro(lesson)
lesson_body(lesson)
load_settings(SETTINGS)
key = SETTINGS.key
with st.sidebar:
    st.header("📡 Sequences")
    st.slider("steps between the two tokens", 1, 200, key=key("gap"))
    st.slider("steps after the second token", 1, 400, key=key("length"))
    st.subheader("LRU eigenvalue λ = e^(−ν + iθ)")
    st.slider("damping ν", -0.05, 0.3, step=0.001, format="%.3f", key=key("nu"))
    st.slider("phase θ (degrees)", 0, 180, step=5, key=key("theta"))
    preset_buttons(SETTINGS, PRESETS)
v = save_settings(SETTINGS)
theta = math.radians(v["theta"])

springs = cached_core.propagation_springs(v["gap"], v["length"])
lru = cached_core.propagation_lru(v["gap"], v["length"], v["nu"], theta)
traces = springs + [lru]

cols = st.columns(len(traces))
for col, tr in zip(cols, traces):
    verdict = ("exploded" if tr.exploded else "growing" if tr.growing
               else "forgot" if tr.final_distance < FORGET_BELOW else "remembers")
    col.metric(tr.name.split(" (")[0], f"{tr.final_distance:.3g}", verdict,
               delta_color="normal" if verdict == "remembers" else "inverse",
               delta_arrow="off", help="final ‖state(aa) − state(ab)‖")
exploded = [tr.name for tr in traces if tr.exploded]
if exploded:
    st.warning(f"Stopped where the state passed ±{EXPLODE_ABOVE:g}: {', '.join(exploded)}.", icon="💥")

figs = page_figures.propagation(v["gap"], v["length"], v["nu"], v["theta"], FORGET_BELOW, EXPLODE_ABOVE)
show_chart(figs["traces"], "propagation-traces")
left, right = st.columns(2)
show_chart(figs["by_length"], "propagation-heatmap-length", container=left)
show_chart(figs["by_theta"], "propagation-heatmap-phase", container=right)
show_chart(figs["distance"], "propagation-distance")

lam = np.exp(-v["nu"] + 1j * theta)
L = v["length"]
st.latex(rf"\lambda = e^{{-\nu + i\theta}} = e^{{{-v['nu']:g} {theta:+.3f}i}} = {lam.real:.4f} {lam.imag:+.4f}i,"
         rf"\quad |\lambda| = {abs(lam):.4f}")
st.latex(rf"h_{{aa}} - h_{{ab}} = 2\lambda^{{L}}\ \Rightarrow\ \|h_{{aa}} - h_{{ab}}\| = 2|\lambda|^{{{L}}}"
         rf" = {2 * abs(lam) ** L:.4g}")
st.caption("Every trajectory and every heatmap cell is computed by the EOS scan (one batched call for the grid).")

quantities = dict(gap=v["gap"], length=L, nu=v["nu"], theta_deg=v["theta"],
                  lru_distance=lru.final_distance, lru_exploded=float(lru.exploded),
                  low_distance=springs[0].final_distance, high_distance=springs[1].final_distance,
                  negative_distance=springs[2].final_distance)
lesson_exercises(lesson, quantities)

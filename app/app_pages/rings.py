"""Lesson 3 · Eigenvalue rings: LRU ring initialization, |λ| histogram, impulse responses, memory horizon."""
import math

import numpy as np
import streamlit as st

from app.ui import cached_core, page_figures
from app.ui.charts import show_chart
from app.ui.lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro
from app.ui.presets import preset_buttons
from app.ui.query_state import load_settings, save_settings
from app.ui.settings.rings import PRESETS, SETTINGS

lesson = cached_lesson("rings")
lesson_intro(lesson)
lesson_body(lesson)
load_settings(SETTINGS)
key = SETTINGS.key
with st.sidebar:
    st.header("⭕ Ring")
    st.slider("r_min", 0.0, 0.9999, step=0.0001, format="%.4f", key=key("r_min"))
    st.slider("r_max", 0.0, 0.9999, step=0.0001, format="%.4f", key=key("r_max"))
    st.slider("max_phase (× π)", 0.01, 2.0, step=0.01, key=key("phase"))
    st.slider("number of eigenvalues N", 8, 1024, step=8, key=key("n"))
    st.slider("random seed", 0, 99, key=key("seed"))
    preset_buttons(SETTINGS, PRESETS)
v = save_settings(SETTINGS)
if v["r_min"] > v["r_max"]:
    st.info(f"r_min > r_max: using the ring [{v['r_max']:g}, {v['r_min']:g}].", icon="↔️")

study = cached_core.rings(v["n"], v["r_min"], v["r_max"], v["phase"] * math.pi, v["seed"])
h = study.horizons
cols = st.columns(4)
cols[0].metric("smallest |λ|", f"{study.radii.min():.5f}")
cols[1].metric("largest |λ|", f"{study.radii.max():.5f}")
cols[2].metric("median memory horizon", f"{np.median(h):,.4g} steps")
cols[3].metric("longest memory horizon", f"{h.max():,.4g} steps")

figs = page_figures.rings(v["n"], v["r_min"], v["r_max"], v["phase"] * math.pi, v["seed"])
left, right = st.columns([1.1, 1])
show_chart(figs["eigenvalues"], "rings-eigenvalues", container=left)
show_chart(figs["histogram"], "rings-radius-histogram", container=right)
show_chart(figs["impulse"], "rings-impulse-responses")

j = study.picked[-1]
lam = study.eigenvalues[j]
st.latex(rf"\lambda = \exp(-e^{{\nu^{{\log}}}} + i\,e^{{\theta^{{\log}}}}),\quad"
         rf"\nu^{{\log}} = {study.init.nu_log[j]:.4g},\ \theta^{{\log}} = {study.init.theta_log[j]:.4g}"
         rf"\ \Rightarrow\ \lambda = {lam.real:.5f} {lam.imag:+.5f}i")
st.latex(rf"|\lambda| = {abs(lam):.6f},\quad \text{{horizon}} = \frac{{1}}{{1-|\lambda|}} = {h[j]:,.5g}"
         rf"\ \text{{steps}},"
         rf"\quad \gamma = \sqrt{{1 - |\lambda|^2}} = {math.sqrt(max(0.0, 1 - abs(lam) ** 2)):.5f}")
st.latex(rf"|\lambda|^2 \sim \mathcal U[r_{{\min}}^2, r_{{\max}}^2] = \mathcal U[{study.r_min ** 2:.6g},"
         rf" {study.r_max ** 2:.6g}],\qquad \theta \sim \mathcal U[0, {v['phase']:g}\pi]")
st.caption("The impulse responses λᵗ are computed by the EOS scan (o = λ, e = 1, i = δ, s = 1 and −i).")

quantities = dict(r_min=study.r_min, r_max=study.r_max, max_phase=v["phase"] * math.pi, phase_pi=v["phase"],
                  n=v["n"], min_horizon=float(h.min()), median_horizon=float(np.median(h)),
                  max_horizon=float(h.max()), min_radius=float(study.radii.min()))
lesson_exercises(lesson, quantities)

"""Lesson 4 · Stability of the LRU parameterization: naive vs exponential λ under real gradient steps."""
import numpy as np
import streamlit as st

from app.ui import cached_core, page_figures
from app.ui.charts import show_chart
from app.ui.lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro
from app.ui.presets import preset_buttons
from app.ui.query_state import load_settings, save_settings
from app.ui.settings.lru_stability import LEARNING_RATES, PRESETS, SETTINGS

lesson = cached_lesson("lru_stability")
lesson_intro(lesson)
lesson_body(lesson)
load_settings(SETTINGS)
key = SETTINGS.key
with st.sidebar:
    st.header("📉 Training")
    st.select_slider("learning rate (Adam)", LEARNING_RATES, key=key("lr"))
    st.slider("gradient steps", 10, 150, step=5, key=key("steps"))
    st.toggle("γ normalization (γ = √(1 − |λ|²))", key=key("gamma"))
    st.slider("init ring r_max", 0.5, 0.9999, step=0.0001, format="%.4f", key=key("r_max"))
    st.slider("random seed", 0, 9, key=key("seed"))
    preset_buttons(SETTINGS, PRESETS)
v = save_settings(SETTINGS)

with st.spinner("Running gradient steps through the EOS scan…"):
    runs, scale = cached_core.stability_runs(v["lr"], v["steps"], v["gamma"], v["r_max"], v["seed"])
naive, expo = runs["naive"], runs["exponential"]

peak = {name: float(np.abs(run.eigenvalues).max()) for name, run in runs.items()}
cols = st.columns(5)
for col, name in zip(cols, runs):
    outside = runs[name].left_disk_step is not None
    col.metric(f"{name}: largest |λ| in training", f"{peak[name]:.4f}",
               f"left the disk at step {runs[name].left_disk_step}" if outside else "stayed inside",
               delta_color="inverse" if outside else "normal", delta_arrow="off")
cols[2].metric("naive: that |λ| over 1000 steps", f"{min(peak['naive'] ** 1000, 1e300):.3g}",
               help="|λ|¹⁰⁰⁰: how much one mode amplifies a 1000-step sequence")
cols[3].metric("output RMS at init, with γ", f"{scale['with γ']:.3g}")
cols[4].metric("output RMS at init, without γ", f"{scale['without γ']:.3g}")
for name, run in runs.items():
    if run.left_disk_step is not None:
        st.warning(f"{name}: an eigenvalue left the unit disk at step {run.left_disk_step}.", icon="🚪")
    if run.diverged_step is not None:
        st.error(f"{name}: the loss diverged at step {run.diverged_step}; training stopped there.", icon="💥")

figs = page_figures.lru_stability(v["lr"], v["steps"], v["gamma"], v["r_max"], v["seed"])
show_chart(figs["eigenvalues"], "lru-stability-eigenvalues")
show_chart(figs["loss"], "lru-stability-loss")

r = float(np.abs(naive.eigenvalues[0]).max())
st.latex(r"\text{naive: } \lambda = a + ib \quad (a, b\ \text{learned; nothing keeps } |\lambda| < 1)"
         r"\qquad \text{exponential: } \lambda = \exp(-e^{\nu^{\log}} + i e^{\theta^{\log}})")
st.latex(rf"\text{{after {len(naive.loss) - 1} steps at lr}} = {v['lr']:g}:\quad "
         rf"\max|\lambda_{{\text{{naive}}}}| = {np.abs(naive.eigenvalues[-1]).max():.4f},\quad "
         rf"\max|\lambda_{{\exp}}| = {np.abs(expo.eigenvalues[-1]).max():.4f}"
         rf"\qquad \frac{{1}}{{\sqrt{{1 - r^2}}}}\Big|_{{r = {r:.4f}}} = {1 / np.sqrt(max(1e-12, 1 - r * r)):.3g}")
st.caption("Task: match a fixed long-memory LRU (|λ| ∈ [0.97, 0.995]) on random input, normalized MSE, Adam. "
           "Both students start from the same ring and run through the EOS scan with torch autograd.")

quantities = dict(lr=v["lr"], steps=v["steps"], gamma=float(v["gamma"]), r_max=v["r_max"],
                  naive_left_disk=float(naive.left_disk_step is not None),
                  exponential_left_disk=float(expo.left_disk_step is not None),
                  naive_max_radius=float(np.abs(naive.eigenvalues).max()),
                  exponential_max_radius=float(np.abs(expo.eigenvalues).max()),
                  naive_final_loss=float(naive.loss[-1]), exponential_final_loss=float(expo.loss[-1]),
                  rms_with_gamma=scale["with γ"], rms_without_gamma=scale["without γ"],
                  ratio_without_over_with=scale["without γ"] / scale["with γ"])
lesson_exercises(lesson, quantities)

"""Lesson 1 · Spring–mass–damper: m, k, c and a forcing → response, phase portrait, energy, poles."""
import math

import streamlit as st

from app.ui import cached_core, page_figures
from app.ui.charts import show_chart
from app.ui.lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro
from app.ui.presets import preset_buttons
from app.ui.query_state import load_settings, save_settings
from app.ui.settings.spring import PRESETS, SETTINGS
from lcsm_core.dynamics.forcing import FORCINGS

lesson = cached_lesson("spring")
lesson_intro(lesson)
lesson_body(lesson)
load_settings(SETTINGS)
key = SETTINGS.key
with st.sidebar:
    st.header("🪀 Spring")
    st.slider("mass m", 0.1, 5.0, step=0.05, key=key("m"))
    st.slider("spring constant k", 0.1, 10.0, step=0.05, key=key("k"))
    st.slider("damping c", -1.0, 5.0, step=0.01, key=key("c"), help="Negative c pumps energy in.")
    st.selectbox("forcing f(t)", FORCINGS, key=key("forcing"))
    if st.session_state[key("forcing")] == "sine":
        st.slider("sine frequency ω (rad/s)", 0.1, 5.0, step=0.05, key=key("freq"))
    if st.session_state[key("forcing")] == "pulse train":
        st.slider("pulse period (s)", 1.0, 15.0, step=0.5, key=key("period"))
    preset_buttons(SETTINGS, PRESETS)
v = save_settings(SETTINGS)

sim = cached_core.spring_simulation(v["m"], v["c"], v["k"], v["forcing"], v["freq"], v["period"])
r = sim.regime

cols = st.columns(4)
cols[0].metric("regime", r.name)
cols[1].metric("damping ratio ζ", f"{r.zeta:.3g}")
cols[2].metric("natural frequency ωn", f"{r.omega_n:.3g} rad/s")
if r.stable:
    cols[3].metric("half-life", f"{r.half_life:.3g} s")
elif math.isfinite(r.doubling_time):
    cols[3].metric("doubling time", f"{r.doubling_time:.3g} s")
else:
    cols[3].metric("half-life", "∞ (no decay)")
if sim.diverged_at is not None:
    st.warning(f"The response grew past ±{sim.bound:g} at t = {sim.diverged_at:.3g} s; the plots stop there.",
               icon="💥")

figs = page_figures.spring(v["m"], v["c"], v["k"], v["forcing"], v["freq"], v["period"])
left, right = st.columns(2)
show_chart(figs["response"], "spring-time-response", container=left)
show_chart(figs["phase"], "spring-phase-portrait", container=right)
left, right = st.columns(2)
show_chart(figs["energy"], "spring-energy", container=left)
show_chart(figs["poles"], "spring-poles", container=right)

p1, p2 = r.poles
st.latex(rf"{v['m']:.3g}\,\ddot x {v['c']:+.3g}\,\dot x {v['k']:+.3g}\,x = f(t)"
         rf"\qquad A = \begin{{bmatrix}} 0 & 1 \\ {-v['k'] / v['m']:.3g} & {-v['c'] / v['m']:.3g} \end{{bmatrix}}")
st.latex(rf"p_{{1,2}} = \frac{{-c \pm \sqrt{{c^2 - 4mk}}}}{{2m}} = {p1.real:.4g} {p1.imag:+.4g}i,\;"
         rf"{p2.real:.4g} {p2.imag:+.4g}i \qquad \zeta = \frac{{c}}{{2\sqrt{{mk}}}} = {r.zeta:.4g}"
         rf"\qquad \omega_n = \sqrt{{k/m}} = {r.omega_n:.4g}")
st.caption("Every curve is computed by the EOS scan on the ZOH-discretized spring (Δ = 0.05 s), "
           "m_t = λ ⊙ m_{t−1} + e_t i_tᵀ with complex λ = e^{pΔ}.")

quantities = dict(m=v["m"], c=v["c"], k=v["k"], zeta=r.zeta, omega_n=r.omega_n, half_life=r.half_life,
                  decay_rate=r.decay_rate, c_critical=2 * math.sqrt(v["m"] * v["k"]),
                  pole_real=float(r.poles.real.max()))
lesson_exercises(lesson, quantities)

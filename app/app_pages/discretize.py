"""Lesson 2 · Continuous → discrete: Δ and method; s-plane, z-plane, responses, error."""
import streamlit as st

from app.ui import cached_core, page_figures
from app.ui.charts import show_chart
from app.ui.lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro
from app.ui.presets import preset_buttons
from app.ui.query_state import load_settings, save_settings
from app.ui.settings.discretize import PRESETS, SETTINGS
from lcsm_core.dynamics.discretize_comparison import INPUTS

lesson = cached_lesson("discretize")
lesson_intro(lesson)
lesson_body(lesson)
load_settings(SETTINGS)
key = SETTINGS.key
with st.sidebar:
    st.header("🔢 Sampling")
    st.slider("sample time Δ (s)", 0.02, 2.0, step=0.01, key=key("dt"))
    st.selectbox("input", INPUTS, key=key("input"), help="release: let go from x = 1 with no force")
    if st.session_state[key("input")] == "sine":
        st.slider("sine frequency ω (rad/s)", 0.1, 5.0, step=0.05, key=key("freq"))
    st.subheader("Spring")
    st.slider("mass m", 0.1, 5.0, step=0.05, key=key("m"))
    st.slider("spring constant k", 0.1, 10.0, step=0.05, key=key("k"))
    st.slider("damping c", 0.0, 5.0, step=0.01, key=key("c"))
    preset_buttons(SETTINGS, PRESETS)
v = save_settings(SETTINGS)

cmp = cached_core.discretization_comparison(v["m"], v["c"], v["k"], v["dt"], v["input"], v["freq"])
radius = {name: float(abs(res.poles).max()) for name, res in cmp.methods.items()}

cols = st.columns(3)
for col, (name, label) in zip(cols, (("zoh", "ZOH"), ("bilinear", "bilinear"), ("euler", "Euler"))):
    res = cmp.methods[name]
    col.metric(f"{label}: largest |z|", f"{radius[name]:.4f}", "stable" if res.stable else "unstable",
               delta_color="normal" if res.stable else "inverse", delta_arrow="off")
if cmp.methods["euler"].diverged_at is not None:
    st.warning(f"Euler's response passed ±1000 at t = {cmp.methods['euler'].diverged_at:.3g} s; its curve stops "
               "there.", icon="💥")

figs = page_figures.discretize(v["m"], v["c"], v["k"], v["dt"], v["input"], v["freq"])
left, middle, right = st.columns(3)
show_chart(figs["s_plane"], "discretize-s-plane", container=left)
show_chart(figs["z_plane"], "discretize-z-plane", container=middle)
show_chart(figs["z_zoom"], "discretize-z-plane-zoom", container=right)
left, right = st.columns(2)
show_chart(figs["responses"], "discretize-responses", container=left)
show_chart(figs["error"], "discretize-error", container=right)

p = cmp.s_poles[-1]
dt = v["dt"]
z_e, z_b, z_f = cmp.z_exact[-1], (1 + p * dt / 2) / (1 - p * dt / 2), 1 + p * dt
st.latex(rf"p = {p.real:.4g} {p.imag:+.4g}i,\ \Delta = {dt:g}:\quad"
         rf"\text{{ZOH}}\ z = e^{{p\Delta}} = {z_e.real:.4f} {z_e.imag:+.4f}i\ (|z| = {abs(z_e):.4f})")
st.latex(rf"\text{{bilinear}}\ z = \frac{{1 + p\Delta/2}}{{1 - p\Delta/2}} = {z_b.real:.4f} {z_b.imag:+.4f}i\ "
         rf"(|z| = {abs(z_b):.4f}) \qquad \text{{Euler}}\ z = 1 + p\Delta = {z_f.real:.4f} {z_f.imag:+.4f}i\ "
         rf"(|z| = {abs(z_f):.4f})")
st.caption("All four curves (the exact one too) are computed by the EOS scan on diagonalized discrete systems; "
           "the exact samples come from ZOH of the spring together with the signal generator of its input.")

quantities = dict(dt=dt, m=v["m"], c=v["c"], k=v["k"], euler_limit=cmp.euler_limit, zoh_radius=radius["zoh"],
                  bilinear_radius=radius["bilinear"], euler_radius=radius["euler"],
                  zoh_error=float(cmp.methods["zoh"].error.max()),
                  euler_error=float(cmp.methods["euler"].error.max()))
lesson_exercises(lesson, quantities)

"""Lesson 6 · The EOS view: any Table 1 method or model code, opened up into its four states."""
import streamlit as st

from app.ui.charts import show_chart
from app.ui.figures.eos_figures import (
    memory_figure,
    memory_norm_figure,
    output_figure,
    spectrum_figure,
    states_figure,
    weights_figure,
)
from app.ui.lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro
from app.ui.presets import preset_buttons
from app.ui.query_state import load_settings, save_settings
from app.ui.settings.eos_view import PRESETS, SETTINGS
from lcsm_core import VARIANTS, variant_table
from lcsm_core.eos_view import SIGNALS, inspect_layer

LABELS = {row["name"]: row["method"] for row in variant_table()}


@st.cache_data(show_spinner=False, max_entries=64)
def inspection(source, variant, code, d, k, T, signal, scale, seed, channel):
    return inspect_layer(source, variant, code, d, k, T, signal, scale, seed, channel)


lesson = cached_lesson("eos_view")
lesson_intro(lesson)
load_settings(SETTINGS)
key = SETTINGS.key
with st.sidebar:
    st.header("🧩 Layer")
    st.radio("build from", ("variant", "model code"), key=key("source"), horizontal=True)
    if st.session_state[key("source")] == "variant":
        st.selectbox("method", VARIANTS, key=key("variant"), format_func=lambda n: LABELS.get(n, n))
    else:
        st.selectbox("model code e-o-s-a", SETTINGS["code"].options, key=key("code"),
                     help="e, s: 0 data-independent / 1 data-dependent · o: Table 3 (0..11) · a: activation (0..7). "
                          "Type to search.")
    st.selectbox("input signal", SIGNALS, key=key("signal"))
    st.slider("input scale", 0.1, 50.0, step=0.1, key=key("scale"))
    st.slider("sequence length T", 4, 128, key=key("T"))
    st.slider("expand size k", 1, 16, key=key("k"))
    st.slider("model width d", 1, 16, key=key("d"))
    st.slider("output channel", 0, 15, key=key("channel"))
    st.slider("seed", 0, 99, key=key("seed"))
    preset_buttons(SETTINGS, PRESETS)
v = save_settings(SETTINGS)

try:
    view = inspection(v["source"], v["variant"], v["code"], v["d"], v["k"], v["T"], v["signal"], v["scale"],
                      v["seed"], v["channel"])
except ValueError as err:
    st.error(f"Cannot build this layer: {err}")
    st.stop()

r = view.recurrence
psi_symbol = r"\odot" if view.psi == "elementwise" else r"\times"
st.markdown(f"### {view.title}")
st.latex(rf"\mathbf m_t = \mathbf o_t {psi_symbol} \mathbf m_{{t-1}} + \mathbf e_t \mathbf i_t^\top,\quad "
         rf"\mathbf y_t = \mathbf m_t^\top \mathbf s_t")
st.markdown(f"**i** = `{r['i']}` · **e** = `{r['e']}` · **o** = `{r['o']}` · **s** = `{r['s']}`"
            + (f"  \n_{r['note']}_" if r["note"] else ""))
cols = st.columns(4)
cols[0].metric("ψ", "⊙" if view.psi == "elementwise" else "×",
               help="⊙: o multiplies the memory elementwise · ×: o is a k×k matrix")
cols[1].metric("memory per channel", f"{view.memory.shape[1]} × {view.memory.shape[2]}"
               + (" (complex)" if view.complex_memory else ""))
cols[2].metric("data-dependent", view.data_dependent)
worst = float(view.spectral_radius.max())
cols[3].metric("largest |eigenvalue|", f"{worst:.4g}", delta="outside the unit disk" if worst > 1 + 1e-9 else None,
               delta_color="inverse")
if view.layout == "channels":
    st.info(f"This method runs one small system per channel: the states and memory shown are channel "
            f"{view.channel}'s.", icon="ℹ️")
if view.diverged_at is not None:
    st.warning(f"The memory diverged at t = {view.diverged_at} (‖m_t‖ > 10⁶): plots are clipped there.", icon="💥")

show_chart(states_figure(view), "eos-states")
t_max = v["T"] - 1
t_snap = st.slider("memory at step t", 0, t_max, min(v["t"], t_max), key="eos_view.t_snapshot")
left, right = st.columns(2)
show_chart(memory_figure(view, t_snap), "eos-memory", container=left)
show_chart(memory_norm_figure(view, t_snap), "eos-memory-norm", container=right)
left, right = st.columns(2)
show_chart(weights_figure(view), "eos-parallel-form", container=left)
show_chart(spectrum_figure(view), "eos-spectrum", container=right)
show_chart(output_figure(view), "eos-output")

lesson_body(lesson)
lesson_exercises(lesson, {"diverged": float(view.diverged_at is not None), "scale": v["scale"],
                          "data_dependent": float(view.data_dependent != "none"), "spectral_radius": worst})

"""Lesson 7 · SSMs as online learners: four update rules memorize a key–value stream."""
import streamlit as st

from app.ui.charts import show_chart
from app.ui.figures.online_figures import final_error_figure, radius_figure, recall_error_figure
from app.ui.lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro
from app.ui.presets import preset_buttons
from app.ui.query_state import load_settings, save_settings
from app.ui.settings.online_learners import PRESETS, SETTINGS
from lcsm_core.online_learning import recall_study


@st.cache_data(show_spinner=False, max_entries=64)
def study(n_keys, key_dim, repeats, beta, gate, key_scale, seed):
    return recall_study(n_keys=n_keys, key_dim=key_dim, repeats=repeats, beta=beta, gate=gate,
                        key_scale=key_scale, seed=seed)


lesson = cached_lesson("online_learners")
lesson_intro(lesson)
load_settings(SETTINGS)
key = SETTINGS.key
with st.sidebar:
    st.header("🎯 Stream")
    st.slider("distinct keys N", 1, 64, key=key("n_keys"))
    st.slider("key dimension k", 1, 64, key=key("key_dim"))
    st.slider("times each key comes back", 1, 10, key=key("repeats"))
    st.slider("key length ‖k‖", 0.1, 3.0, step=0.05, key=key("key_scale"))
    st.slider("learning rate β (DeltaNet, Longhorn)", 0.05, 2.0, step=0.05, key=key("beta"))
    st.slider("GLA gate g", 0.5, 1.0, step=0.01, key=key("gate"))
    st.slider("seed", 0, 99, key=key("seed"))
    preset_buttons(SETTINGS, PRESETS)
v = save_settings(SETTINGS)

result = study(v["n_keys"], v["key_dim"], v["repeats"], v["beta"], v["gate"], v["key_scale"], v["seed"])
final = dict(zip(result.rules, result.errors[:, -1]))
radius = dict(zip(result.rules, result.radius.max(axis=1)))
cols = st.columns(4)
for col, rule in zip(cols, result.rules):
    unstable = radius[rule] > 1 + 1e-9
    col.metric(f"{rule}: final error", f"{final[rule]:.3g}",
               delta=f"unstable: |λ| up to {radius[rule]:.3g}" if unstable else None, delta_color="inverse",
               help="mean squared error recalling every key after the whole stream")
b, s = v["beta"], v["key_scale"]
st.latex(rf"\text{{DeltaNet eigenvalue along }}k:\ 1-\beta\lVert k\rVert^2 = 1-{b:.3g}\cdot{s:.3g}^2"
         rf" = {result.deltanet_eigenvalue:.4g}"
         rf"\qquad \text{{Longhorn: }} 1-\frac{{\beta k_n^2}}{{1+\beta\lVert k\rVert^2}}\in(0,1]")
show_chart(recall_error_figure(result), "online-recall-error")
left, right = st.columns(2)
show_chart(final_error_figure(result), "online-final-error", container=left)
show_chart(radius_figure(result), "online-stability", container=right)

lesson_body(lesson)
lesson_exercises(lesson, {"deltanet_radius": radius["DeltaNet"], "n_keys": v["n_keys"], "key_dim": v["key_dim"],
                          "la_over_longhorn": final["linear attention"] / max(final["Longhorn"], 1e-300)})

"""Lesson 9 · Paper lab: grids of small MQAR runs reproducing the LCSM ablations."""
import os

import pandas as pd
import streamlit as st

from app.ui.charts import show_chart
from app.ui.figures.lab_figures import grid_accuracy_figure
from app.ui.lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro
from app.ui.query_state import load_settings, save_settings
from app.ui.settings.paper_lab import SETTINGS
from lcsm_core.codes import parse_code
from lcsm_core.paper_lab import ABLATIONS, GridRunner, GridSpec, grid_runs, past_grids, summarize_grid


@st.cache_resource
def runner() -> GridRunner:
    """One runner per server: one grid at a time, whoever launched it."""
    return GridRunner(ray_address=os.environ.get("LCSM_RAY_ADDRESS") or None)


lesson = cached_lesson("paper_lab")
lesson_intro(lesson)
load_settings(SETTINGS)
key = SETTINGS.key
with st.sidebar:
    st.header("🧪 Grid")
    st.selectbox("ablation", tuple(ABLATIONS), key=key("ablation"), format_func=lambda a: ABLATIONS[a].title)
    st.select_slider("sequence length", (32, 64, 128), key=key("seq_len"))
    st.slider("key–value pairs", 1, 16, key=key("kv_pairs"))
    st.select_slider("model width d (= k)", (16, 32, 64), key=key("d_model"))
    st.number_input("learning rate", 1e-4, 3e-2, step=1e-4, format="%.4f", key=key("lr"))
    st.slider("budget per run (s)", 5, 120, key=key("budget"))
    st.slider("seeds per code", 1, 3, key=key("seeds"))
v = save_settings(SETTINGS)
lab = runner()
ablation = ABLATIONS[v["ablation"]]
spec = GridSpec(ablation=v["ablation"], seq_len=v["seq_len"], kv_pairs=v["kv_pairs"], d_model=v["d_model"],
                lr=v["lr"], max_seconds=float(v["budget"]), seeds=v["seeds"])

st.subheader(ablation.title)
st.markdown(f"**{ablation.question}**  \nPaper: _{ablation.paper_finding}_")
st.dataframe(pd.DataFrame([{"label": label, "code": code, "τ": tau, "what it means": parse_code(code).describe()}
                           for label, code, tau in ablation.entries]), hide_index=True, width="stretch")
n_runs = len(ablation.entries) * v["seeds"]
estimate = n_runs * v["budget"] / lab.workers
where = f"Ray at {lab.ray_address}" if lab.ray_address else f"a local pool of {lab.workers} worker process(es)"
st.caption(f"{n_runs} runs × up to {v['budget']} s on {where}: about {estimate / 60:.1f} min.")

active = lab.active_grid
if st.button("▶️ Run this grid", disabled=active is not None, type="primary",
             help="One grid runs at a time on this server." if active else None):
    try:
        st.session_state["paper_lab.grid"] = lab.launch(spec)
        st.rerun()
    except ValueError as err:
        st.error(str(err))
if active:
    st.info(f"Grid **{active}** is running on this server.", icon="⏳")

grids = past_grids(None)
if not grids:
    st.caption("No grid has run yet on this server.")
    chosen = None
else:
    default = st.session_state.get("paper_lab.grid", grids[0])
    chosen = st.selectbox("show grid", grids, index=grids.index(default) if default in grids else 0,
                          key="paper_lab.shown")
quantities = {"finished_fraction": 0.0, "ablation_is_tau": 0.0, "seeds": 0.0}


@st.fragment(run_every=2.0 if active else None)
def grid_results(grid_id: str) -> None:
    rows = grid_runs(None, grid_id)
    if not rows:
        st.caption("This grid has no runs.")
        return
    grid_ablation = grid_id.rsplit("-", 2)[0]
    summary = summarize_grid(grid_ablation, rows) if grid_ablation in ABLATIONS else []
    show_chart(grid_accuracy_figure(summary, f"Grid {grid_id}"), f"paper-lab-{grid_id}")
    st.dataframe(pd.DataFrame([{"run": r.id, "label": r.label, "status": r.status, "steps": r.steps,
                                "best test acc": r.best_test_acc, "seconds": round(r.wall_s, 1), "note": r.reason}
                               for r in rows]), hide_index=True, width="stretch")
    seeds = {r.config.get("optim", {}).get("seed") for r in rows}
    quantities.update(finished_fraction=sum(not r.active for r in rows) / len(rows),
                      ablation_is_tau=float(grid_ablation == "tau"), seeds=float(len(seeds)))


if chosen:
    grid_results(chosen)
lesson_body(lesson)
lesson_exercises(lesson, quantities)

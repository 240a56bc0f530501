"""Lesson 9 · Paper lab: grids of small MQAR runs reproducing the ablations of LCSM §3.

Prose and exercises: lessons/09-paper-lab.md. The settings make a `GridSpec`; the server's one
`GridRunner` (`lcsm_core.paper_lab.shared_grid_runner`) runs one grid at a time on a process pool
(or Ray); every run lands in the same store as Train live's. The results of the grid shown are a
fragment that polls every two seconds while a grid runs.
"""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.kit.figure_style import PALETTE, axis, build
from app.kit.lesson import Lesson
from app.kit.settings import Preset, Setting, Settings
from app.kit.url_state import current_settings
from app.kit.widgets import show_chart
from lcsm_core.codes import parse_code
from lcsm_core.paper_lab import (
    ABLATIONS,
    GridSpec,
    grid_ablation,
    grid_runs,
    past_grids,
    shared_grid_runner,
    summarize_grid,
)

POLL_S = 2.0
SHOWN_KEY, ERROR_KEY = "paper_lab.shown", "paper_lab.error"

SETTINGS = Settings("paper_lab", (
    Setting.choice("ablation", "ablation", "oscillation", tuple(ABLATIONS),
                   option_labels={name: a.title for name, a in ABLATIONS.items()}),
    Setting.choice("seq_len", "sequence length", 64, (32, 64, 128), widget="select_slider"),
    Setting.slider("kv_pairs", "key–value pairs", 4, 1, 16, high_of=lambda v: v["seq_len"] // 4,
                   help="At most a quarter of the sequence length: the pairs, then one query slot per key."),
    Setting.choice("d_model", "model width d (= k)", 32, (16, 32, 64), widget="select_slider"),
    Setting.number("lr", "learning rate", 3e-3, 1e-4, 3e-2, step=1e-4, format="%.4f"),
    Setting.slider("budget", "budget per run (s)", 20, 5, 120),
    Setting.slider("seeds", "seeds per code", 1, 1, 3),
))

SMALL = dict(seq_len=64, kv_pairs=4, d_model=32, lr=3e-3, budget=10)
PRESETS = (
    Preset("🔀 Data dependence", dict(SMALL, ablation="data_dependence", seeds=1),
           "8 codes e-o-s-0: which of e, o, s must read the input? In the paper only 1-0-1 and 1-1-1 recalled well."),
    Preset("🌀 Oscillation types", dict(SMALL, ablation="oscillation", seeds=1),
           "12 ways to build o (1-o-1-0): on MQAR the paper's complex oscillation 1-11-1-0 stood out."),
    Preset("⚡ Activations", dict(SMALL, ablation="activation", seeds=1),
           "8 activations of the expand and shrink states (1-1-1-a): sigmoid (a = 2) was best in the paper."),
    Preset("🌡️ τ, two seeds", dict(SMALL, ablation="tau", seeds=2),
           "sigmoid(Wx)^(1/τ) for τ = 1..64, twice: a gap smaller than the spread between seeds is no finding."),
)


def grid_spec(v: dict) -> GridSpec:
    return GridSpec(ablation=v["ablation"], seq_len=v["seq_len"], kv_pairs=v["kv_pairs"], d_model=v["d_model"],
                    lr=v["lr"], max_seconds=float(v["budget"]), seeds=v["seeds"])


def launch() -> None:
    """Button callback: start the grid of the current settings and show it."""
    try:
        st.session_state[SHOWN_KEY] = shared_grid_runner().launch(grid_spec(current_settings(SETTINGS)))
    except ValueError as err:
        st.session_state[ERROR_KEY] = str(err)


# --- the live part -------------------------------------------------------------------------------
NO_GRID = dict(finished_fraction=0.0, ablation_is_tau=0.0, seeds=0.0, runs=0.0)


def live(v: dict) -> dict[str, float]:
    """The ablation's codes, the launch button, then the results of the grid shown; returns its quantities."""
    lab = shared_grid_runner()
    spec = grid_spec(v)
    ablation = ABLATIONS[spec.ablation]
    st.subheader(ablation.title)
    st.markdown(f"**{ablation.question}**  \nPaper: _{ablation.paper_finding}_")
    st.dataframe(pd.DataFrame([{"label": label, "code": code, "τ": tau, "what it means": parse_code(code).describe()}
                               for label, code, tau in ablation.entries]), hide_index=True, width="stretch")
    st.caption(f"{spec.run_count} runs × up to {v['budget']} s on {lab.where}: "
               f"about {lab.estimate_s(spec) / 60:.1f} min.")
    active = lab.active_grid
    st.button("▶️ Run this grid", key="paper_lab.launch", disabled=active is not None, type="primary",
              help="One grid runs at a time on this server." if active else None, on_click=launch)
    if ERROR_KEY in st.session_state:
        st.error(st.session_state.pop(ERROR_KEY))
    if active:
        st.info(f"Grid **{active}** is running on this server.", icon="⏳")

    grids = past_grids(None)
    if not grids:
        st.caption("No grid has run yet on this server.")
        return dict(NO_GRID)
    if st.session_state.get(SHOWN_KEY) not in grids:
        st.session_state[SHOWN_KEY] = grids[0]
    chosen = st.selectbox("show grid", grids, key=SHOWN_KEY)
    return st.fragment(grid_results, run_every=POLL_S if active else None)(chosen, active is not None)


def grid_results(grid_id: str, polling: bool) -> dict[str, float]:
    """Accuracy per code (mean and spread over seeds) and every run of the grid; reruns alone while polling."""
    if polling and shared_grid_runner().active_grid is None:
        st.rerun()                     # the grid ended: the whole page (launch button back, polling off)
    rows = grid_runs(None, grid_id)
    if not rows:
        st.caption("This grid has no runs.")
        return dict(NO_GRID)
    ablation = grid_ablation(grid_id)
    summary = summarize_grid(ablation, rows) if ablation else []
    show_chart(grid_accuracy_figure(summary, f"Grid {grid_id}"), f"paper-lab-{grid_id}")
    st.dataframe(pd.DataFrame([{"run": r.id, "label": r.label, "status": r.status, "steps": r.steps,
                                "best test acc": r.best_test_acc, "seconds": round(r.wall_s, 1), "note": r.reason}
                               for r in rows]), hide_index=True, width="stretch")
    seeds = {r.config.get("optim", {}).get("seed") for r in rows}
    return dict(finished_fraction=sum(not r.active for r in rows) / len(rows), ablation_is_tau=float(ablation == "tau"),
                seeds=float(len(seeds)), runs=float(len(rows)))


# --- figures -------------------------------------------------------------------------------------
def grid_accuracy_figure(summary: list[dict], title: str) -> go.Figure:
    """Best test accuracy per ablation entry: the mean over seeds, the bar from the worst to the best seed."""
    done = [r for r in summary if r["best_acc_mean"] is not None]
    bar = go.Bar(x=[r["label"] for r in done], y=[r["best_acc_mean"] for r in done], marker_color=PALETTE[0],
                 error_y=dict(type="data", symmetric=False,
                              array=[r["best_acc_max"] - r["best_acc_mean"] for r in done],
                              arrayminus=[r["best_acc_mean"] - r["best_acc_min"] for r in done]),
                 hovertemplate="%{x}<br>best test accuracy %{y:.3f}<extra></extra>")
    return build([bar], title, height=380, legend=False, xaxis=axis("ablation entry", type="category"),
                 yaxis=axis("best MQAR test accuracy", range=[0, 1.02]))


LESSON = Lesson(
    page="paper_lab", number=9, title="Paper lab", icon="🧪", section="Sequence models",
    summary="Grids of runs reproducing the LCSM ablations.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="🧪 Grid", live=live,
)

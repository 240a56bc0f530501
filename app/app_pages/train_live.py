"""8 · Train live — a small EOS model learns associative recall while its oscillation
eigenvalues move on the unit disk. Training runs in a background worker
(lcsm_core.training.RunManager); this page reads widgets, sends one command, and
draws what the run store holds, polling with a fragment."""
from __future__ import annotations

import sys
import uuid
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # AppTest / direct runs of this file
    sys.path.insert(0, str(ROOT))

import lcsm_core  # noqa: E402
from lcsm_core.tasks import task_config  # noqa: E402
from lcsm_core.training import ModelConfig, OptimConfig, RunConfig, RunManager, default_db_path  # noqa: E402

TASK_LABELS = {"mqar": "Multi-query associative recall (MQAR)", "selective_copying": "Selective copying"}
LR_CHOICES = [1e-4, 3e-4, 1e-3, 2e-3, 3e-3, 5e-3, 1e-2, 2e-2]
POLL_S = 1.0
REPLAY = {"frame": {"duration": 150, "redraw": True}, "fromcurrent": False}
LAYER_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


@st.cache_resource(show_spinner=False)
def run_manager(db_path: str) -> RunManager:
    """One manager per server and store file: shared by every session and tab."""
    return RunManager(db_path)


# --- figures: pure functions of stored data ------------------------------------------
def curves_figure(metrics: dict[str, np.ndarray], title: str) -> go.Figure:
    fig = make_subplots(rows=1, cols=2, subplot_titles=("loss", "accuracy"))
    step, loss, test = metrics["step"], metrics["loss"], metrics["test_acc"]
    has_loss, has_test = np.isfinite(loss), np.isfinite(test)
    fig.add_trace(go.Scatter(x=step[has_loss], y=loss[has_loss], name="train loss", mode="lines"), 1, 1)
    fig.add_trace(go.Scatter(x=step[has_loss], y=metrics["train_acc"][has_loss], name="batch accuracy",
                             mode="lines", line={"width": 1}, opacity=0.5), 1, 2)
    fig.add_trace(go.Scatter(x=step[has_test], y=test[has_test], name="test accuracy", mode="lines+markers"), 1, 2)
    fig.update_yaxes(type="log", row=1, col=1)
    fig.update_yaxes(range=[0, 1.02], row=1, col=2)
    fig.update_xaxes(title_text="step")
    fig.update_layout(title=title, height=330, margin={"t": 60, "b": 40, "l": 40, "r": 10})
    return fig


def eigen_figure(snapshots: list[tuple[int, list[np.ndarray]]]) -> go.Figure:
    """Eigenvalues of every layer's oscillation on the unit disk, one animation frame per snapshot."""
    theta = np.linspace(0, 2 * np.pi, 181)
    circle = go.Scatter(x=np.cos(theta), y=np.sin(theta), mode="lines", line={"color": "grey", "width": 1},
                        name="|λ| = 1", hoverinfo="skip")

    def layer_traces(layers: list[np.ndarray]) -> list[go.Scatter]:
        return [go.Scatter(x=np.real(v), y=np.imag(v), mode="markers", name=f"layer {j + 1}",
                           marker={"size": 6, "color": LAYER_COLOURS[j % len(LAYER_COLOURS)], "opacity": 0.7})
                for j, v in enumerate(layers)]

    last_step, last_layers = snapshots[-1]
    radius = max([1.05] + [float(np.abs(v).max()) * 1.05 for _, layers in snapshots for v in layers if len(v)])
    fig = go.Figure(data=[circle, *layer_traces(last_layers)],
                    frames=[go.Frame(data=[circle, *layer_traces(layers)], name=str(step))
                            for step, layers in snapshots])
    fig.update_layout(
        title=f"oscillation eigenvalues (step {last_step})", height=430, margin={"t": 50, "b": 10},
        xaxis={"range": [-radius, radius], "title": "Re λ", "constrain": "domain"},
        yaxis={"range": [-radius, radius], "title": "Im λ", "scaleanchor": "x"},
        sliders=[{"active": len(snapshots) - 1, "currentvalue": {"prefix": "step "},
                  "steps": [{"label": str(step), "method": "animate",
                             "args": [[str(step)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}]}
                            for step, _ in snapshots]}],
        updatemenus=[{"type": "buttons", "showactive": False, "x": 0, "y": -0.05, "xanchor": "left",
                      "buttons": [{"label": "▶ replay", "method": "animate", "args": [None, REPLAY]}]}])
    return fig


def overlay_figure(series: list[tuple[str, dict[str, np.ndarray]]]) -> go.Figure:
    fig = make_subplots(rows=1, cols=2, subplot_titles=("test accuracy", "train loss"))
    for j, (label, m) in enumerate(series):
        colour = LAYER_COLOURS[j % len(LAYER_COLOURS)]
        has_test, has_loss = np.isfinite(m["test_acc"]), np.isfinite(m["loss"])
        fig.add_trace(go.Scatter(x=m["step"][has_test], y=m["test_acc"][has_test], name=label, mode="lines",
                                 line={"color": colour}, legendgroup=label), 1, 1)
        fig.add_trace(go.Scatter(x=m["step"][has_loss], y=m["loss"][has_loss], name=label, mode="lines",
                                 line={"color": colour}, legendgroup=label, showlegend=False), 1, 2)
    fig.update_yaxes(range=[0, 1.02], row=1, col=1)
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_xaxes(title_text="step")
    fig.update_layout(height=360, legend={"orientation": "h", "y": -0.25}, margin={"t": 40})
    return fig


# --- state ---------------------------------------------------------------------------
def session_id() -> str:
    return st.session_state.setdefault("train_live_session", uuid.uuid4().hex)


def current_run() -> int | None:
    """The run this tab shows: chosen here, else from the link (?run=ID)."""
    if "train_live_run" not in st.session_state:
        value = st.query_params.get("run")
        st.session_state["train_live_run"] = int(value) if value and value.isdigit() else None
    return st.session_state["train_live_run"]


def show_run(run_id: int | None) -> None:
    st.session_state["train_live_run"] = run_id
    if run_id is None:
        st.query_params.pop("run", None)
    else:
        st.query_params["run"] = str(run_id)


def config_from_widgets() -> RunConfig:
    s = st.session_state
    sizes = {"seq_len": int(s.seq_len), "vocab_size": int(s.vocab_size)}
    if s.task == "mqar":
        sizes["num_kv_pairs"] = int(s.kv_pairs)
    else:
        sizes["num_tokens"] = int(s.copy_tokens)
    code = s.code.strip() if s.source == "Model code" else None
    model = ModelConfig(variant=s.variant, code=code, d_model=int(s.d_model), expand_dim=int(s.d_model),
                        n_layers=int(s.layers), short_conv=int(s.short_conv), tau=float(s.tau))
    optim = OptimConfig(lr=float(s.lr), seed=int(s.seed), max_seconds=float(s.max_seconds),
                        batch_size=int(s.batch_size))
    return RunConfig(task=task_config(s.task, **sizes), model=model, optim=optim)


def on_lr_change() -> None:
    run_id = current_run()
    control = run_manager(str(default_db_path())).control(run_id) if run_id else None
    if control is not None:
        control.set_lr(float(st.session_state.lr))


# --- page ----------------------------------------------------------------------------
st.title("🏋️ 8 · Train live")
st.caption("A two-layer EOS model learns multi-query associative recall: keys and values, then questions "
           "about the keys. Press play and watch the loss fall, the accuracy climb, and the eigenvalues of "
           "each layer's oscillation state move inside the unit disk.")

manager = run_manager(str(default_db_path()))
variants = tuple(getattr(lcsm_core, "VARIANTS", ())) or ("gla",)

with st.sidebar:
    st.header("Run settings")
    st.selectbox("Task", list(TASK_LABELS), format_func=TASK_LABELS.get, key="task")
    st.radio("Layer", ["Variant", "Model code"], key="source", horizontal=True)
    if st.session_state.source == "Variant":
        st.selectbox("Variant", variants, index=variants.index("gla") if "gla" in variants else 0, key="variant")
    else:
        st.session_state.setdefault("variant", "gla")
        st.text_input("Model code e-o-s-a", value="1-9-1-0", key="code",
                      help="LCSM §2.5: e, s ∈ {0,1}; o ∈ 0..11 (Table 3); a ∈ 0..7 (Table 2). 1-9-1-0 learns fast.")
        st.number_input("τ (temperature of a data-dependent o)", 0.5, 128.0, 16.0, key="tau")
    st.session_state.setdefault("code", "1-9-1-0")
    st.session_state.setdefault("tau", 16.0)
    st.number_input("Sequence length", 4, 4096, 64, step=2, key="seq_len")
    if st.session_state.task == "mqar":
        st.number_input("Key–value pairs", 1, 256, 4, key="kv_pairs")
    else:
        st.number_input("Tokens to copy", 1, 256, 8, key="copy_tokens")
    st.number_input("Vocabulary size", 4, 65536, 64 if st.session_state.task == "mqar" else 16, step=2,
                    key="vocab_size")
    st.number_input("d_model (= expand dim k)", 4, 4096, 64, step=8, key="d_model")
    st.number_input("Layers", 1, 64, 2, key="layers")
    st.number_input("Short conv width (0 = none)", 0, 16, 4, key="short_conv",
                    help="A causal depthwise convolution before each EOS layer: it lets the key reach its value.")
    st.select_slider("Learning rate", LR_CHOICES, value=3e-3, key="lr", on_change=on_lr_change,
                     help="Changes a running run too.")
    st.number_input("Batch size", 1, 4096, 64, key="batch_size")
    st.number_input("Seed", 0, 2**31 - 1, 0, key="seed")
    st.number_input("Time budget (s)", 1.0, 3600.0, 90.0, step=10.0, key="max_seconds")
    st.session_state.setdefault("copy_tokens", 8)
    st.session_state.setdefault("kv_pairs", 4)

run_id = current_run()
control = manager.control(run_id) if run_id else None
play, pause, step, reset = st.columns(4)
clicked_play = play.button("▶ Play", key="play", width="stretch")
clicked_pause = pause.button("⏸ Pause", key="pause", width="stretch", disabled=control is None)
clicked_step = step.button("⏭ Step", key="step", width="stretch")
clicked_reset = reset.button("↺ Reset", key="reset", width="stretch")

try:
    if clicked_play or clicked_step:
        if control is None:
            run_id = manager.submit(config_from_widgets(), session_id(), start_paused=clicked_step)
            show_run(run_id)
            control = manager.control(run_id)
        if clicked_play:
            control.resume()
        else:
            control.step(1)
    elif clicked_pause and control is not None:
        control.pause()
    elif clicked_reset:
        if control is not None:
            manager.stop(run_id, "reset by the user")
        show_run(None)
        run_id = None
except ValueError as err:
    st.error(f"Cannot start this run: {err}")

stored = manager.store.get_run(run_id) if run_id else None
live = stored is not None and stored.active


@st.fragment(run_every=POLL_S if live else None)
def live_panel() -> None:
    run_id = current_run()
    run = manager.store.get_run(run_id) if run_id else None
    if run is None:
        st.info("No run selected: press ▶ Play to train with the settings on the left, or pick a past run below.")
    else:
        position = manager.queue_position(run.id)
        waiting = f" — waiting, position {position} in the server queue" if position and position > 0 else ""
        st.markdown(f"**Run {run.id}** · {run.label} · status **{run.status}**{waiting}"
                    + (f" · {run.reason}" if run.reason else ""))
        if run.status == "failed":
            st.error(f"The run failed: {run.reason}")
        c1, c2, c3, c4 = st.columns(4)
        c1.metric("steps", run.steps)
        c2.metric("test accuracy", "—" if run.test_acc is None else f"{run.test_acc:.3f}")
        c3.metric("training time", f"{run.wall_s:.1f} s")
        c4.metric("steps / s", f"{run.steps / run.wall_s:.1f}" if run.wall_s > 0 else "—")
        metrics = manager.store.metrics(run.id)
        left, right = st.columns([3, 2])
        if len(metrics["step"]):
            left.plotly_chart(curves_figure(metrics, "training curves"), width="stretch")
        snapshots = manager.store.snapshots(run.id)
        if snapshots:
            right.plotly_chart(eigen_figure(snapshots), width="stretch")

    st.subheader("Past runs")
    runs = manager.store.list_runs(limit=100)
    if not runs:
        st.caption("No runs yet.")
        return
    st.dataframe([{"run": r.id, "layer · task · sizes": r.label, "status": r.status, "steps": r.steps,
                   "time (s)": round(r.wall_s, 1), "test acc": r.test_acc, "best test acc": r.best_test_acc}
                  for r in runs], hide_index=True, width="stretch", key="runs_table")
    labels = {r.id: f"{r.id} · {r.label}" for r in runs}
    chosen = st.multiselect("Compare runs (overlay)", list(labels), format_func=labels.get, key="compare")
    if len(chosen) >= 1:
        series = [(labels[i], manager.store.metrics(i)) for i in chosen]
        st.plotly_chart(overlay_figure(series), width="stretch")
    st.selectbox("Show run", [None, *labels], format_func=lambda i: "—" if i is None else labels[i],
                 key="show_run", on_change=lambda: show_run(st.session_state.show_run))


live_panel()

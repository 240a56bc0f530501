"""8 · Train live — a small EOS model learns associative recall while its oscillation
eigenvalues move on the unit disk. Training runs in a background worker
(lcsm_core.training.RunManager); this page reads widgets, sends one command, and
draws what the run store holds, polling with a fragment."""
from __future__ import annotations

import sys
import uuid
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # AppTest / direct runs of this file
    sys.path.insert(0, str(ROOT))

import lcsm_core  # noqa: E402
from app.ui.charts import show_chart  # noqa: E402
from app.ui.figures.train_figures import curves_figure, eigen_figure, overlay_figure  # noqa: E402
from app.ui.lesson_content import load_lesson  # noqa: E402
from app.ui.lesson_view import cached_lesson, lesson_body, lesson_exercises, lesson_intro  # noqa: E402
from app.ui.presets import preset_buttons  # noqa: E402
from app.ui.query_params import PageParams, Param, Preset  # noqa: E402
from app.ui.query_state import current_settings, load_settings, save_settings  # noqa: E402
from lcsm_core.tasks import TASK_NAMES, task_config  # noqa: E402
from lcsm_core.training import ModelConfig, OptimConfig, RunConfig, RunManager, default_db_path  # noqa: E402

TASK_LABELS = {"mqar": "Multi-query associative recall (MQAR)", "selective_copying": "Selective copying"}
LR_CHOICES = (1e-4, 3e-4, 1e-3, 2e-3, 3e-3, 5e-3, 1e-2, 2e-2)
VARIANTS = tuple(lcsm_core.VARIANTS)
DEFAULT_CODE = "1-3-1-0"
POLL_S = 1.0

# Widget ranges are wide on purpose: the server's SizeLimits say clearly what is too big.
SETTINGS = PageParams("train_live", (
    Param.choice("task", "mqar", TASK_NAMES),
    Param.choice("layer", "variant", ("variant", "code")),
    Param.choice("variant", "gla", VARIANTS),
    Param.float("tau", 16.0, 0.5, 128.0),
    Param.int("seq_len", 64, 4, 4096),
    Param.int("kv_pairs", 4, 1, 256),
    Param.int("copy_tokens", 8, 1, 256),
    Param.int("vocab", 64, 4, 65536),
    Param.int("d_model", 64, 4, 4096),
    Param.int("k", 64, 1, 4096),
    Param.int("layers", 2, 1, 64),
    Param.int("conv", 4, 0, 16),
    Param.choice("lr", 5e-3, LR_CHOICES),
    Param.int("batch", 32, 1, 4096),
    Param.int("seed", 0, 0, 2**31 - 1),
    Param.float("budget", 90.0, 1.0, 3600.0),
))
PRESETS = [
    Preset("⚡ GLA learns recall", {"task": "mqar", "layer": "variant", "variant": "gla", "lr": 5e-3},
           "A data-dependent decay: accuracy jumps once the layer learns to bind keys to values."),
    Preset("🧪 Code 1-3-1-0", {"task": "mqar", "layer": "code"},
           "A model code with a data-dependent k-vector o (GLA's decay): e, o, s all read the input."),
    Preset("🐢 S4 on recall", {"task": "mqar", "layer": "variant", "variant": "s4", "k": 16},
           "A time-invariant oscillation: its eigenvalues cannot react to which token is a key "
           "(k = 16: S4's dense k×k state per channel is slow on a CPU)."),
    Preset("✂️ Selective copying, GLA", {"task": "selective_copying", "layer": "variant", "variant": "gla"},
           "Copy the scattered tokens in order: a data-dependent decay can keep the tokens and skip the blanks "
           "(GLA ~0.88 in a minute here; S4 at k = 16 stays near chance — compare them in the table)."),
]
KEY = SETTINGS.key
CODE_KEY = KEY("code")
ERROR_KEY = "train_live_error"
POLLING_KEY = "train_live_polling"


@st.cache_resource(show_spinner=False)
def run_manager(db_path: str) -> RunManager:
    """One manager per server and store file: shared by every session and tab."""
    return RunManager(db_path)


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


def config_from_settings(v: dict) -> RunConfig:
    sizes = {"seq_len": v["seq_len"], "vocab_size": v["vocab"]}
    if v["task"] == "mqar":
        sizes["num_kv_pairs"] = v["kv_pairs"]
    else:
        sizes["num_tokens"] = v["copy_tokens"]
    code = st.session_state[CODE_KEY].strip() if v["layer"] == "code" else None
    model = ModelConfig(variant=v["variant"], code=code, d_model=v["d_model"], expand_dim=v["k"],
                        n_layers=v["layers"], short_conv=v["conv"], tau=v["tau"])
    optim = OptimConfig(lr=v["lr"], seed=v["seed"], max_seconds=v["budget"], batch_size=v["batch"])
    return RunConfig(task=task_config(v["task"], **sizes), model=model, optim=optim)


def command(action: str) -> None:
    """Button callback (runs before the page redraws, so the buttons show the new state)."""
    manager = run_manager(str(default_db_path()))
    run_id = current_run()
    control = manager.control(run_id) if run_id else None
    try:
        if action in ("play", "step"):
            if control is None:
                run_id = manager.submit(config_from_settings(current_settings(SETTINGS)), session_id(),
                                        start_paused=action == "step")
                show_run(run_id)
                control = manager.control(run_id)
            if action == "play":
                control.resume()
            else:
                control.step(1)
        elif action == "pause" and control is not None:
            control.pause()
        elif action == "reset":
            if control is not None:
                manager.stop(run_id, "reset by the user")
            show_run(None)
    except ValueError as err:
        st.session_state[ERROR_KEY] = f"Cannot start this run: {err}"


def lesson_or_none(page: str):
    """The page's lesson from lessons/ when a file declares it (a broken file reports itself), else None."""
    try:
        load_lesson(page)
    except FileNotFoundError:
        return None
    except ValueError:
        pass
    return cached_lesson(page)


def on_lr_change() -> None:
    run_id = current_run()
    control = run_manager(str(default_db_path())).control(run_id) if run_id else None
    if control is not None:
        control.set_lr(float(st.session_state[KEY("lr")]))


# --- page ----------------------------------------------------------------------------
lesson = lesson_or_none("train_live")
if lesson is not None:
    lesson_intro(lesson)
else:
    st.title("🏋️ 8 · Train live")
st.caption("A small EOS model learns multi-query associative recall: key–value pairs, then questions "
           "about the keys. Press play and watch the loss fall, the accuracy climb, and the eigenvalues of "
           "each layer's oscillation state move inside the unit disk.")

manager = run_manager(str(default_db_path()))
load_settings(SETTINGS)
if CODE_KEY not in st.session_state:
    st.session_state[CODE_KEY] = st.query_params.get("code", DEFAULT_CODE)

with st.sidebar:
    st.header("Run settings")
    st.selectbox("Task", TASK_NAMES, format_func=TASK_LABELS.get, key=KEY("task"))
    st.radio("Layer", ("variant", "code"), format_func={"variant": "Variant", "code": "Model code"}.get,
             key=KEY("layer"), horizontal=True)
    if st.session_state[KEY("layer")] == "variant":
        st.selectbox("Variant", VARIANTS, key=KEY("variant"))
    else:
        st.text_input("Model code e-o-s-a", key=CODE_KEY,
                      help="LCSM §2.5: e, s ∈ {0,1}; o ∈ 0..11 (Table 3); a ∈ 0..7 (Table 2). Codes whose o is a "
                           "data-dependent k×d matrix (o = 1, 6, 7, 8, 9; e.g. 1-9-1-0) cost k×d gates per token "
                           "and train ~10× slower on a CPU.")
        st.number_input("τ (temperature of a data-dependent o)", 0.5, 128.0, key=KEY("tau"))
    st.number_input("Sequence length", 4, 4096, step=2, key=KEY("seq_len"))
    if st.session_state[KEY("task")] == "mqar":
        st.number_input("Key–value pairs", 1, 256, key=KEY("kv_pairs"))
    else:
        st.number_input("Tokens to copy", 1, 256, key=KEY("copy_tokens"))
    st.number_input("Vocabulary size", 4, 65536, step=2, key=KEY("vocab"))
    st.number_input("d_model", 4, 4096, step=8, key=KEY("d_model"))
    st.number_input("Expand dim k (memory m is k × d)", 1, 4096, step=8, key=KEY("k"))
    st.number_input("Layers", 1, 64, key=KEY("layers"))
    st.number_input("Short conv width (0 = none)", 0, 16, key=KEY("conv"),
                    help="A causal depthwise convolution before each EOS layer: it lets the key reach its value.")
    st.select_slider("Learning rate", LR_CHOICES, key=KEY("lr"), on_change=on_lr_change,
                     help="Changes a running run too.")
    st.number_input("Batch size", 1, 4096, key=KEY("batch"))
    st.number_input("Seed", 0, 2**31 - 1, key=KEY("seed"))
    st.number_input("Time budget (s)", 1.0, 3600.0, step=10.0, key=KEY("budget"))
    preset_buttons(SETTINGS, PRESETS)
settings = save_settings(SETTINGS)
if settings["layer"] == "code":
    st.query_params["code"] = st.session_state[CODE_KEY]

run_id = current_run()
control = manager.control(run_id) if run_id else None
play, pause, step, reset = st.columns(4)
play.button("▶ Play", key="play", width="stretch", on_click=command, args=("play",))
pause.button("⏸ Pause", key="pause", width="stretch", disabled=control is None, on_click=command, args=("pause",))
step.button("⏭ Step", key="step", width="stretch", on_click=command, args=("step",))
reset.button("↺ Reset", key="reset", width="stretch", on_click=command, args=("reset",))
if ERROR_KEY in st.session_state:
    st.error(st.session_state.pop(ERROR_KEY))

stored = manager.store.get_run(run_id) if run_id else None
live = stored is not None and stored.active
st.session_state[POLLING_KEY] = live


@st.fragment(run_every=POLL_S if live else None)
def live_panel() -> None:
    run_id = current_run()
    run = manager.store.get_run(run_id) if run_id else None
    if st.session_state.get(POLLING_KEY) and (run is None or not run.active):
        st.session_state[POLLING_KEY] = False
        st.rerun()                               # the whole page: stop polling, enable/disable buttons
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
            show_chart(curves_figure(metrics, "training curves"), "train-live-curves", container=left)
        snapshots = manager.store.snapshots(run.id)
        if snapshots:
            zoom = right.toggle("zoom in on the eigenvalues", value=True, key="train_live_zoom")
            show_chart(eigen_figure(snapshots, zoom), "train-live-eigenvalues", container=right)

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
        show_chart(overlay_figure(series), "train-live-compare")
    st.selectbox("Show run", [None, *labels], format_func=lambda i: "—" if i is None else labels[i],
                 key="show_run", on_change=lambda: show_run(st.session_state.show_run))


live_panel()
if lesson is not None:
    lesson_body(lesson)
    shown = manager.store.get_run(current_run()) if current_run() else None
    model = (shown.config.get("model", {}) if shown else {})
    lesson_exercises(lesson, {
        "best_acc": (shown.best_test_acc or 0.0) if shown else 0.0,
        "finished": float(shown is not None and not shown.active),
        "mqar": float(shown is not None and shown.config.get("task", {}).get("name", "mqar") == "mqar"),
        "linear_attention": float(not model.get("code") and model.get("variant") == "linear_attention")})

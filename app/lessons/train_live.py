"""Lesson 8 · Train live: a small EOS model learns associative recall while its oscillation eigenvalues
move inside the unit disk.

Prose and exercises: lessons/08-train-live.md. Training runs in the trainer service (one per server, shared
by every web process: `lcsm_serving.shared_client`). The page is a declaration of the live-lesson kind
(`app/kit/live.py`): four commands (a new run is `run_config` of the settings), what it fetches (the shown run) and
what it draws (status, curves, eigenvalues, past runs, comparisons). The kit keeps the shown run in the URL
(`?run=ID`, driven only by its owner tab) and polls once a second while it is active; a poll reads only the metric
rows added since the last one and rebuilds no figure when no step arrived.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lcsm_core.tasks import TASK_NAMES
from lcsm_core.training import RunConfig, run_config
from lcsm_core.training.config import PAGE_DEFAULTS, run_settings
from lcsm_core.training.cost import format_bytes
from lcsm_core.training.loop import WAITING
from lcsm_core.training.progress import duration_words, run_progress
from lcsm_core.variants import VARIANTS, variant_table
from lcsm_explorer.app.kit.blocks import Callout, Chart, Columns, Download, Pick, Progress, Readout, Table, Text, Toggle
from lcsm_explorer.app.kit.cache import STORES
from lcsm_explorer.app.kit.chart_element import ChartSpec, chart_spec
from lcsm_explorer.app.kit.classroom import presenter_figure
from lcsm_explorer.app.kit.figure_style import (
    BLUE,
    GREEN,
    GREY,
    axis,
    build,
    divergence_marks,
    series_style,
    subplot_grid,
    unit_circle_trace,
)
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Snippet
from lcsm_explorer.app.kit.literal import literal
from lcsm_explorer.app.kit.live import Command, Control, Live, run_id_of, steer  # noqa: F401  (run_id_of: tests import it here)
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings
from lcsm_explorer.app.kit.snippet import keyword_arguments
from lcsm_serving import RunRow, RunStore, shared_client
from lcsm_serving.compare import differences, runs_csv, runs_json

TASK_LABELS = {"mqar": "Multi-query associative recall (MQAR)", "selective_copying": "Selective copying"}
LR_CHOICES = (1e-4, 3e-4, 1e-3, 2e-3, 3e-3, 5e-3, 1e-2, 2e-2)
ZOOM, COMPARE, SHOW = "train_live_zoom", "compare", "show_run"      # the live part's widgets


def set_lr(c: Control) -> None:
    """The learning rate slider also steers the shown run while it lives."""
    if shared_client().drives(c.run, c.owner):
        shared_client().command(c.run, c.owner, "set_lr", float(c.settings["lr"]))


# Ranges are wide on purpose: the server's SizeLimits say clearly what is too big for it.
SETTINGS = Settings("train_live", (
    Setting.choice("task", "Task", "mqar", TASK_NAMES, option_labels=TASK_LABELS, group="Task"),
    Setting.number("seq_len", "Sequence length", 64, 4, 4096, step=2, group="Task"),
    Setting.number("kv_pairs", "Key–value pairs", 4, 1, 256, group="Task", shown=lambda v: v["task"] == "mqar"),
    Setting.number("copy_tokens", "Tokens to copy", 8, 1, 256, group="Task",
                   shown=lambda v: v["task"] == "selective_copying"),
    Setting.number("vocab", "Vocabulary size", 64, 4, 65536, step=2, group="Task"),
    Setting.choice("layer", "Layer", "variant", ("variant", "code"), widget="radio",
                   option_labels={"variant": "Variant", "code": "Model code"}, group="Model"),
    Setting.choice("variant", "Variant", "gla", VARIANTS, group="Model", shown=lambda v: v["layer"] == "variant",
                   option_labels={row["name"]: row["method"] for row in variant_table()}),   # names, not ids
    Setting.text("code", "Model code e-o-s-a", "1-3-1-0", group="Model", shown=lambda v: v["layer"] == "code",
                 help="LCSM §2.5: e, s ∈ {0,1}; o ∈ 0..11 (Table 3); a ∈ 0..7 (Table 2). Codes 6 and 7 make o a "
                      "data-dependent k×d matrix (k×d gates per token; several times slower on a CPU); codes 1, 8 "
                      "and 9 make it a k-gate times a d-gate, which the scan keeps as its two factors."),
    Setting.number("tau", "τ (temperature of a data-dependent o)", 16.0, 0.5, 128.0, group="Model",
                   shown=lambda v: v["layer"] == "code"),
    Setting.number("d_model", "d_model", 64, 4, 4096, step=8, group="Model"),
    Setting.number("k", "Expand dim k (memory m is k × d)", 64, 1, 4096, step=8, group="Model"),
    Setting.number("layers", "Layers", 2, 1, 64, group="Model"),
    Setting.number("conv", "Short conv width (0 = none)", 4, 0, 16, group="Model",
                   help="A causal depthwise convolution before each EOS layer: it lets the key reach its value."),
    Setting.choice("lr", "Learning rate", PAGE_DEFAULTS["lr"], LR_CHOICES, widget="select_slider", group="Training",
                   help="Changes a running run too.", on_change=steer(lambda: LESSON, set_lr)),
    Setting.number("batch", "Batch size", 32, 1, 4096, group="Training"),
    Setting.number("seed", "Seed", 0, 0, 2**31 - 1, group="Training"),
    Setting.number("steps", "Step budget", 1000, 1, 100_000, step=100, group="Training",
                   help="The run stops at 99 % test accuracy or after this many optimizer steps, whichever comes "
                        "first: a busy server trains slower, not less. At the defaults GLA reaches 99 % within "
                        "340–680 steps (seeds 0–2; benchmarks/results/train_speed-cpu.md)."),
))

PRESETS = (
    Preset("⚡ GLA learns recall",
           dict(task="mqar", layer="variant", variant="gla", k=64, lr=PAGE_DEFAULTS["lr"], seed=0),
           "A data-dependent decay: accuracy jumps once the layer learns to bind keys to values "
           "(99 % at step 680 with seed 0; at steps 340–680 over seeds 0–2)."),
    Preset("🧪 Code 1-3-1-0", dict(task="mqar", layer="code", code="1-3-1-0", tau=16.0, k=64, seed=0),
           "A model code with a data-dependent k-vector o (GLA's decay): e, o, s all read the input."),
    Preset("🐢 S4 on recall", dict(task="mqar", layer="variant", variant="s4", k=16, seed=0, steps=300),
           "A time-invariant oscillation cannot react to which token is a key, so S4 stays at chance: expect "
           "about 0.04 test accuracy after all 300 steps (chance is 1/32 ≈ 0.03) where GLA passes 0.99 — that "
           "flat curve is the point. It is slow too: a dense k×k state per channel "
           "trains 1–2 steps/s on a CPU, so the run takes a few minutes; watch the curve stay flat, no need to "
           "wait for the end."),
    Preset("✂️ Selective copying, GLA",
           dict(task="selective_copying", layer="variant", variant="gla", k=64, lr=PAGE_DEFAULTS["lr"], seed=0),
           "Copy the scattered tokens in order: a data-dependent decay can keep the tokens and skip the blanks "
           "(GLA: 0.91 test accuracy in the 1000-step budget at seed 0; try S4 at k = 16 and compare them in "
           "the table)."),
)


def config_of(v: dict) -> RunConfig:
    """The run these settings describe (one call into the core's settings → RunConfig translation)."""
    return run_config(**run_settings(v))


def training_call(v: dict) -> str:
    """The exported script's call: train this configuration to its end; the last record."""
    call = f"list(train(run_config({keyword_arguments(run_settings(v))}, device='cpu')))[-1]"
    return call + "   # one record per step; the last one"


# --- the commands: each runs before the page redraws, so the buttons show the new state ----------------------
def submit(c: Control, paused: bool) -> None:
    """A new run of these settings, owned by this tab, shown from now on."""
    try:
        c.show(shared_client().submit(config_of(c.settings), c.owner, start_paused=paused, visitor=c.visitor))
    except ValueError as err:          # the message quotes the typed model code: shown as literal text
        raise ValueError(f"Cannot start this run: {literal(err, limit=300)}") from err


def drives(c: Control) -> bool:
    """Whether this tab owns the shown run and it still lives (queued, training or paused)."""
    return shared_client().drives(c.run, c.owner)


def play(c: Control) -> None:
    if drives(c):
        shared_client().command(c.run, c.owner, "resume")
    else:
        submit(c, paused=False)


def step(c: Control) -> None:
    if not drives(c):
        submit(c, paused=True)
    shared_client().command(c.run, c.owner, "step", 1)


def pause(c: Control) -> None:
    if drives(c):
        shared_client().command(c.run, c.owner, "pause")


def reset(c: Control) -> None:
    if drives(c):
        shared_client().stop(c.run, c.owner, "reset by the user")
    c.show(None)


def run_quantities(run: RunRow | None) -> dict[str, float]:
    """What the exercises check, about the shown run."""
    if run is None:
        return dict(best_acc=0.0, finished=0.0, mqar=0.0, linear_attention=0.0, steps=0.0)
    model = run.config.get("model", {})
    return dict(best_acc=run.best_test_acc or 0.0, finished=float(not run.active),
                mqar=float(run.config.get("task", {}).get("name", "mqar") == "mqar"),
                linear_attention=float(not model.get("code") and model.get("variant") == "linear_attention"),
                steps=float(run.steps))


# --- the live part: what the page fetches and draws --------------------------------------------------------
def shown(v: dict, c: Control) -> RunRow | None:
    return shared_client().store.get_run(c.run) if c.run else None


def moving(v: dict, c: Control) -> bool:
    run = shown(v, c)
    return run is not None and run.active


def intro(v: dict, c: Control) -> list:
    return [Text("A small EOS model learns multi-query associative recall: key–value pairs, then questions about the "
                 "keys. Press play and watch the loss fall, the accuracy climb, and the eigenvalues of each layer's "
                 "oscillation state move inside the unit disk.", "caption")]


def share(v: dict, c: Control) -> list:
    """Whose run this is, and its read-only link."""
    run = shown(v, c)
    if run is None:
        return []
    return [Text(("Your run: only you drive it (a reload keeps it yours). " if run.owned_by(c.owner) else
                  "👀 Someone else's run, shown read-only: ▶ Play and ⏭ Step start a run of your own. ")
                 + "Share it read-only with this link:", "caption"),
            Text(f"{c.page_url}?run={run.id}", "code")]


def run_panel(v: dict, run: RunRow | None, c: Control) -> list:
    """The shown run (status, metrics, curves, eigenvalues) and the past runs; redrawn at every poll."""
    client = shared_client()
    head = ([Callout("No run selected: press ▶ Play to train with this page's settings, or pick a past run "
                     "below.")] if run is None else shown_run(client, run, c))
    return head + past_runs(client.store, c)


def shown_run(client, run: RunRow, c: Control) -> list:
    position = client.queue_position(run.id)
    blocks = [Text(f"**Run {run.id}** · {run.label} · status **{run.status}**{status_words(run, position)}")]
    if position or (position == 0 and run.status == "paused"):
        blocks.append(Text(sharing_policy(client.policy), "caption"))
    if run.status == "failed":
        blocks.append(Callout(f"The run failed: {run.reason}", "error"))
    if run.active:
        blocks.append(progress_bar(run, position))
    blocks.append(Readout([Metric("steps", str(run.steps)),
                           Metric("test accuracy", "—" if run.test_acc is None else f"{run.test_acc:.3f}"),
                           Metric("training time", f"{run.wall_s:.1f} s"),
                           Metric("steps / s", f"{run.steps / run.wall_s:.1f}" if run.wall_s > 0 else "—")]))
    figures = run_figures(client.store, run, run_metrics(client.store, run.id), c.picked[ZOOM], c.present)
    curves = [Chart(figures["curves"], "train-live-curves")] if "curves" in figures else []
    eigen = ([Toggle(ZOOM, "zoom in on the eigenvalues"), Chart(figures["eigen"], "train-live-eigenvalues")]
             if "eigen" in figures else [])
    return blocks + [Columns([curves, eigen], widths=(3, 2))]


def progress_bar(run: RunRow, position: int | None) -> Progress:
    """Steps done of the run's budget, and the time left at its pace (while it waits: its place in the line)."""
    optim = run.config["optim"]
    done = run_progress(run.steps, run.wall_s, optim["max_steps"], optim.get("max_seconds"))
    words = f"step {run.steps} of {optim['max_steps']}"
    if run.status == "queued" or position:
        words += f" · waiting{f', position {position} in the server queue' if position else ''}"
    elif done.seconds_left is not None:
        words += f" · {duration_words(done.seconds_left)} left at {done.steps_per_s:.1f} steps/s"
    return Progress(done.fraction, words)


def status_words(run: RunRow, position: int | None) -> str:
    """What follows a run's status: its place in the queue and its reason. A run waiting for its next turn
    reads "— waiting, position 2 in the server queue: others' turn, resumes from step 1234"."""
    reason = run.reason or ""
    between_turns = run.status == "queued" and reason.startswith(WAITING)
    waiting = f" — waiting, position {position} in the server queue" if position else (
        " — waiting" if between_turns else "")
    if between_turns:
        return f"{waiting}: {reason.removeprefix(WAITING)}"
    return waiting + (f" · {reason}" if reason else "")


# --- the poll's reads and figures, in the process's byte-bounded cache: a poll reads only new rows, builds only on news
POLLED = STORES["results"]           # (kind, store file, run id) → what this process last read or built for the run
MAX_EIGEN_FRAMES = 60                # the replay's frames: ~35 ms of serialization per poll, not ~300


def run_metrics(store: RunStore, run_id: int) -> dict[str, np.ndarray]:
    """The run's metric columns (RunStore.metrics), reading only the rows written since this process last
    read them."""
    key = ("train_live.metrics", str(store.path), run_id)
    last_row, known = POLLED.lookup(key, (0, None))
    new, last_row = store.metrics_since(run_id, last_row)
    if known is not None and len(new["step"]):
        new = {name: np.concatenate([known[name], new[name]]) for name in known}
    elif known is not None:
        return known
    POLLED.put(key, (last_row, new))
    return new


def run_figures(store: RunStore, run: RunRow, metrics: dict[str, np.ndarray], zoom: bool,
                present: bool) -> dict[str, ChartSpec]:
    """The shown run's curves and eigenvalue charts, as the specs the browser receives (one version per run),
    built again only when a step arrived (rows, last step or status changed) or the zoom or the presenter view
    changed; snapshots are read only then. A poll with no news re-sends cached strings."""
    rows = len(metrics["step"])
    stamp = (rows, float(metrics["step"][-1]) if rows else None, run.status, zoom, present)
    key = ("train_live.figures", str(store.path), run.id)
    cached_stamp, cached = POLLED.lookup(key, (None, None))
    if cached_stamp == stamp:
        return cached
    figures = {}
    if rows:
        diverged_at = float(metrics["step"][-1]) if run.status == "diverged" else None
        figures["curves"] = curves_figure(metrics, "training curves", diverged_at)
    snapshots = store.snapshots(run.id)
    if snapshots:
        figures["eigen"] = eigen_figure(thinned(snapshots, MAX_EIGEN_FRAMES), zoom)
    specs = {name: chart_spec(presenter_figure(fig.to_dict()) if present else fig) for name, fig in figures.items()}
    POLLED.put(key, (stamp, specs))
    return specs


def thinned(snapshots: list, at_most: int) -> list:
    """At most `at_most` snapshots, evenly spread, the first and the last always kept: a 5000-step run
    snapshots 250 times, and each frame is sent with every poll that brings a step."""
    if len(snapshots) <= at_most:
        return snapshots
    keep = np.unique(np.linspace(0, len(snapshots) - 1, at_most).round().astype(int))
    return [snapshots[j] for j in keep]


def sharing_policy(policy) -> str:
    """How this server shares its training slots, in plain words (shown while a run waits or is paused)."""
    slots = "one training" if policy.max_concurrent == 1 else f"{policy.max_concurrent} trainings"
    memory = (f" Each run may use about {format_bytes(policy.memory_budget_bytes)} of memory per step; bigger "
              "settings are refused before they start." if policy.memory_budget_bytes else "")
    turns = (f" While others wait, a run takes turns: after {policy.slice_s:g} s of training it gives its slot to "
             "the next in line and goes on from the step it reached when its turn comes again." if policy.slice_s
             else "")
    return (f"ℹ️ How this server shares training: one run per browser tab, waiting or training; {slots} at a "
            f"time, the others wait in line (up to {policy.max_queue}).{turns} A paused run gives its slot to a "
            f"waiting run after {policy.pause_hold_s:g} s paused in total (⏭ Step does not reset that clock), and "
            f"a run left paused {policy.max_pause_s / 60:g} min without a step stops.{memory}")


def past_runs(store: RunStore, c: Control) -> list:
    """This tab's runs (newest first), and the shown run when a link opened someone else's."""
    runs = store.session_runs(c.owner)[::-1][:100]
    if c.run is not None and c.run not in {r.id for r in runs}:
        linked = store.get_run(c.run)
        runs = [linked, *runs] if linked is not None else runs
    if not runs:
        return [Text("Past runs", "heading"), Text("No runs of yours yet.", "caption")]
    labels = {r.id: f"{r.id} · {r.label}" for r in runs}
    chosen = [i for i in c.picked[COMPARE] if i in labels]
    return [Text("Past runs", "heading"),
            Table([{"run": r.id, "layer · task · sizes": r.label, "status": r.status, "steps": r.steps,
                    "time (s)": round(r.wall_s, 1), "test acc": r.test_acc, "best test acc": r.best_test_acc}
                   for r in runs], key="runs_table"),
            Pick(COMPARE, "Compare runs (up to 4)", list(labels), labels, many=True, most=4),
            *(compare_runs(store, chosen) if chosen else []),
            Pick(SHOW, "Show run", [None, *labels], {None: "—", **labels}, on_change=lambda c: c.show(c.picked[SHOW]))]


def compare_runs(store, run_ids: list[int]) -> list:
    """The chosen runs side by side: what differs in their configs, curves overlaid, the last eigenvalues of
    each in small multiples; the comparison as PNG (each chart's camera button), the runs as CSV and JSON."""
    rows = [r for r in (store.get_run(i) for i in run_ids) if r is not None]
    blocks = []
    if len(rows) > 1:
        diff = differences([r.config for r in rows])
        blocks += ([Text("**What differs between these runs**"),
                    Table([{"setting": path, **{f"run {r.id}": str(v) for r, v in zip(rows, values)}}
                           for path, values in diff.items()], key="compare_diff")] if diff else
                   [Text("These runs have the same configuration.", "caption")])
    blocks.append(Chart(overlay_figure([(f"run {r.id}", store.metrics(r.id)) for r in rows]), "train-live-compare"))
    snapshots = [(f"run {r.id}", store.snapshots(r.id)) for r in rows]
    if any(snaps for _, snaps in snapshots):
        blocks.append(Chart(last_eigenvalues_figure(snapshots), "train-live-compare-eigenvalues"))
    ids = [r.id for r in rows]
    return blocks + [Columns([[Download("⬇️ Runs as CSV (metrics)", runs_csv(store, ids), "runs.csv", "text/csv",
                                        "compare_csv")],
                              [Download("⬇️ Runs as JSON (config, metrics, eigenvalues)", runs_json(store, ids),
                                        "runs.json", "application/json", "compare_json")]])]


# --- figures -------------------------------------------------------------------------------------
# No tween between snapshots (plotly's default eases each move over 500 ms): the replay steps, and a step of the
# slider jumps, so nothing glides for a learner who asks for reduced motion (the server cannot see that setting).
STILL = {"duration": 0}
REPLAY = {"frame": {"duration": 150, "redraw": True}, "transition": STILL, "fromcurrent": False}


def curves_figure(metrics: dict[str, np.ndarray], title: str, diverged_at: float | None = None) -> go.Figure:
    """Train loss (log) on the left, batch and test accuracy on the right, against the step."""
    axes, _, _ = subplot_grid(1, 2, hspace=0.12)
    axes["xaxis"].update(title=dict(text="step"))
    axes["xaxis2"].update(title=dict(text="step"))
    axes["yaxis"].update(title=dict(text="train loss"), type="log")
    axes["yaxis2"].update(title=dict(text="accuracy"), range=[0, 1.02])
    step, loss, test = metrics["step"], metrics["loss"], metrics["test_acc"]
    has_loss, has_test = np.isfinite(loss), np.isfinite(test)
    traces = [go.Scatter(x=step[has_loss], y=loss[has_loss], name="train loss", mode="lines",
                         line=dict(color=BLUE)),
              go.Scatter(x=step[has_loss], y=metrics["train_acc"][has_loss], name="batch accuracy", mode="lines",
                         line=dict(color=GREY, width=1), xaxis="x2", yaxis="y2"),
              go.Scatter(x=step[has_test], y=test[has_test], name="test accuracy", mode="lines+markers",
                         line=dict(color=GREEN, width=2.5), marker=dict(size=6), xaxis="x2", yaxis="y2")]
    shapes, notes = divergence_marks(diverged_at, "loss")
    return build(traces, title, height=330, shapes=shapes, annotations=notes, **axes)


def eigen_figure(snapshots: list[tuple[int, list[np.ndarray]]], zoom: bool = False) -> go.Figure:
    """Eigenvalues of every layer's oscillation on the unit disk, one animation frame per snapshot;
    `zoom` frames the eigenvalues (of all snapshots) instead of the whole disk."""
    circle = unit_circle_trace("|λ| = 1")

    def layer_traces(layers: list[np.ndarray]) -> list[go.Scatter]:
        return [go.Scatter(x=np.real(v), y=np.imag(v), mode="markers", name=f"layer {j + 1}",
                           marker=dict(size=7, color=series_style(j)["color"], symbol=series_style(j)["symbol"]))
                for j, v in enumerate(layers)]

    last_step, last_layers = snapshots[-1]
    every = np.concatenate([v for _, layers in snapshots for v in layers] + [np.zeros(0, complex)])
    if zoom and len(every):
        pad = max(0.02, 0.1 * max(np.ptp(every.real), np.ptp(every.imag)))
        x_range = [every.real.min() - pad, every.real.max() + pad]
        y_range = [every.imag.min() - pad, every.imag.max() + pad]
    else:
        radius = max(1.05, 1.05 * float(np.abs(every).max(initial=0)))
        x_range = y_range = [-radius, radius]
    frames = [go.Frame(data=[circle, *layer_traces(layers)], name=str(step)) for step, layers in snapshots]
    slider = dict(active=len(snapshots) - 1, currentvalue=dict(prefix="step "), y=-0.12, pad=dict(t=30),
                  transition=STILL,
                  steps=[dict(label=str(step), method="animate",
                              args=[[str(step)], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                                      transition=STILL)])
                         for step, _ in snapshots])
    replay = dict(type="buttons", showactive=False, x=0, y=1.02, xanchor="left", yanchor="bottom",
                  buttons=[dict(label="▶ replay", method="animate", args=[None, REPLAY])])
    return build([circle, *layer_traces(last_layers)], f"oscillation eigenvalues (step {last_step})", height=470,
                 frames=frames, margin_top=90, xaxis=axis("Re λ", range=x_range),
                 yaxis=axis("Im λ", range=y_range, scaleanchor="x"), sliders=[slider], updatemenus=[replay])


def last_eigenvalues_figure(runs: list[tuple[str, list[tuple[int, list[np.ndarray]]]]]) -> go.Figure:
    """One small unit disk per run with its last eigenvalue snapshot, every layer in the run's colour."""
    axes, titles, names = subplot_grid(1, len(runs), hspace=0.04,
                                       titles=[f"{label} · step {snaps[-1][0]}" if snaps else f"{label} · none"
                                               for label, snaps in runs])
    traces = []
    for j, (label, snaps) in enumerate(runs):
        x, y = names(1, j + 1)
        traces.append(unit_circle_trace("|λ| = 1").update(showlegend=j == 0, xaxis=x, yaxis=y))
        values = np.concatenate(snaps[-1][1]) if snaps and snaps[-1][1] else np.zeros(0, complex)
        traces.append(go.Scatter(x=values.real, y=values.imag, mode="markers", name=label, xaxis=x, yaxis=y,
                                 marker=dict(size=6, color=series_style(j)["color"], symbol=series_style(j)["symbol"])))
        radius = max(1.05, 1.05 * float(np.abs(values).max(initial=0)))
        axes[x.replace("x", "xaxis", 1)].update(range=[-radius, radius], title=dict(text="Re λ"))
        axes[y.replace("y", "yaxis", 1)].update(range=[-radius, radius], scaleanchor=x,
                                                 title=dict(text="Im λ" if j == 0 else ""))
    return build(traces, "last eigenvalues of each run", height=320, annotations=titles, **axes)


def overlay_figure(series: list[tuple[str, dict[str, np.ndarray]]]) -> go.Figure:
    """Test accuracy (left) and train loss (right, log) of several runs, one colour and dash per run."""
    axes, _, _ = subplot_grid(1, 2, hspace=0.12)
    axes["xaxis"].update(title=dict(text="step"))
    axes["xaxis2"].update(title=dict(text="step"))
    axes["yaxis"].update(title=dict(text="test accuracy"), range=[0, 1.02])
    axes["yaxis2"].update(title=dict(text="train loss"), type="log")
    traces = []
    for j, (label, m) in enumerate(series):
        style = series_style(j)
        line = dict(color=style["color"], dash=style["dash"])
        has_test, has_loss = np.isfinite(m["test_acc"]), np.isfinite(m["loss"])
        traces += [go.Scatter(x=m["step"][has_test], y=m["test_acc"][has_test], name=label, mode="lines",
                              line=line, legendgroup=label),
                   go.Scatter(x=m["step"][has_loss], y=m["loss"][has_loss], name=label, mode="lines",
                              line=line, legendgroup=label, showlegend=False, xaxis="x2", yaxis="y2")]
    return build(traces, "compared runs", height=360, **axes)


LESSON = Lesson(
    page="train_live", number=8, title="Train live", icon="🏋️", section="Sequence models",
    summary="Small models learn associative recall; eigenvalues move.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="Run settings",
    chart_controls=("task", "layer", "variant", "code", "lr"),
    live=Live(commands=(Command("play", "▶ Play", play), Command("pause", "⏸ Pause", pause, enabled=drives),
                        Command("step", "⏭ Step", step), Command("reset", "↺ Reset", reset)),
              intro=intro, lead=share, moving=moving, fetch=shown, draw=run_panel,
              quantities=lambda v, run: run_quantities(run), picks={ZOOM: True, COMPARE: [], SHOW: None},
              poll_s=1.0, owned_run=True),
    snippet=Snippet(imports="from lcsm_core.training import run_config, train", call=training_call,
                    prints=dict(steps="result.step", test_acc="result.test_acc")),
)

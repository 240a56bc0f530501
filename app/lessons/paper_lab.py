"""Lesson 9 · Paper lab: grids of small MQAR runs reproducing the ablations of LCSM §3.2.

Prose and exercises: lessons/09-paper-lab.md. The settings make a `GridSpec`. At an ablation's default
grid the page opens with the results shipped in `lcsm_core/paper_lab/results/`; every cell run on this
server (the whole grid, what is missing, or one cell again) lands in the same heatmap. The server's one
`GridRunner` runs one grid at a time on a process pool (or Ray); the results are a fragment that polls
every two seconds while a grid runs.
"""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.kit.figure_style import axis, build
from app.kit.lesson import Lesson, Snippet
from app.kit.settings import Preset, Setting, Settings
from app.kit.snippet import keyword_arguments
from app.kit.url_state import current_settings
from app.kit.widgets import show_chart
from lcsm_core.codes import parse_code
from lcsm_core.paper_lab import (
    ABLATIONS,
    GridSpec,
    accuracy_table,
    best_lrs,
    grid_session,
    live_results,
    merged,
    shared_grid_runner,
    shipped_grid,
    shipped_results,
    verdict,
)
from lcsm_core.training import RunStore

POLL_S = 2.0
ERROR_KEY, CELL_KEY = "paper_lab.error", "paper_lab.cell"
DEFAULT = GridSpec()


def _sweep(values) -> str:
    return ", ".join(f"{v:g}" for v in values)


LENGTHS = {"32, 64": (32, 64), "32": (32,), "64": (64,), "32, 64, 128": (32, 64, 128), "64, 128": (64, 128)}
SWEEPS = {_sweep(s): s for s in ((1e-2,), (3e-3, 1e-2), (1e-3, 3e-3, 1e-2), (3e-3,))}
assert _sweep(DEFAULT.seq_lens) in LENGTHS and _sweep(DEFAULT.lrs) in SWEEPS

SETTINGS = Settings("paper_lab", (
    Setting.choice("ablation", "ablation", DEFAULT.ablation, tuple(ABLATIONS),
                   option_labels={name: a.title for name, a in ABLATIONS.items()}),
    Setting.choice("lengths", "sequence lengths", _sweep(DEFAULT.seq_lens), tuple(LENGTHS),
                   help="One heatmap column per length; the key–value pairs stay the same, so longer "
                        "sequences put the queries further from their keys."),
    Setting.slider("kv_pairs", "key–value pairs", DEFAULT.kv_pairs, 1, min(map(min, LENGTHS.values())) // 4,
                   help="At most a quarter of the shortest length: the pairs, then one query slot per key."),
    Setting.choice("d_model", "model width d (= k)", DEFAULT.d_model, (16, 32, 64), widget="select_slider",
                   help="k, the rows of the memory, is tied to d here; the paper fixes k = 128."),
    Setting.choice("lrs", "learning-rate sweep", _sweep(DEFAULT.lrs), tuple(SWEEPS),
                   help="Every cell trains once per learning rate and keeps the best (the paper sweeps seven)."),
    Setting.slider("steps", "budget per run (optimizer steps)", DEFAULT.steps, 100, 3000, step=100,
                   help="Budgets are steps (× 32 examples a step), not seconds: a slow code is not cut short."),
    Setting.slider("seeds", "seeds per cell", len(DEFAULT.seeds), 1, 3),
    Setting.toggle("short_conv", "short convolution (not in the paper)", DEFAULT.short_conv > 1,
                   help="A causal width-4 convolution before each EOS layer, as Zoology, Based and GLA use. "
                        "The LCSM paper describes none."),
))


def grid_fields(v: dict) -> dict:
    """The fields of the `GridSpec` these settings make."""
    return dict(ablation=v["ablation"], seq_lens=LENGTHS[v["lengths"]], kv_pairs=v["kv_pairs"], d_model=v["d_model"],
                expand_dim=v["d_model"], lrs=SWEEPS[v["lrs"]], steps=v["steps"], seeds=tuple(range(v["seeds"])),
                short_conv=4 if v["short_conv"] else 0)


def grid_spec(v: dict) -> GridSpec:
    return GridSpec(**grid_fields(v))


def grid_call(v: dict) -> str:
    """The exported script's call: run what is missing of this grid into a store beside the script; the summary
    (the paper's claim, whether it held, the accuracy table)."""
    return f"run_grid(GridSpec({keyword_arguments(grid_fields(v))}), GridRunner('paper_lab.sqlite'))[0]"


def _preset(ablation: str, insight: str, **changes) -> Preset:
    return Preset(ABLATIONS[ablation].title.split(" (")[0], dict(ablation=ablation, **changes), insight)


PRESETS = (
    _preset("parameterization", "The SSM parameterization (code 0: a DSS bank, one SSM per channel) against the "
            "naive 1-1-1-0."),
    _preset("data_dependence", "8 codes e-o-s-0: which of e, o, s must read the input?"),
    _preset("oscillation", "12 ways to build o (1-o-1-0): on MQAR the paper's complex 1-11-1-0 stood out."),
    _preset("activation", "8 activations of e and s (1-1-1-a): sigmoid (a = 2) was the paper's best."),
    _preset("tau", "sigmoid(Wx)^(1/τ) for τ = 1..64: does a slower-forgetting o recall better?"),
)


# --- buttons -------------------------------------------------------------------------------------
def launch(rerun=None) -> None:
    """Button callback: run the grid of the current settings — what is missing, everything, or some cells."""
    try:
        spec = grid_spec(current_settings(SETTINGS))
        have = frozenset(r.key for r in shipped_results(spec))
        _, queued = shared_grid_runner().launch(spec, rerun=rerun, have=have)
        if not queued:
            st.session_state[ERROR_KEY] = "Every cell of this grid has finished: nothing to run."
    except ValueError as err:
        st.session_state[ERROR_KEY] = str(err)


def launch_cell() -> None:
    label, _, length = st.session_state[CELL_KEY].rpartition(" · T=")
    launch(rerun=((label, int(length)),))


# --- the live part -------------------------------------------------------------------------------
def live(v: dict) -> dict[str, float]:
    """The ablation, its codes and claim, the launch buttons, then the grid's results; returns its quantities."""
    lab, spec = shared_grid_runner(), grid_spec(v)
    ablation = ABLATIONS[spec.ablation]
    st.subheader(ablation.title)
    st.markdown(f"**{ablation.question}**  \n📄 Paper: _{ablation.paper_finding}_")     # its check: grid_results
    with st.expander(f"The {len(ablation.entries)} entries and how this grid differs from the paper"):
        st.dataframe(pd.DataFrame([{"label": label, "code": code, "τ": tau,
                                    "what it means": parse_code(code).describe()}
                                   for label, code, tau in ablation.entries]), hide_index=True, width="stretch")
        st.markdown(differences(spec))
    active = lab.active_grid
    cols = st.columns(3)
    cols[0].button("▶️ Run missing cells", key="paper_lab.launch", disabled=active is not None, type="primary",
                   on_click=launch, help="Runs every cell without a finished run on this server or in the shipped "
                                         "results; one grid runs at a time on this server.")
    cols[1].button("🔁 Rerun the whole grid", key="paper_lab.rerun", disabled=active is not None,
                   on_click=launch, kwargs=dict(rerun="all"),
                   help=f"All {spec.cell_count} runs again, finished or not.")
    cell_names = [f"{label} · T={T}" for label in ablation.labels for T in spec.seq_lens]
    with cols[2]:
        st.selectbox("cell", cell_names, key=CELL_KEY, label_visibility="collapsed")
        st.button("🔁 Rerun this cell", key="paper_lab.rerun_cell", disabled=active is not None,
                  on_click=launch_cell, help="Every learning rate and seed of the chosen entry and length.")
    st.caption(f"{spec.cell_count} runs of {spec.steps} steps ({spec.examples_per_run:,} examples each) on "
               f"{lab.where}.")
    if ERROR_KEY in st.session_state:
        st.warning(st.session_state.pop(ERROR_KEY))
    if active:
        st.info(f"Grid **{active}** is running on this server.", icon="⏳")
    return st.fragment(grid_results, run_every=POLL_S if active else None)(spec, active is not None)


def differences(spec: GridSpec) -> str:
    conv = ("a width-4 causal convolution before each EOS layer (**not** in the paper)" if spec.short_conv > 1
            else "no short convolution (as in the paper)")
    return (f"- d = k = {spec.d_model} (the paper: d = 64…512 with k fixed at 128); two layers; MQAR with "
            f"{spec.kv_pairs} key–value pairs and a vocabulary of 64\n"
            f"- a budget of {spec.steps} optimizer steps of {spec.batch_size} examples per run (the paper does not "
            "state its MQAR budget)\n"
            f"- the best of {len(spec.lrs)} learning rate(s) {_sweep(spec.lrs)} per cell (the paper: the best of "
            f"seven, 1e-5 … 1e-2)\n- {conv}\n"
            "- data-dependent decays start at the same ALiBi decays as the data-independent ones (the paper does "
            "not say how it initialised them)")


def grid_results(spec: GridSpec, polling: bool) -> dict[str, float]:
    """The heatmap (shipped cells, overlaid by this server's runs), the verdict and the runs."""
    if polling and shared_grid_runner().active_grid is None:
        st.rerun()                     # the grid ended: the whole page (buttons back, polling off)
    store = RunStore(shared_grid_runner().db_path)
    try:
        rows = store.session_runs(grid_session(spec.grid_id))
    finally:
        store.close()
    shipped = shipped_grid(spec)
    live_cells = live_results(spec, rows)
    results = merged(shipped.results if shipped else [], live_cells)
    show_chart(accuracy_figure(spec, results), f"paper-lab-{spec.grid_id}")
    if shipped:
        st.caption(f"Shipped results: measured on {shipped.device} on {shipped.measured_on}, the whole grid in "
                   f"{shipped.wall_s / 60:.1f} min. {len(live_cells)} of {spec.cell_count} runs are from this "
                   "server and replace the shipped ones.")
    elif not results:
        st.caption("No results for this grid yet: the shipped results are for the ablation's default settings "
                   "(click its preset). Run the grid to fill the heatmap.")
    kind, message = verdict_message(ABLATIONS[spec.ablation].claim, verdict(spec, results),
                                    len({r.key for r in results}), spec.cell_count)
    getattr(st, kind)(message)
    if rows:
        st.dataframe(pd.DataFrame([{"run": r.id, "label": r.label, "status": r.status, "steps": r.steps,
                                    "best test acc": r.best_test_acc, "seconds": round(r.wall_s, 1), "note": r.reason}
                                   for r in rows]), hide_index=True, width="stretch")
    return grid_quantities(spec, results, live_cells, shipped is not None)


def verdict_message(claim: str, found, finished: int, cells: int) -> tuple[str, str]:
    """The page's one statement of the claim and its verdict (a `verdict` on this grid's numbers, or None while
    cells are missing) as (st.info / st.success / st.error, text): the claim is never said apart from it."""
    said = f"🔎 Checked here: “{claim}”"
    if found is None:
        return "info", f"{said} — once every cell has a result ({finished} of {cells} runs have finished)."
    if found.held:
        return "success", f"{said} — **held** on these numbers: {found.detail}."
    return "error", f"{said} — **did not hold** at this scale: {found.detail}."


def grid_quantities(spec: GridSpec, results: list, live_cells: list, shipped: bool) -> dict[str, float]:
    """What the exercises and challenges check, about the grid the settings describe and its results."""
    found = verdict(spec, results)
    done = len({r.key for r in results})
    return dict(cells=float(spec.cell_count), finished_fraction=done / spec.cell_count,
                live_cells=float(len(live_cells)), claim_held=-1.0 if found is None else float(found.held),
                ablation_is_tau=float(spec.ablation == "tau"),
                seeds=float(len(spec.seeds)), shipped=float(shipped))


# --- figures -------------------------------------------------------------------------------------
CHANCE = 1 / 32                        # MQAR with a vocabulary of 64: a value is one of 32 tokens


def accuracy_figure(spec: GridSpec, results) -> go.Figure:
    """Best test accuracy per entry (rows) and sequence length (columns), as the paper's figures plot it."""
    table, lrs = accuracy_table(spec, results), best_lrs(spec, results)
    labels = list(table)
    z = [[table[label][T] for T in spec.seq_lens] for label in labels]
    text = [["" if a is None else f"{a:.2f}" for a in row] for row in z]
    best = [[f"{lrs[label][T]:g}" if lrs[label][T] else "—" for T in spec.seq_lens] for label in labels]
    heat = go.Heatmap(z=z, x=[f"T = {T}" for T in spec.seq_lens], y=labels, zmin=0.0, zmax=1.0, colorscale="Viridis",
                      text=text, texttemplate="%{text}", customdata=best,
                      colorbar=dict(title=dict(text="accuracy"), tickvals=[0, 0.5, 1]),
                      hovertemplate="%{y}, %{x}<br>best test accuracy %{z:.3f}<br>at lr %{customdata}"
                                    "<extra></extra>")
    return build([heat], f"MQAR test accuracy (chance ≈ {CHANCE:.2f}), best over lr {_sweep(spec.lrs)}",
                 height=max(260, 60 + 34 * len(labels)), legend=False, xaxis=axis("sequence length", type="category"),
                 yaxis=axis(None, type="category", autorange="reversed"))


LESSON = Lesson(
    page="paper_lab", number=9, title="Paper lab", icon="🧪", section="Sequence models",
    summary="The LCSM ablations as grids of runs, with shipped results.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="🧪 Grid", live=live,
    snippet=Snippet(imports="from lcsm_core.paper_lab import GridRunner, GridSpec\n"
                            "from lcsm_core.paper_lab.cli import run_grid   # prints a JSON line per cell",
                    call=grid_call, prints=dict(cells="result['cells']", ran_now="result['ran_now']")),
)

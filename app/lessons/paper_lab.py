"""Lesson 9 · Paper lab: grids of small MQAR runs reproducing the ablations of LCSM §3.2.

Prose and exercises: lessons/09-paper-lab.md. The settings make a `GridSpec`. At an ablation's default
grid the page opens with the results shipped in `lcsm_core/paper_lab/results/`; every cell run on this
server (the whole grid, what is missing, or one cell again) lands in the same heatmap. The server's one
`GridRunner` admits one grid at a time and hands its cells to the trainer service (their own lane, after
learners' live runs; on Ray when the service is); while another visitor's grid holds the lab, a run button puts
this visitor's grid in line behind it, and the page says their place, when it starts at the latest, and that it
started. The page is a declaration of the live-lesson kind (`app/kit/live.py`): its commands, what it fetches (this
server's runs of the grid, merged over the shipped ones) and what it draws (heatmap, verdict, runs); the kit polls
it every two seconds while a grid runs or waits, and redraws the buttons and the lab's callout when the lab changes.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import plotly.graph_objects as go

from lcsm_core.paper_lab import (
    ABLATIONS,
    GridSpec,
    accuracy_table,
    best_lrs,
    default_spec,
    differences_from_paper,
    grid_session,
    live_results,
    merged,
    shipped_grid,
    shipped_results,
    spreads,
    verdict,
)
from lcsm_core.paper_lab.ablations import INCONCLUSIVE, entry_meaning
from lcsm_core.paper_lab.evidence import NOT_HELD
from lcsm_core.paper_lab.report import EVIDENCE_INTRO, evidence_rows, evidence_words
from lcsm_core.paper_lab.results import lr_note, results_csv, results_json
from lcsm_core.paper_lab.spread import SEPARATION
from lcsm_core.training.progress import grid_progress
from lcsm_explorer.app.kit.blocks import Callout, Chart, Columns, Download, Group, Pick, Progress, Table, Text
from lcsm_explorer.app.kit.figure_style import axis, build
from lcsm_explorer.app.kit.lesson import Lesson, Snippet
from lcsm_explorer.app.kit.live import Command, Control, Live
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings
from lcsm_explorer.app.kit.snippet import keyword_arguments
from lcsm_serving import RunStore
from lcsm_serving.paper_lab import shared_grid_runner
from lcsm_serving.paper_lab.runner import Lab

CELL_KEY = "paper_lab.cell"
DEFAULT = default_spec("data_dependence")           # the grid the page opens with: its results are shipped


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
    _preset("tau", "sigmoid(Wx) to the power 1/τ, for τ = 1..64: does a slower-forgetting o recall better?"),
)


# --- the commands -------------------------------------------------------------------------------------------
def launch(c: Control, rerun=None) -> None:
    """Run the grid of the current settings — what is missing, everything, or some cells — or, while another's grid
    holds the lab, put it in line behind it (the lead's callout then says its place)."""
    spec = grid_spec(c.settings)
    have = frozenset(r.key for r in shipped_results(spec))
    _, started, place = shared_grid_runner().launch_or_queue(spec, rerun=rerun, have=have, visitor=c.visitor)
    if not started and place is None:
        raise ValueError("Every cell of this grid has finished: nothing to run.")


def launch_cell(c: Control) -> None:
    label, _, length = c.picked[CELL_KEY].rpartition(" · T=")
    launch(c, rerun=((label, int(length)),))


def lab(c: Control) -> Lab:
    return shared_grid_runner().lab(c.visitor)


def idle(c: Control) -> bool:
    """No grid holds the lab."""
    return lab(c).active is None


def may_run(c: Control) -> bool:
    """The run buttons: one grid runs at a time on this server, and a visitor may queue one behind it (not the
    operator, nor a visitor whose grid runs or waits already)."""
    now = lab(c)
    return (now.active is None and not now.in_line) or now.may_queue


def leave_line(c: Control) -> None:
    if shared_grid_runner().leave_line(c.visitor) is None:
        raise ValueError("You have no grid waiting in line (it may have started).")


def stop_grid(c: Control) -> None:
    """Stop the running grid: its cells still to run never start, a training cell ends at its next step."""
    if not shared_grid_runner().stop(visitor=c.visitor, reason="stopped from the page"):
        raise ValueError("Only the visitor who started this grid (or the operator, from the command line) can "
                         "stop it.")


def cell_pick(v: dict) -> Pick:
    spec = grid_spec(v)
    names = [f"{label} · T={T}" for label in ABLATIONS[spec.ablation].labels for T in spec.seq_lens]
    return Pick(CELL_KEY, "cell", names, hide_label=True)


QUEUES = " While another visitor's grid runs, it queues yours behind it."
COMMANDS = (
    Command("paper_lab.launch", "▶️ Run missing cells", launch, enabled=may_run, primary=True, refusal="warning",
            help="Runs every cell without a finished run on this server or in the shipped results; one grid runs at "
                 "a time on this server." + QUEUES),
    Command("paper_lab.rerun", "🔁 Rerun the whole grid", lambda c: launch(c, rerun="all"), enabled=may_run,
            refusal="warning", help="Every run of the grid again, finished or not." + QUEUES),
    Command("paper_lab.rerun_cell", "🔁 Rerun this cell", launch_cell, enabled=may_run, refusal="warning",
            choose=cell_pick, help="Every learning rate and seed of the chosen entry and length." + QUEUES),
    Command("paper_lab.stop", "⏹ Stop the grid", stop_grid, enabled=lambda c: not idle(c), refusal="warning",
            help="Cells not started yet never start; a cell that is training ends at its next step."),
    Command("paper_lab.leave", "🚶 Leave the line", leave_line, enabled=lambda c: lab(c).in_line, refusal="warning",
            help="Takes your grid out of the line; the grids behind it move up."),
)


# --- the live part: the ablation, then the grid's results, polled while it runs -------------------------------
def intro(v: dict, c: Control) -> list:
    """The ablation, its question, the paper's finding, its entries and how this grid differs from the paper."""
    spec = grid_spec(v)
    ablation = ABLATIONS[spec.ablation]
    entries = [{"label": label, "code": code, "τ": tau, "what it means": entry_meaning(code)}
               for label, code, tau in ablation.entries]
    question = Text(f"**{ablation.question}**  \n📄 Paper: _{ablation.paper_finding}_")    # its check: grid_results
    if c.present:                  # a projector: the heatmap on the first screen, the words folded above it
        return [Group([question, Text(grid_said(spec), "caption"), Table(entries), Text(differences(spec))],
                      fold=f"{ablation.title}: {ablation.question}")]
    return [Text(ablation.title, "heading"), question, Text(grid_said(spec), "caption"),
            Group([Table(entries), Text(differences(spec))],
                  fold=f"The {len(ablation.entries)} entries and how this grid differs from the paper")]


def lead(v: dict, c: Control) -> list:
    spec = grid_spec(v)
    return ([Text(f"{spec.cell_count} runs of {spec.steps} steps ({spec.examples_per_run:,} examples each) on "
                  f"{shared_grid_runner().where}.", "caption")] + lab_callouts(lab(c)))


def _clock(t: float) -> str:
    return time.strftime("%H:%M", time.localtime(t))


def lab_callouts(now: Lab) -> list[Callout]:
    """What the lab says to this visitor: their grid's place in line and when it starts at the latest, that it
    started, or why it could not; else the grid running now and whether they may queue behind it."""
    said = []
    entry = now.entry
    if entry is not None and entry.state == "started":
        said.append(Callout(f"Your grid **{entry.grid}** started at {_clock(entry.ended_at)}.", "success", "▶️"))
    elif entry is not None and entry.state == "refused":
        said.append(Callout(f"Your grid **{entry.grid}** could not start when its turn came: {entry.reason}.",
                            "warning", "⚠️"))
    if now.in_line:
        return said + [Callout(line_words(now), "info", "⏳")]
    if now.active:
        said.append(Callout(busy_words(now), "info", "⏳"))
    return said


def line_words(now: Lab) -> str:
    """Where the visitor's grid waits, and when it starts at the latest."""
    entry = now.entry
    place = f"Your grid **{entry.grid}** is number {entry.place} in line"
    if now.active is None:
        return f"{place}: the lab is free, it starts in a moment."
    if now.starts_by is None:
        return (f"{place}: it starts once the operator's grid **{now.active}** has finished (it has no time limit)"
                + (", and the grids ahead of yours after it." if entry.place > 1 else "."))
    return (f"{place}: it starts by {_clock(now.starts_by)} at the latest (each grid holds the lab "
            f"{now.ceiling_s / 60:.0f} min at most). This page says so when it starts; “🚶 Leave the line” gives up "
            "your place.")


def busy_words(now: Lab) -> str:
    """The grid running now, when the lab is free again at the latest (a visitor's grid is stopped at the ceiling;
    the operator's runs on), and whether this visitor may queue behind it."""
    said = f"{'Your grid' if now.holds_grid else 'Grid'} **{now.active}** is running on this server"
    if now.free_by is None:
        said += "."
    else:
        said += (f": the lab is free again by {_clock(now.free_by)} at the latest (a visitor's grid holds it "
                 f"{now.ceiling_s / 60:.0f} min at most).")
    if now.holds_grid:
        return said
    if now.operator:
        return said + " Your grid can start then."
    if now.line_full:
        return said + f" The line behind it is full ({now.waiting} grids wait): try again when one has started."
    ahead = f" behind it and the {now.waiting} grid(s) waiting" if now.waiting else " behind it"
    starts = now.starts_by_if_queued()
    when = f": it would start by {_clock(starts)} at the latest" if starts is not None else ""
    return said + f" A run button puts your grid in line{ahead}{when}."


def moving(v: dict, c: Control) -> bool:
    """A grid runs or grids wait in line: the page polls."""
    now = lab(c)
    return now.active is not None or now.waiting > 0


def grid_said(spec: GridSpec) -> str:
    """What grid the settings make: the ablation's default one (whose results are shipped) or another."""
    seeds, rates = len(spec.seeds), len(spec.lrs)
    shape = (f"{seeds} seed{'s' if seeds > 1 else ''} per cell, the best of {rates} learning rate"
             f"{'s' if rates > 1 else ''} ({_sweep(spec.lrs)})")
    if spec == default_spec(spec.ablation):
        return (f"**The default grid**, whose results ship with the explorer: {shape}, sized to run in minutes on "
                "a 2-core CPU: a demo. One rate cannot show that the best rate lies inside the sweep (widen it in "
                "the sidebar to look); the claim's verdict is its evidence grid's, below.")
    return f"**Not the default grid** (its results are not shipped; run it here): {shape}."


def differences(spec: GridSpec) -> str:
    """How the grid differs from the paper's MQAR setup: the core's lines (scale.differences_from_paper) and the
    initialisation, which the paper does not state."""
    lines = [*differences_from_paper(spec),
             "data-dependent decays start at the same ALiBi decays as the data-independent ones (the paper does "
             "not say how it initialised them)"]
    return "\n".join(f"- {line}" for line in lines)


@dataclass(frozen=True)
class GridView:
    """What the page shows of a grid: this server's runs of it, the shipped results, and the two merged."""

    spec: GridSpec
    rows: list               # this server's runs of the grid (RunRow)
    shipped: object          # the shipped results for these settings, or None
    live_cells: list         # CellResult of this server's finished runs
    results: list            # shipped cells overlaid by this server's


def fetch(v: dict, c: Control) -> GridView:
    spec = grid_spec(v)
    store = RunStore(shared_grid_runner().db_path)
    try:
        rows = store.session_runs(grid_session(spec.grid_id))
    finally:
        store.close()
    shipped = shipped_grid(spec)
    live_cells = live_results(spec, rows)
    return GridView(spec, rows, shipped, live_cells, merged(shipped.results if shipped else [], live_cells))


def grid_results(v: dict, grid: GridView, c: Control) -> list:
    """The heatmap (shipped cells, overlaid by this server's runs), the verdict and the runs."""
    spec, shipped, results = grid.spec, grid.shipped, grid.results
    blocks = grid_progress_blocks(grid.rows) + [Chart(accuracy_figure(spec, results), f"paper-lab-{spec.grid_id}")]
    if shipped:
        blocks.append(Text(f"Shipped results, measured on {shipped.measured_on}: {shipped.time_said()}. "
                           f"{len(grid.live_cells)} of {spec.cell_count} runs are from this server and replace the "
                           "shipped ones.", "caption"))
    elif not results:
        blocks.append(Text("No results for this grid yet: the shipped results are for the ablation's default "
                           "settings (click its preset). Run the grid to fill the heatmap.", "caption"))
    blocks.append(Callout(demo_message(verdict(spec, results), len({r.key for r in results}), spec.cell_count),
                          "info"))
    if results and (note := lr_note(spec, results)):
        blocks.append(Text(f"Learning rates: {note}.", "caption"))
    blocks += evidence_blocks(spec.ablation)
    if results:
        name = f"paper-lab-{spec.grid_id}"
        blocks.append(Columns([[Download("⬇️ Results as CSV (one row per cell)", results_csv(results), f"{name}.csv",
                                         "text/csv", key=f"{name}-csv")],
                               [Download("⬇️ Results as JSON (the grid, every cell, the reading)",
                                         results_json(spec, results), f"{name}.json", "application/json",
                                         key=f"{name}-json")]]))
    if grid.rows:
        blocks.append(Table([{"run": r.id, "label": r.label, "status": r.status, "steps": r.steps,
                              "best test acc": r.best_test_acc, "seconds": round(r.wall_s, 1), "note": r.reason}
                             for r in grid.rows]))
    return blocks


def demo_message(found, finished: int, cells: int) -> str:
    """What this page's grid (a demo: few seeds, few rates) says, never signed as the claim's verdict: the core's
    reading of its seed ranges, and that the verdict is the evidence grid's."""
    said = "🧪 This grid is a demo, not the evidence: its verdict is the evidence grid's, below."
    if found is None:
        return f"{said} {finished} of {cells} runs have finished."
    return f"{said} Its seed ranges alone read “{found.outcome}”: {found.detail}."


EVIDENCE_KIND = {"held": "success", NOT_HELD: "error"}


def evidence_blocks(ablation: str) -> list:
    """The claim's verdict on its evidence grid (run from the command line, shipped): the statistic per entry, the
    rule, the grid that ran and, undecided, why. All words and numbers are the core's (paper_lab.report)."""
    outcome, _, ran = evidence_words(ablation)
    kind, message = verdict_message(ABLATIONS[ablation].claim, None, 0, 0, evidence=(outcome, ran))
    blocks = [Callout(message, kind)]
    rows = evidence_rows(ablation)
    if rows:
        blocks.append(Table(rows, static=True, alt="The evidence grid, entry by entry"))
    blocks.append(Group([Text(EVIDENCE_INTRO, "caption")],
                        fold="The search, the statistic and the rule behind the verdict"))
    return blocks


def verdict_message(claim: str, found, finished: int, cells: int, evidence=None) -> tuple[str, str]:
    """The page's one statement of the claim and its verdict (a `verdict` on this grid's numbers, or None while
    cells are missing) as (info / success / warning / error, text): the claim is never said apart from it. The
    text is the core's: its outcome (held, did not hold, inconclusive), its detail (the seeds it read among the
    numbers) and, for a claim tested more than one way, each reading."""
    said = f"🔎 Checked here: “{claim}”"
    if evidence is not None:
        outcome, ran = evidence
        return (EVIDENCE_KIND.get(outcome, "warning"),
                f"🔎 Checked on the evidence grid: “{claim}” — **{outcome}**. {ran}")
    if found is None:
        return "info", f"{said} — once every cell has a result ({finished} of {cells} runs have finished)."
    readings = "".join(f"  \n· {reading}: **{outcome}** — {detail}" for reading, outcome, detail in found.readings)
    if found.seeds > 1:
        readings += (f"  \n{found.seeds} seeds per cell: each number is their mean [min–max]; ranges closer than "
                     f"{SEPARATION:g} (one evaluation's sampling error) are not told apart.")
    if found.held:
        return "success", f"{said} — **held** on these numbers: {found.detail}.{readings}"
    if found.outcome == INCONCLUSIVE:
        return "warning", f"{said} — **inconclusive**: {found.detail}.{readings}"
    return "error", f"{said} — **did not hold** at this scale: {found.detail}.{readings}"


def grid_quantities(v: dict, grid: GridView | None) -> dict[str, float]:
    """What the exercises and challenges check, about the grid the settings describe and its results."""
    spec = grid_spec(v)
    results = grid.results if grid is not None else []
    found = verdict(spec, results)
    done = len({r.key for r in results})
    return dict(cells=float(spec.cell_count), finished_fraction=done / spec.cell_count,
                live_cells=float(len(grid.live_cells) if grid else 0), claim_held=-1.0 if found is None else
                float(found.held), ablation_is_tau=float(spec.ablation == "tau"),
                seeds=float(len(spec.seeds)), learning_rates=float(len(spec.lrs)),
                shipped=float(bool(grid and grid.shipped)),
                claim_readings=float(len(found.readings) if found is not None and found.readings else 1))


# --- figures -------------------------------------------------------------------------------------
CHANCE = 1 / 32                        # MQAR with a vocabulary of 64: a value is one of 32 tokens


def grid_progress_blocks(rows: list, now: float | None = None) -> list:
    """A bar while this server runs the grid: its runs ended out of its runs, the time left at its pace."""
    if not any(r.active for r in rows):
        return []
    started = [r.started_at for r in rows if r.started_at is not None]
    progress = grid_progress(sum(not r.active for r in rows), len(rows), min(started, default=None),
                             time.time() if now is None else now)
    return [Progress(progress.fraction, progress.words())]


def accuracy_figure(spec: GridSpec, results) -> go.Figure:
    """Best test accuracy per entry (rows) and sequence length (columns), as the paper's figures plot it: the mean
    over seeds, with its [min–max] written in the cell when there is more than one seed."""
    table, lrs, spread = accuracy_table(spec, results), best_lrs(spec, results), spreads(spec, results)
    labels = list(table)
    z = [[table[label][T] for T in spec.seq_lens] for label in labels]
    cell = [[(spread[label][T], lrs[label][T]) for T in spec.seq_lens] for label in labels]
    text = [["" if s is None else f"{s.mean:.2f}" if s.n == 1 else f"{s.mean:.2f} [{s.low:.2f}–{s.high:.2f}]"
             for s, _ in row] for row in cell]
    best = [["—" if s is None else f"{lr:g}<br>seeds: {', '.join(f'{a:.2f}' for a in s.values)}" for s, lr in row]
            for row in cell]
    heat = go.Heatmap(z=z, x=[f"T = {T}" for T in spec.seq_lens], y=labels, zmin=0.0, zmax=1.0, colorscale="Viridis",
                      text=text, texttemplate="%{text}", customdata=best,
                      colorbar=dict(title=dict(text="accuracy"), tickvals=[0, 0.5, 1]),
                      hovertemplate="%{y}, %{x}<br>best test accuracy %{z:.3f} (mean over seeds)<br>at lr "
                                    "%{customdata}<extra></extra>")
    return build([heat], f"MQAR test accuracy (chance ≈ {CHANCE:.2f}), best over lr {_sweep(spec.lrs)}",
                 height=max(260, 60 + 34 * len(labels)), legend=False, xaxis=axis("sequence length", type="category"),
                 yaxis=axis(None, type="category", autorange="reversed"))


LESSON = Lesson(
    page="paper_lab", number=9, title="Paper lab", icon="🧪", section="Sequence models",
    summary="The LCSM ablations as grids of runs, with shipped results.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="🧪 Grid",
    chart_controls=("ablation", "seeds"),
    live=Live(commands=COMMANDS, intro=intro, lead=lead, moving=moving, fetch=fetch, draw=grid_results,
              quantities=grid_quantities, picks={CELL_KEY: None}, poll_s=2.0, page_state=lambda v, c: lab(c)),
    snippet=Snippet(imports="from lcsm_core.paper_lab import GridSpec\nfrom lcsm_serving.paper_lab import GridRunner\n"
                            "from lcsm_serving.paper_lab.cli import run_grid   # prints a JSON line per cell",
                    call=grid_call, prints=dict(cells="result['cells']", ran_now="result['ran_now']")),
)

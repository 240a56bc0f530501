"""Lesson 7 · SSMs as online learners: four update rules memorize a key–value stream.

Prose and exercises: lessons/07-online-learners.md. Every number comes from one `recall_study`
call: linear attention, RetNet (fixed decay), DeltaNet and Longhorn run as EOS recurrences on the same stream.
The fixed-decay rule is RetNet's row of Longhorn's Table 4; its setting keeps the key `gate` so old links work.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lcsm_core.divergence import DIVERGENCE_BOUND
from lcsm_core.online_learning import RETNET, RULES, RecallStudy, recall_study
from lcsm_explorer.app.kit.figure_style import (
    DASHES,
    GREY,
    INK,
    PALETTE,
    PAPER,
    at_least,
    axis,
    build,
    divergence_marks,
    kept,
    note,
    precision_band,
    vline,
)
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Snippet
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings

SETTINGS = Settings("online_learners", (
    Setting.slider("n_keys", "distinct keys N", 8, 1, 64),
    Setting.slider("key_dim", "key dimension k", 16, 1, 64),
    Setting.slider("repeats", "times each key comes back", 3, 1, 10),
    Setting.slider("key_scale", "key length ‖k‖", 1.0, 0.1, 3.0, step=0.05),
    Setting.slider("beta", "learning rate β (DeltaNet, Longhorn)", 1.0, 0.05, 2.0, step=0.05),
    Setting.slider("gate", "RetNet decay γ", 0.9, 0.5, 1.0, step=0.01),
    Setting.slider("seed", "seed", 0, 0, 99),
))


def _stream(**changes) -> dict:
    """A preset's full stream and rules (the seed included): the numbers its insight quotes hold exactly."""
    return dict(dict(n_keys=8, key_dim=16, repeats=3, key_scale=1.0, beta=1.0, gate=0.9, seed=0), **changes)


# Final recall errors at these settings (linear attention, RetNet, DeltaNet, Longhorn), measured:
#   room to spare 4.9, 0.21, 0.001, 0.19 · overloaded 34, 1.2, 1.4, 0.88 · long keys 151, 16, 2.5e4 (|λ| = 3), 0.50
#   defaults (k = 16) 6.3, 0.41, 0.057, 0.28
# Fast decay: RetNet still returns 93 % of the value it stored last, 14 % of the one it saw 7 steps ago.
PRESETS = (
    Preset("📦 Room to spare", _stream(key_dim=32),
           "8 keys in 32 dimensions: DeltaNet's exact overwrite (β‖k‖² = 1) ends with a recall error of 0.001. "
           "Longhorn's diagonal half step (ε = ½) is not exact — it ends at 0.19 — but 26× below linear "
           "attention (4.9), whose copies pile up.",
           claim=("deltanet_eigenvalue = 0 ± 1e-12", "deltanet_error between 0.0009 and 0.0011",
                  "longhorn_error between 0.18 and 0.19", "la_error between 4.8 and 5",
                  "la_over_longhorn between 25.5 and 27")),
    Preset("🧳 Overloaded", _stream(n_keys=32, key_dim=8),
           "More keys than dimensions: every rule interferes; linear attention's error piles up ~40× above "
           "Longhorn's, and even DeltaNet's overwrites disturb the other keys.",
           claim=("n_keys > key_dim", "la_over_longhorn between 30 and 50", "retnet_error > 0.5",
                  "deltanet_error > 0.5", "longhorn_error > 0.5")),
    Preset("💥 Long keys", _stream(key_scale=2.0),
           "β‖k‖² = 4: DeltaNet's eigenvalue −3 leaves the disk; Longhorn stays inside.",
           claim=("deltanet_eigenvalue = -3 ± 1e-12", "deltanet_radius = 3 ± 1e-9", "longhorn_radius < 1")),
    Preset("🐟 Fast decay", _stream(gate=0.6),
           "RetNet with a fixed decay γ = 0.6 forgets a key within a few steps of its last visit.",
           claim=("gate = 0.6", "retnet_newest_kept > 0.8", "retnet_oldest_kept < 0.25")),
)


def compute(v: dict) -> RecallStudy:
    return recall_study(n_keys=v["n_keys"], key_dim=v["key_dim"], repeats=v["repeats"], beta=v["beta"],
                        decay=v["gate"], key_scale=v["key_scale"], seed=v["seed"])


def final_errors(study: RecallStudy) -> dict[str, float]:
    return {rule: float(err) for rule, err in zip(study.rules, study.errors[:, -1])}


def largest_radius(study: RecallStudy) -> dict[str, float]:
    return {rule: float(r) for rule, r in zip(study.rules, study.radius.max(axis=1))}


def metrics(v: dict, study: RecallStudy) -> list:
    final, radius = final_errors(study), largest_radius(study)
    return [Metric(f"{rule}: final error", f"{final[rule]:.3g}",
                   delta=f"unstable: |λ| up to {radius[rule]:.3g}" if radius[rule] > 1 + 1e-9 else None, good=False,
                   help="mean squared error recalling every key after the whole stream")
            for rule in study.rules]


def quantities(v: dict, study: RecallStudy) -> dict[str, float]:
    final, radius = final_errors(study), largest_radius(study)
    return dict(deltanet_radius=radius["DeltaNet"], longhorn_radius=radius["Longhorn"], n_keys=v["n_keys"],
                key_dim=v["key_dim"], repeats=v["repeats"], beta=v["beta"], key_scale=v["key_scale"], gate=v["gate"],
                deltanet_eigenvalue=study.deltanet_eigenvalue, la_error=final["linear attention"],
                retnet_error=final[RETNET], deltanet_error=final["DeltaNet"], longhorn_error=final["Longhorn"],
                la_over_longhorn=final["linear attention"] / max(final["Longhorn"], 1e-300),
                **retnet_kept(study))


def retnet_kept(study: RecallStudy) -> dict[str, float]:
    """How much of a key's value RetNet still returns at the end (⟨recall, value⟩ / ‖value‖²) for the key it saw
    last and for the key whose last visit lies furthest back (n_keys − 1 steps before the end)."""
    last_visit = {int(key): step for step, key in enumerate(study.key_order)}
    newest, oldest = max(last_visit, key=last_visit.get), min(last_visit, key=last_visit.get)
    kept = study.final_kept[study.rules.index(RETNET)]
    return dict(retnet_newest_kept=float(kept[newest]), retnet_oldest_kept=float(kept[oldest]))


def equations(q: dict) -> list[str]:
    # The eigenvalue along k is left for the reader to evaluate: at the defaults (β = 1, ‖k‖ = 1) its value is the
    # answer to the exercise "The overwrite eigenvalue". The largest |λ| (1 on every direction ⟂ k) gives it away
    # only when it is the one outside the disk, which the page says anyway.
    return [rf"\text{{DeltaNet: }} I-\beta kk^\top\ \text{{has the eigenvalue }} 1-\beta\lVert k\rVert^2"
            rf"\ \text{{along }} k,\ \beta = {q['beta']:.3g},\ \lVert k\rVert = {q['key_scale']:.3g};"
            rf"\ \text{{largest }} |\lambda| = {q['deltanet_radius']:.4g}"
            rf"\qquad \text{{Longhorn: }} 1-\frac{{\beta k_n^2}}{{1+\beta\lVert k\rVert^2}}\in(0,1]"]


# --- figures ---------------------------------------------------------------------------------
ERROR_FLOOR = 1e-8   # errors below this are drawn in a band that says so (the smallest ones are float rounding,
                     # ~1e-32: drawn at their value they would stretch the axis over 25 empty decades)
FLOOR_NAME = "error < 10⁻⁸"
RULE_COLORS = dict(zip(RULES, PALETTE))
RULE_DASHES = dict(zip(RULES, DASHES))      # each rule differs by dash (lines), marker or bar pattern too
RULE_PATTERNS = dict(zip(RULES, ("", "/", "x", ".")))
MAX_BARS = 16        # keys drawn as grouped bars up to this many; beyond, one marker per key and rule
SYMBOLS = ("circle", "diamond", "x", "triangle-up")


def figures(v: dict, study: RecallStudy) -> dict[str, go.Figure]:
    return dict(recall=recall_error_figure(study), final=final_error_figure(study), radius=radius_figure(study))


def recall_error_figure(study: RecallStudy) -> go.Figure:
    """Each rule's error after each step, cut where it diverged."""
    traces = [go.Scatter(y=at_least(kept(err, study.diverged_at[rule]), ERROR_FLOOR), name=rule, mode="lines",
                         line=dict(color=RULE_COLORS[rule], dash=RULE_DASHES[rule]))
              for rule, err in zip(study.rules, study.errors)]
    if (study.errors < ERROR_FLOOR).any():
        traces.insert(0, precision_band(0, study.errors.shape[1] - 1, ERROR_FLOOR, name=FLOOR_NAME))
    n = study.n_keys
    shapes = [vline(rep * n - 0.5, GREY, "dot") for rep in range(1, len(study.key_order) // n)]
    diverged = [(at, rule) for rule, at in study.diverged_at.items() if at is not None]
    notes = []
    for j, (at, rule) in enumerate(diverged):       # a line per rule, one note for all of them
        marks, words = divergence_marks(at, rule, text=", ".join(f"{who} diverged at step {step}"
                                                                 for step, who in diverged),
                                        x_end=study.errors.shape[1] - 1)
        shapes += marks
        notes += words if j == 0 else []
    return build(traces, "Recall error of every key seen so far", height=380, shapes=shapes, annotations=notes,
                 xaxis=axis("step t (dotted: the stream starts over)"),
                 yaxis=axis("mean squared recall error", type="log"))


def final_error_figure(study: RecallStudy) -> go.Figure:
    """Each key's error at the end: grouped bars for a few keys, a marker per key and rule for many."""
    keys = np.arange(study.n_keys)
    few = study.n_keys <= MAX_BARS
    drawn = [(j, rule, err) for j, (rule, err) in enumerate(zip(study.rules, study.final_error))
             if study.diverged_at[rule] is None]              # a diverged rule's errors are the clip, not data
    traces = [go.Bar(x=keys, y=at_least(err, ERROR_FLOOR), name=rule,
                     marker=dict(color=RULE_COLORS[rule], pattern=dict(shape=RULE_PATTERNS[rule], fillmode="overlay",
                                                                       fgcolor=PAPER))) if few else
              go.Scatter(x=keys, y=at_least(err, ERROR_FLOOR), name=rule, mode="markers",
                         marker=dict(color=RULE_COLORS[rule], size=7, symbol=SYMBOLS[j]))
              for j, rule, err in drawn]
    if any((err < ERROR_FLOOR).any() for _, _, err in drawn):
        traces.insert(0, precision_band(-0.5, study.n_keys - 0.5, ERROR_FLOOR, name=FLOOR_NAME))
    gone = [rule for rule in study.rules if study.diverged_at[rule] is not None]
    notes = [note(f"⚠ not drawn: {', '.join(gone)} diverged", 0.01, 1, xref="x domain", yref="paper",
                  xanchor="left")] if gone else []
    return build(traces, "Recall error per key at the end", legend_side="right", annotations=notes,
                 xaxis=axis("key"), yaxis=axis("squared error", type="log"))


def radius_figure(study: RecallStudy) -> go.Figure:
    steps = study.radius.shape[1]
    traces = [go.Scatter(x=[0, steps - 1], y=[1.0, 1.0], mode="lines", name="|λ| = 1 (unit circle)",
                         line=dict(color=INK, dash="longdashdot", width=1), hoverinfo="skip")]
    traces += [go.Scatter(y=np.minimum(r, DIVERGENCE_BOUND), name=rule, mode="lines",
                          line=dict(color=RULE_COLORS[rule], dash=RULE_DASHES[rule]))
               for rule, r in zip(study.rules, study.radius)]
    return build(traces, "Stability of each step's transition", legend_side="right",
                 xaxis=axis("step t"), yaxis=axis("largest |eigenvalue| of the transition"))


LESSON = Lesson(
    page="online_learners", number=7, title="SSMs as online learners", icon="🎯", section="Sequence models",
    summary="Longhorn vs DeltaNet vs linear attention vs RetNet.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="🎯 Stream",
    compute=compute, figures=figures, charts=(("recall",), ("final", "radius")),
    chart_controls=("n_keys", "key_scale", "beta", "gate"),
    metrics=metrics, quantities=quantities, equations=equations,
    chart_readouts=tuple((chart, tuple(f"{rule}: final error" for rule in RULES)) for chart in ("recall", "final")),
    snippet=Snippet(
        imports="from lcsm_core.online_learning import recall_study",
        call="recall_study(n_keys={n_keys}, key_dim={key_dim}, repeats={repeats}, beta={beta}, decay={gate}, "
             "key_scale={key_scale}, seed={seed})",
        prints=dict(deltanet_eigenvalue="result.deltanet_eigenvalue",
                    la_error="result.errors[list(result.rules).index('linear attention'), -1]",
                    deltanet_error="result.errors[list(result.rules).index('DeltaNet'), -1]",
                    longhorn_error="result.errors[list(result.rules).index('Longhorn'), -1]")),
)

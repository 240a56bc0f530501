"""Lesson 2 · Continuous → discrete: Δ and an input → s-plane, z-plane, sampled responses, error.

Prose and exercises: lessons/02-discretize.md. Every number and curve comes from one call,
`compare_discretizations`: ZOH, bilinear and Euler side by side against the exact samples, with
where each method sends each pole and the grid the pole-map pictures draw.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import plotly.graph_objects as go

from lcsm_core.dynamics.discretize_comparison import INPUTS, DiscretizationComparison, compare_discretizations
from lcsm_core.dynamics.discretize_family import compare_discretizations_family
from lcsm_explorer.app.kit.figure_style import (
    COLORS,
    GREY,
    INK,
    WARNING,
    at_least,
    axis,
    build,
    divergence_marks,
    note,
    precision_band,
    scatter,
    unit_circle_trace,
    vline,
)
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Notice, Snippet, Sweep
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings
from lcsm_explorer.app.kit.sweep import PlainFigure, Refiller

SETTINGS = Settings("discretize", (
    Setting.slider("dt", "sample time Δ (s)", 0.1, 0.02, 2.0, step=0.01),
    Setting.choice("input", "input", "release", INPUTS, help="release: let go from x = 1 with no force"),
    Setting.slider("freq", "sine frequency ω (rad/s)", 1.0, 0.1, 5.0, step=0.05,
                   shown=lambda v: v["input"] == "sine"),
    Setting.slider("m", "mass m", 1.0, 0.1, 5.0, step=0.05, group="Spring"),
    Setting.slider("k", "spring constant k", 1.0, 0.1, 10.0, step=0.05, group="Spring"),
    Setting.slider("c", "damping c", 0.2, 0.0, 5.0, step=0.01, group="Spring"),
))

PRESETS = (
    Preset("🔬 Fine Δ", dict(dt=0.05, m=1.0, k=1.0, c=0.2, input="release"),
           "Small Δ: all three track the continuous system — ZOH exactly, bilinear within 0.03, Euler within 0.11.",
           claim=("zoh_error < 1e-9", "bilinear_error < 0.03", "euler_error < 0.11", "euler_radius < 1")),
    Preset("🪜 Coarse Δ, ZOH exact", dict(dt=1.0, m=1.0, k=1.0, c=0.2, input="release"),
           "A release (no input) is sampled exactly by ZOH at any Δ; bilinear and Euler are not.",
           claim=("zoh_error < 1e-9", "bilinear_error > 0.1", "euler_error > 0.1")),
    Preset("⚠️ Euler unstable", dict(dt=0.3, m=1.0, k=1.0, c=0.2, input="release"),
           "Δ = 0.3 > 2ζ/ωn = 0.2: Euler's poles leave the unit circle although the spring is stable.",
           claim=("dt > euler_limit", "euler_radius > 1", "zoh_radius < 1", "bilinear_radius < 1")),
    Preset("〰️ Sine input", dict(dt=0.5, m=1.0, k=1.0, c=0.5, input="sine", freq=0.8),
           "A sine is not piecewise constant: now ZOH has an error too, and bilinear is the closest here.",
           claim=("zoh_error > 0.1", "bilinear_error < zoh_error", "bilinear_error < euler_error")),
)

METHOD_LABELS = {"zoh": "ZOH", "bilinear": "bilinear", "euler": "Euler"}
ON_CIRCLE = 1e-9    # |z| this close to 1 is on the circle up to rounding (Δ exactly at Euler's limit), not outside


def compute(v: dict) -> DiscretizationComparison:
    """The page's numbers: `reference_compute`'s, by its batched twin for this one Δ (`compute_family`: the four
    systems in one EOS scan, no python-control objects). 2–4 ms where the reference takes 10–35 ms (Δ = 0.1 … 0.02,
    one thread): the largest part of a move of Δ. Equal to the reference to fp64 rounding (tests/dynamics/
    test_families.py; tests/app/test_page_compute.py off the preview's grid); where the batch refuses, the
    reference runs, so the page shows the core's message."""
    batched = compute_family(v, [v["dt"]])[0]
    return batched if batched is not None else reference_compute(v)


def reference_compute(v: dict) -> DiscretizationComparison:
    """The readable reference (what the snippet prints): each system discretized and scanned on its own."""
    return compare_discretizations(v["m"], v["c"], v["k"], v["dt"], input_kind=v["input"], frequency=v["freq"])


def compute_family(held: dict, dts: list) -> list:
    """`compute` at every Δ of the preview, in one batched scan (None for all where the core refuses)."""
    try:
        return compare_discretizations_family(held["m"], held["c"], held["k"], dts, input_kind=held["input"],
                                              frequency=held["freq"])
    except ValueError:
        return [None] * len(dts)


def metrics(v: dict, cmp: DiscretizationComparison) -> list:
    items = [Metric(f"{label}: largest |z|", f"{cmp.methods[method].radius:.4f}", cmp.methods[method].verdict,
                    good=cmp.methods[method].verdict != "unstable")
             for method, label in METHOD_LABELS.items()]
    euler = cmp.methods["euler"]
    if euler.diverged_at is not None:
        items.append(Notice(f"Euler's response passed ±{cmp.bound:,.0f} at t = {euler.diverged_at:.3g} s; its curve "
                            "stops there.", icon="💥"))
    elif v["c"] > 0 and euler.radius > 1 + ON_CIRCLE:
        # A stable spring whose Euler recurrence grows: the point of the lesson, said in words (the
        # divergence note above only appears once the growth reaches the bound, usually past the horizon).
        items.append(Notice(f"Δ = {v['dt']:g} s is past Euler's stability limit {cmp.euler_limit:.3g} s: its poles "
                            f"leave the unit circle (largest |z| = {euler.radius:.4f}) and its response grows, "
                            "although the spring itself is stable."))
    return items


def quantities(v: dict, cmp: DiscretizationComparison) -> dict[str, float]:
    p = cmp.s_poles[-1]                      # the pole the equations follow (upper half-plane when complex)
    q = dict(dt=v["dt"], m=v["m"], c=v["c"], k=v["k"], euler_limit=cmp.euler_limit, p_re=float(p.real),
             p_im=float(p.imag))
    for method, res in cmp.methods.items():
        z = res.mapped[-1]                   # where p goes under this method
        q.update({f"{method}_radius": res.radius, f"{method}_error": float(res.error.max()),
                  f"{method}_re": float(z.real), f"{method}_im": float(z.imag), f"{method}_abs": float(abs(z))})
    return q


def equations(q: dict) -> list[str]:
    return [rf"p = {q['p_re']:.4g} {q['p_im']:+.4g}i,\ \Delta = {q['dt']:g}:\quad"
            rf"\text{{ZOH}}\ z = e^{{p\Delta}} = {q['zoh_re']:.4f} {q['zoh_im']:+.4f}i\ (|z| = {q['zoh_abs']:.4f})",
            rf"\text{{bilinear}}\ z = \frac{{1 + p\Delta/2}}{{1 - p\Delta/2}} = {q['bilinear_re']:.4f} "
            rf"{q['bilinear_im']:+.4f}i\ (|z| = {q['bilinear_abs']:.4f}) \qquad \text{{Euler}}\ z = 1 + p\Delta = "
            rf"{q['euler_re']:.4f} {q['euler_im']:+.4f}i\ (|z| = {q['euler_abs']:.4f})"]


# --- figures ---------------------------------------------------------------------------------
MARKERS = {"zoh": "circle-open", "bilinear": "diamond", "euler": "x"}
DASHES = {"zoh": "solid", "bilinear": "dash", "euler": "dot"}     # the methods differ by colour, marker and dash
FRAME = 4.0     # the responses plot shows up to FRAME × the exact response's peak: a runaway curve leaves the
                # frame instead of squashing the others flat against the axis (it may reach the 1e6 bound)


def figures(v: dict, cmp: DiscretizationComparison) -> dict[str, go.Figure]:
    return {"s-plane": s_plane_map_figure(cmp), "z-plane": z_plane_figure(cmp),
            "z-plane-zoom": z_plane_figure(cmp, zoom=True), "responses": responses_figure(cmp),
            "error": error_figure(cmp)}


def grid_points(cmp: DiscretizationComparison, which: int) -> np.ndarray:
    """All grid lines (s side: which=0, z side: which=1) as one complex array, each followed by a NaN (a gap)."""
    lines = [line[which] for line in cmp.pole_map.lines]
    points = np.full(sum(len(line) + 1 for line in lines), np.nan, dtype=complex)
    start = 0
    for line in lines:
        points[start:start + len(line)] = line
        start += len(line) + 1
    return points


def grid_trace(values: dict, name: str) -> go.Scatter:
    return scatter(**values, mode="lines", hoverinfo="skip", name=name, connectgaps=False,
                   line=dict(color=GREY, width=0.75))


def s_plane_map_figure(cmp: DiscretizationComparison) -> go.Figure:
    """Continuous poles, the grid that gets mapped, and Euler's stable disk |1 + sΔ| < 1."""
    grid, disk, poles = s_plane_values(cmp)
    traces = [grid_trace(grid, "grid (mapped →)"),
              scatter(**disk, mode="lines", name="Euler stable disk", fill="toself", fillcolor="rgba(213,94,0,0.06)",
                      fillpattern=dict(shape="/", fgcolor=WARNING, fgopacity=0.3, size=12, solidity=0.08),  # not a tint
                      line=dict(color=COLORS["euler"], dash="dot")),
              scatter(**poles, mode="markers", name="poles p",
                      marker=dict(symbol="x", size=14, color=INK, line=dict(width=2, color=INK)))]
    return build(traces, **s_plane_frame(cmp))


def s_plane_values(cmp: DiscretizationComparison) -> list[dict]:
    """The s-plane's traces' values (`s_plane_map_figure`'s order): the grid, Euler's disk and the poles."""
    grid, circle = grid_points(cmp, 0), cmp.pole_map.euler_circle
    return [dict(x=grid.real, y=grid.imag), dict(x=circle.real, y=circle.imag),
            dict(x=cmp.s_poles.real, y=cmp.s_poles.imag)]


def s_plane_frame(cmp: DiscretizationComparison) -> dict:
    """`build`'s title and layout for the s-plane: no part of them reads the traces."""
    reach = max(1.5, 1.3 * float(np.max(np.abs(cmp.s_poles))))
    return dict(title="s-plane (continuous)", height=460, legend_side="top", shapes=[vline(0, GREY)],
                xaxis=axis("Re s", range=[-reach, 0.5 * reach], constrain="domain"),
                yaxis=axis("Im s", range=[-reach, reach], scaleanchor="x"))


_REFILL = Refiller()                    # the first chart of each kind drawn, refilled for every later member


def preview_figures(v: dict, cmp: DiscretizationComparison) -> dict:
    """`figures` as the preview family keeps them (`Sweep.figures`: every chart follows a drag), without plotly
    objects: each chart is the first one of its kind drawn, refilled with this member's values under its own
    layout (`Refiller`); the zoom is the z-plane's traces under its own layout. About 0.3 instead of 1 ms a
    member, the larger part of a held move's family. The same charts, the same JSON (tests/app/
    test_preview_figures.py, at every member of held settings in every corner)."""
    band = error_band(cmp)
    errors = error_values(cmp) if band is None else [{"x": list(band["x"]), "y": list(band["y"])},  # (a tuple
                                                     *error_values(cmp)]                          # if validated)
    made = {chart: _REFILL(chart, partial(draw, cmp), values, frame) for chart, draw, values, frame in (
        ("s-plane", s_plane_map_figure, s_plane_values(cmp), s_plane_frame(cmp)),
        ("z-plane", z_plane_figure, z_plane_values(cmp), z_plane_frame(cmp, zoom=False)),
        ("responses", responses_figure, responses_values(cmp), responses_frame(cmp)),
        ("error", error_figure, errors, error_frame(cmp)))}
    zoom = _REFILL.layout(z_plane_frame(cmp, zoom=True))
    return {"s-plane": made["s-plane"], "z-plane": made["z-plane"],
            "z-plane-zoom": PlainFigure(data=made["z-plane"]["data"], layout=zoom),
            "responses": made["responses"], "error": made["error"]}


def z_plane_figure(cmp: DiscretizationComparison, *, zoom: bool = False) -> go.Figure:
    """Unit circle, the image of the s-grid under z = e^{sΔ}, and each method's poles.

    zoom=True frames the poles (poles of a fine Δ crowd near z = 1, where the differences are).
    """
    return build(z_plane_traces(cmp), **z_plane_frame(cmp, zoom=zoom))


def z_plane_traces(cmp: DiscretizationComparison) -> list:
    grid, _, exact, *poles = z_plane_values(cmp)
    traces = [grid_trace(grid, "grid → exp(sΔ)"), unit_circle_trace(color=INK),
              scatter(**exact, mode="markers", name="exact exp(pΔ)",
                      marker=dict(size=16, symbol="circle-open", color=INK, line=dict(width=1)))]
    for method, values in zip(cmp.methods, poles):
        traces.append(scatter(**values, mode="markers", name=METHOD_LABELS[method],
                              marker=dict(symbol=MARKERS[method], size=12, color=COLORS[method],
                                          line=dict(width=2, color=COLORS[method])),
                              hovertemplate="|z| = %{customdata:.4f}<extra></extra>"))
    return traces


def z_plane_values(cmp: DiscretizationComparison) -> list[dict | None]:
    """The z-plane's traces' values (`z_plane_traces`' order): the mapped grid, the unit circle (None: it never
    moves), the exact poles and each method's poles with their |z|."""
    grid = grid_points(cmp, 1)
    return [dict(x=grid.real, y=grid.imag), None, dict(x=cmp.z_exact.real, y=cmp.z_exact.imag),
            *(dict(x=res.poles.real, y=res.poles.imag, customdata=np.abs(res.poles)) for res in cmp.methods.values())]


def z_plane_frame(cmp: DiscretizationComparison, *, zoom: bool) -> dict:
    """`build`'s title and layout for the z-plane (or its zoom on the poles): no part of them reads the traces."""
    reach = min(max([1.2] + [1.1 * res.radius for res in cmp.methods.values()]), 4.0)
    x_range = y_range = [-reach, reach]
    if zoom:
        z = np.concatenate([cmp.z_exact] + [res.poles for res in cmp.methods.values()])
        half = max(0.02, 0.6 * max(np.ptp(z.real), np.ptp(z.imag)))
        cx, cy = float(np.mean([z.real.min(), z.real.max()])), float(np.mean([z.imag.min(), z.imag.max()]))
        x_range, y_range = [cx - half, cx + half], [cy - half, cy + half]
    title = "zoom on the poles" if zoom else f"z-plane (Δ = {cmp.dt:g} s)"
    return dict(title=title, height=460, legend=not zoom, legend_side="top",
                xaxis=axis("Re z", range=x_range, constrain="domain"),
                yaxis=axis("Im z", range=y_range, scaleanchor="x"))


def responses_figure(cmp: DiscretizationComparison) -> go.Figure:
    """The exact samples and each method's response; framed on the exact one when a method runs away."""
    exact, *methods = responses_values(cmp)
    traces = [scatter(**exact, name="exact (continuous)", line=dict(color=COLORS["exact"], width=5))]   # under them
    for method, values in zip(cmp.methods, methods):
        traces.append(scatter(**values, name=METHOD_LABELS[method], mode="lines+markers",
                              marker=dict(size=4, symbol=MARKERS[method]),
                              line=dict(color=COLORS[method], width=1.5, dash=DASHES[method])))
    return build(traces, **responses_frame(cmp))


def responses_values(cmp: DiscretizationComparison) -> list[dict]:
    """The responses' traces' values (`responses_figure`'s order): the exact samples, then each method's."""
    return [dict(x=cmp.t, y=cmp.y_exact), *(dict(x=cmp.t[:len(res.y)], y=res.y) for res in cmp.methods.values())]


def responses_frame(cmp: DiscretizationComparison) -> dict:
    """`build`'s title and layout for the responses: Euler's divergence mark, and a frame on the exact response
    when a method runs away (a note says how far)."""
    shapes, notes = divergence_marks(cmp.methods["euler"].diverged_at, "Euler")
    limit = FRAME * max(float(np.max(np.abs(cmp.y_exact))), 1e-12)
    runaway = {METHOD_LABELS[m]: float(np.max(np.abs(res.y))) for m, res in cmp.methods.items()
               if np.max(np.abs(res.y)) > limit}
    y_axis = axis("x")
    if runaway:
        shown = np.clip(np.concatenate([cmp.y_exact] + [res.y for res in cmp.methods.values()]), -limit, limit)
        pad = 0.05 * float(np.ptp(shown))
        y_axis = axis("x", range=[float(shown.min()) - pad, float(shown.max()) + pad])
        notes.append(note(" · ".join(f"{name} leaves the frame (|x| reaches {peak:.3g})"
                                     for name, peak in runaway.items()),
                          0.01, 0.02, xref="x domain", yref="y domain", xanchor="left", yanchor="bottom"))
    return dict(title="Responses sampled every Δ", shapes=shapes, annotations=notes, xaxis=axis("t (s)"),
                yaxis=y_axis)


def error_figure(cmp: DiscretizationComparison) -> go.Figure:
    """|y_method − y_exact| on a log axis; errors below the rounding level are drawn in a band that says so."""
    traces = [scatter(**values, name=METHOD_LABELS[method], line=dict(color=COLORS[method], dash=DASHES[method]))
              for method, values in zip(cmp.methods, error_values(cmp))]
    band = error_band(cmp)
    if band is not None:
        traces.insert(0, band)
    return build(traces, **error_frame(cmp))


def error_values(cmp: DiscretizationComparison) -> list[dict]:
    """Each method's error trace's values (held at the rounding level: `at_least`)."""
    return [dict(x=cmp.t[:len(res.error)], y=at_least(res.error, cmp.precision)) for res in cmp.methods.values()]


def error_band(cmp: DiscretizationComparison):
    """The rounding-level band, where some error lies below it (else None)."""
    if any(np.any(res.error < cmp.precision) for res in cmp.methods.values()):
        return precision_band(float(cmp.t[0]), float(cmp.t[-1]), cmp.precision)
    return None


def error_frame(cmp: DiscretizationComparison) -> dict:
    shapes, notes = divergence_marks(cmp.methods["euler"].diverged_at, "Euler")
    return dict(title="Error vs the exact response", shapes=shapes, annotations=notes, xaxis=axis("t (s)"),
                yaxis=axis("|error|", type="log", exponentformat="power"))


LESSON = Lesson(
    page="discretize", number=2, title="Continuous → discrete", icon="🔢", section="Dynamics",
    summary="Zero-order hold, bilinear, Euler: s-plane to z-plane.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="🔢 Sampling",
    compute=compute, figures=figures, charts=(("s-plane", "z-plane", "z-plane-zoom"), ("responses", "error")),
    metrics=metrics, quantities=quantities, equations=equations,
    chart_readouts=tuple((chart, tuple(f"{label}: largest |z|" for label in METHOD_LABELS.values()))
                         for chart in ("z-plane", "z-plane-zoom")),
    # dragging Δ coarsens the samples until Euler's response grows (past 2ζ/ωn = 0.2 s at the defaults), so the
    # values are dense below 0.3 s, sparse above (13 frames, not 18: a held move's family costs the server ~30 %
    # less; the release draws the exact Δ). The responses, not the z-plane: its square axes would have to hold
    # Euler's poles at Δ = 2 (|z| ≈ 2.1), leaving the unit circle a dot in its third of the row.
    sweep=Sweep("dt", "responses", values=(0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0, 1.5, 2.0),
                compute_many=compute_family, figures=preview_figures),
    caption="All four curves (the exact one too) are computed by the EOS scan on diagonalized discrete systems; "
            "the exact samples come from ZOH of the spring together with the signal generator of its input.",
    snippet=Snippet(
        imports="from lcsm_core.dynamics.discretize_comparison import compare_discretizations",
        call="compare_discretizations({m}, {c}, {k}, {dt}, input_kind={input}, frequency={freq})",
        prints=dict(euler_limit="result.euler_limit", zoh_radius="result.methods['zoh'].radius",
                    bilinear_radius="result.methods['bilinear'].radius", euler_radius="result.methods['euler'].radius",
                    euler_error="result.methods['euler'].error.max()")),
)

"""Chart hygiene, checked on every figure every page draws (app/kit/figure_style.py states the rules).

For each lesson with figures, at its defaults, at every preset and at each setting's extremes, and for the
live pages' figure builders on small synthetic runs, every figure:
- holds only finite numbers (NaN only as a gap between lines) and no series running along the divergence
  clip (a diverged series is cut where it diverged, not drawn on at ±bound);
- names nothing in raw TeX (legend entries, titles, axis titles, notes): `\\`, `^{`, `_{`, `$`;
- gives every heatmap a colour bar;
- repeats no look (colour, dash and marker) among the series its legend names;
- decides its tick labels plainly: every value axis and colour bar has an exponent format that is not
  SI ("μ", "n", "M"), a hover format with at most 6 significant digits, explicit tick texts of at most
  12 characters, and no linear axis spans less than a 10⁻⁵ fraction of its size (where plotly would
  print float noise such as "2.78808126205894524");
- places notes in the plot's own coordinates unless their axis has a fixed range (plotly stretches an
  axis to fit a note placed at a data position: the "time axis starts at −120" defect);
- when it has frames (▶ play, or a page's drag-to-preview chart, `Lesson.sweep`): holds every frame to the
  same data rules and fixes every value axis's range, so the picture does not jump between frames.

Plotly computes tick labels in the browser, so the axis settings that decide them are what is checked.
"""
from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go
import pytest

from lcsm_core.divergence import DIVERGENCE_BOUND
from lcsm_core.dynamics.lru_stability import stability_study
from lcsm_explorer.app.kit.figure_style import plotly_array
from lcsm_explorer.app.kit.sweep import sweep_family
from lcsm_explorer.app.kit.sweep_figure import chart_family, held_frames, member, preview_figure
from lcsm_explorer.app.lessons import lesson
from lcsm_explorer.app.lessons.paper_lab import accuracy_figure
from lcsm_explorer.app.lessons.train_live import curves_figure, eigen_figure, last_eigenvalues_figure, overlay_figure
from tests.app.test_lessons import STATIC, clamped, extremes

FIGURE_PAGES = [p for p in STATIC if lesson(p).figures is not None]
RAW_TEX = re.compile(r"\\|\^\{|_\{|\$")
SI_FORMATS = {None, "SI", "B"}        # None: plotly's default, "B", puts SI suffixes on small numbers
MAX_TICK_TEXT = 12
MIN_SPAN = 1e-5                       # a linear axis spanning less than this fraction of its size ticks float noise
HOVER_FORMAT = re.compile(r"^\.?[1-6]?~?[gefr%]?$|^~?g$")


def decoded(value):
    """plotly 7 stores arrays as {"dtype", "bdata"[, "shape"]}: the numpy array; anything else unchanged."""
    return plotly_array(value) if isinstance(value, dict) and "bdata" in value else value


def arrays(obj):
    """Every numeric array (and number) in a figure dict, decoded."""
    obj = decoded(obj)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fiuc":
            yield obj.astype(complex if obj.dtype.kind == "c" else float)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from arrays(v)
    elif isinstance(obj, list | tuple):
        numeric = [v for v in obj if isinstance(v, int | float) and not isinstance(v, bool)]
        if numeric:
            yield np.asarray(numeric, dtype=float)
        for v in obj:
            if isinstance(v, dict | list | tuple):
                yield from arrays(v)
    elif isinstance(obj, float):
        yield np.array([obj])


def trace_color(trace: dict) -> str | None:
    for part in ("line", "marker"):
        color = (trace.get(part) or {}).get("color")
        if isinstance(color, str):
            return color.lower().replace(" ", "")
    return trace.get("fillcolor")


def trace_look(trace: dict) -> tuple | None:
    """A series' colour with its dash and marker symbol (None without a colour of its own)."""
    color = trace_color(trace)
    if color is None:
        return None
    return color, (trace.get("line") or {}).get("dash"), (trace.get("marker") or {}).get("symbol")


def texts(fig: dict):
    """(where, text) for every piece of text a reader sees by name."""
    layout = fig["layout"]
    yield "title", (layout.get("title") or {}).get("text") or ""
    for trace in fig["data"]:
        if trace.get("name") and trace.get("showlegend") is not False:
            yield "legend", trace["name"]
    for key, spec in layout.items():
        if re.match(r"^[xy]axis\d*$", key):
            yield key, (spec.get("title") or {}).get("text") or ""
    for ann in layout.get("annotations", []):
        yield "note", ann.get("text") or ""


def axis_data(fig: dict) -> dict[str, np.ndarray]:
    """Finite x and y values of the line/marker/bar traces, per layout axis key ("xaxis2", ...)."""
    found: dict[str, list] = {}
    for trace in fig["data"]:
        if trace.get("type", "scatter") not in ("scatter", "bar"):
            continue
        for letter in "xy":
            values = decoded(trace.get(letter))
            if values is None or isinstance(values, str):
                continue
            values = np.asarray(values)
            if values.dtype.kind not in "fiu":
                continue
            ref = trace.get(f"{letter}axis") or letter
            found.setdefault(f"{letter}axis{ref[1:]}", []).append(values[np.isfinite(values)])
    return {key: np.concatenate(parts) for key, parts in found.items()}


def check_figure(fig: go.Figure | dict, where: str) -> None:
    d = fig if isinstance(fig, dict) else fig.to_dict()
    layout = d["layout"]
    frames = d.get("frames") or []
    for trace in d["data"] + [trace for frame in frames for trace in frame.get("data", [])]:
        label = f"{where} · {trace.get('type', 'scatter')} {trace.get('name')!r}"
        for values in arrays({k: v for k, v in trace.items() if k not in ("customdata",)}):
            assert not np.isinf(values).any(), f"{label}: infinite values"
        for letter in ("y", "z"):
            values = decoded(trace.get(letter))
            values = np.asarray(values if isinstance(values, np.ndarray | list | tuple) else [], dtype=object)
            values = np.asarray([v for v in values.ravel() if isinstance(v, float | int)], dtype=float)
            if values.size:
                assert np.sum(np.abs(values) == DIVERGENCE_BOUND) <= 1, f"{label}: a series runs along the clip"
        if trace.get("type") == "heatmap":
            assert trace.get("showscale") is not False and "colorbar" in trace, f"{label}: heatmap without colour bar"
    for kind, text in texts(d):
        plain = re.sub(r"^\$.*\$$", "", text)        # a whole "$...$" name is rendered as math by plotly
        assert not RAW_TEX.search(plain), f"{where} · {kind}: raw TeX in {text!r}"

    if layout.get("showlegend") is not False:
        legend = layout.get("legend") or {}
        assert legend.get("itemclick") is False and legend.get("itemdoubleclick") is False, \
            f"{where}: its legend entries hide traces on a click (targets under 24 px, WCAG 2.5.8)"
        named: dict[tuple, str] = {}
        for trace in d["data"]:
            if trace.get("showlegend") is False or not trace.get("name"):
                continue
            found = trace_look(trace)
            if found is not None:
                other = named.setdefault(found, trace["name"])
                assert other == trace["name"], f"{where}: {other!r} and {trace['name']!r} share the look {found}"

    data = axis_data(d)
    colorbars = [t["colorbar"] for t in d["data"] if "colorbar" in t]
    colorbars += [t["marker"]["colorbar"] for t in d["data"] if "colorbar" in (t.get("marker") or {})]
    for key, spec in [(k, v) for k, v in layout.items() if re.match(r"^[xy]axis\d*$", k)] + \
            [(f"colorbar {n}", c) for n, c in enumerate(colorbars)]:
        label = f"{where} · {key}"
        if spec.get("type") == "category":
            continue
        assert spec.get("exponentformat") not in SI_FORMATS or spec.get("tickformat"), \
            f"{label}: SI exponent format (μ, n on small values)"
        if not key.startswith("colorbar"):
            assert HOVER_FORMAT.match(spec.get("hoverformat", "") or "x") or spec.get("tickformat"), \
                f"{label}: hover format {spec.get('hoverformat')!r} can print float noise"
        for text in spec.get("ticktext") or ():
            assert len(str(text)) <= MAX_TICK_TEXT, f"{label}: tick text {text!r}"
        if frames and not key.startswith("colorbar"):
            assert spec.get("range") is not None, f"{label}: not fixed across the frames, the picture would jump"
        if spec.get("type") == "log":
            continue
        if spec.get("range") is not None:
            low, high = (float(v) for v in spec["range"])
        elif key in data and data[key].size:
            low, high = float(data[key].min()), float(data[key].max())
            if low == high:
                continue                           # one value: plotly pads it by ±1 (or ±5 %)
        else:
            continue
        size = max(abs(low), abs(high))
        assert high - low >= MIN_SPAN * size, f"{label}: spans {low!r}..{high!r}, ticks would print float noise"
    for ann in layout.get("annotations", []):
        for letter in "xy":
            ref = ann.get(f"{letter}ref", letter)
            if ref in ("paper",) or ref.endswith("domain"):
                continue
            axis = layout.get(f"{letter}axis{ref[1:]}", {})
            assert axis.get("range") is not None, f"{where}: note {ann.get('text')!r} at a data position on {ref}"


# --- the lesson pages -------------------------------------------------------------------------------
def cases(page: str) -> list[tuple[str, dict]]:
    spec = lesson(page)
    defaults = spec.settings.defaults
    found = [("defaults", defaults)]
    found += [(f"preset {p.label}", clamped(spec.settings, {**defaults, **p.values})) for p in spec.presets]
    if page not in TRAINS:
        found += [(f"{p.name}={value!r}", clamped(spec.settings, {**defaults, p.name: value}))
                  for p in spec.settings.params if p.kind in ("float", "int") for value in extremes(p)]
    found += [(name, clamped(spec.settings, {**defaults, **values})) for name, values in EXTRA.get(page, [])]
    return [(name, values) for name, values in found if page not in TRAINS or name in TRAINS[page]]


# Pages whose compute trains a model (seconds each): only these cases, the calm one and the one that diverges,
# trained for fewer steps (the figures are the same kind; the reckless naive run diverges at step 2).
TRAINS = {"lru_stability": ("defaults", "preset 💥 Reckless steps")}
SHORT_COMPUTE = {"lru_stability": lambda v: stability_study(v["lr"], 30, v["gamma"], v["r_max"], v["seed"])}


# Settings the issue found defects at, on top of every preset and every numeric setting's ends.
EXTRA = {
    "spring": [("c = −1", dict(c=-1.0)), ("m = k = 0.1, c = 5", dict(m=0.1, k=0.1, c=5.0)),
               ("stiff", dict(m=0.1, k=10.0, c=5.0))],
    "discretize": [("c = 0", dict(c=0.0)), ("c = 0, coarse", dict(c=0.0, dt=1.0)),
                   ("Euler blow-up", dict(dt=2.0, c=0.2, k=10.0))],
    "propagation": [("strong damping", dict(nu=0.3, length=400))],
    "eos_view": [("rwkv4 diverges", dict(variant="rwkv4", scale=50.0)),
                 ("linear attention flat", dict(variant="linear_attention", signal="impulse")),
                 ("deltanet at T = 128", dict(variant="deltanet", scale=20.0, T=128, t=127))],
    "online_learners": [("64 keys", dict(n_keys=64, key_dim=64)), ("long keys", dict(key_scale=3.0, beta=2.0))],
}


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_every_figure_of_every_page_is_clean(page):
    spec = lesson(page)
    for name, values in cases(page):
        result = SHORT_COMPUTE.get(page, spec.compute)(values)
        for chart, fig in spec.figures(values, result).items():
            check_figure(fig, f"{page} [{name}] {chart}")


# --- the drag-to-preview charts (`Lesson.sweep`): the page's chart with its family as frames ----------------
SWEPT_PAGES = [p for p in FIGURE_PAGES if lesson(p).sweep is not None]


@pytest.mark.parametrize("page", SWEPT_PAGES)
def test_every_preview_and_its_frames_are_clean(page):
    """At the defaults, every preset, the other settings' ends and the extra cases (the swept setting's own ends
    are members of every family)."""
    spec = lesson(page)
    setting = spec.settings[spec.sweep.setting]
    families: dict[tuple, list] = {}
    for name, values in cases(page):
        if name.startswith(f"{setting.name}="):
            continue
        held = tuple(sorted((k, v) for k, v in values.items() if k != setting.name))
        if held not in families:
            families[held] = sweep_family(spec, dict(held))
        for chart, drawn in spec.figures(values, spec.compute(values)).items():    # every chart follows a drag
            current = drawn.to_dict()
            if current.get("frames") and chart != spec.sweep.chart:               # its own ▶ animation: kept
                continue
            family = chart_family(families[held], chart)     # the chart as the browser holds it once linked
            fig = held_frames(preview_figure(current, member(setting, values[setting.name], current), family,
                                             setting.label), family)
            assert fig.get("frames") or chart != spec.sweep.chart, f"{page} [{name}]: drawn without its preview"
            check_figure(fig, f"{page} [{name}] preview of {chart}")


# --- the live pages' builders, on synthetic runs -----------------------------------------------------
def fake_metrics(steps: int, seed: int, diverge: bool = False) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    step = np.arange(1, steps + 1, dtype=float)
    loss = 4.0 * np.exp(-step / 40) + 0.01 * rng.random(steps)
    if diverge:
        loss[-3:] = [50.0, 1e4, np.nan]
    test = np.where(step % 10 == 0, np.minimum(1.0, step / steps + 0.05 * rng.random(steps)), np.nan)
    return dict(step=step, loss=loss, train_acc=np.minimum(1.0, step / steps), test_acc=test)


def fake_snapshots(layers: int, seed: int) -> list[tuple[int, list[np.ndarray]]]:
    rng = np.random.default_rng(seed)
    return [(step, [0.9 * rng.random(8) * np.exp(1j * rng.random(8)) for _ in range(layers)])
            for step in (10, 20, 30)]


def test_live_page_figures_are_clean():
    check_figure(curves_figure(fake_metrics(120, 0), "training curves"), "train_live curves")
    check_figure(curves_figure(fake_metrics(120, 0, diverge=True), "training curves", 118.0),
                 "train_live diverged curves")
    for layers in (1, 2, 12):
        check_figure(eigen_figure(fake_snapshots(layers, layers)), f"train_live eigenvalues ({layers} layers)")
        check_figure(eigen_figure(fake_snapshots(layers, layers), zoom=True), f"train_live zoom ({layers} layers)")
    runs = [(f"run {n}", fake_snapshots(2, n)) for n in range(4)]
    check_figure(last_eigenvalues_figure(runs), "train_live compare eigenvalues")
    check_figure(overlay_figure([(f"run {n}", fake_metrics(60, n)) for n in range(8)]), "train_live compare")


def test_paper_lab_heatmap_is_clean():
    from lcsm_core.paper_lab import DEFAULT_SPECS, shipped_grid
    spec = DEFAULT_SPECS["data_dependence"]                  # the grid the page opens with: its results ship
    shipped = shipped_grid(spec)
    assert shipped is not None
    check_figure(accuracy_figure(spec, shipped.results), "paper_lab accuracy")
    check_figure(accuracy_figure(spec, []), "paper_lab empty grid")


def test_the_checks_catch_what_the_issue_found():
    """Each defect of issue 12, drawn the old way (through `build`, so only that defect is present), fails."""
    from lcsm_explorer.app.kit.figure_style import build

    def line(y, **kw):
        return go.Scatter(y=y, mode="lines", **kw)

    bad = {
        "SI suffixes": build([line([1e-5, 1e-8], name="a")], "t", yaxis=dict(type="log", exponentformat="SI")),
        "float noise": go.Figure(line([2.788081262058945, 2.788081262058946]),
                                 dict(yaxis=dict(exponentformat="power", hoverformat=".6~g"),
                                      xaxis=dict(exponentformat="power", hoverformat=".6~g"))),
        "raw TeX": build([line([1, 2], name=r"grid mapped by e^{s\Delta}")], "t"),
        "no colour bar": go.Figure(go.Heatmap(z=[[1, 2]], showscale=False)),
        "repeated look": build([line([1, 2], name=f"run {n}", line=dict(color="#1f77b4")) for n in range(2)], "t"),
        "runs on the clip": build([line([1.0, DIVERGENCE_BOUND, DIVERGENCE_BOUND, -DIVERGENCE_BOUND])], "t"),
        "note at a data position": build([line([1, 2])], "t", annotations=[dict(text="⚠ stopped", x=1, y=1)]),
        "long tick text": build([line([1, 2])], "t", yaxis=dict(tickvals=[1], ticktext=["2.78808126205894524"])),
    }
    for defect, fig in bad.items():
        with pytest.raises(AssertionError):
            check_figure(fig, defect)
    check_figure(build([line([1, 2], name="fine")], "t"), "a clean figure")


# --- build's shortcuts (a shared template, unvalidated arrays made here) draw what plain plotly calls draw ----
def plain_values(obj):
    """A figure dict with every typed array decoded to float64 numbers (a float32 array whose values equal the
    float64 ones compares equal: plotly's validating `update` keeps the float64 array when the values are equal)."""
    obj = decoded(obj)
    if isinstance(obj, np.ndarray):
        return plain_values(obj.astype(float).tolist() if obj.dtype.kind in "fiu" else obj.tolist())
    if isinstance(obj, dict):
        return {key: plain_values(value) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain_values(value) for value in obj]
    if isinstance(obj, float) and obj != obj:
        return "NaN"                                  # (NaN == NaN is false)
    return obj


def plotly_read(trace, name: str):
    """`trace.<name>` as plotly's own API reads it (a compound property as its JSON), None where it has none."""
    if name not in trace:
        return None
    value = getattr(trace, name)
    return value.to_plotly_json() if hasattr(value, "to_plotly_json") else value


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_build_draws_what_plain_plotly_calls_draw(page, monkeypatch):
    """figure_style.build with its shortcuts and with the reference calls (go.Figure copying the template,
    trace.update validating, reading trace.x): the same figure JSON, at the defaults and every preset."""
    import json

    from lcsm_explorer.app.kit import figure_style
    from lcsm_explorer.app.kit.chart_element import chart_spec, reference_chart_spec

    spec = lesson(page)
    runs = [(name, values, SHORT_COMPUTE.get(page, spec.compute)(values)) for name, values in cases(page)
            if name == "defaults" or name.startswith("preset")]
    fast = [(f"{page} [{name}] {chart}", chart_spec(fig).spec)
            for name, values, result in runs for chart, fig in spec.figures(values, result).items()]
    monkeypatch.setattr(figure_style, "FIGURE", go.Figure)
    monkeypatch.setattr(figure_style, "ASSIGN", lambda trace, changes: trace.update(changes))
    monkeypatch.setattr(figure_style, "_raw", plotly_read)
    reference = [reference_chart_spec(fig).spec
                 for name, values, result in runs for fig in spec.figures(values, result).values()]
    assert len(fast) == len(reference)
    for (where, ours), theirs in zip(fast, reference):
        assert plain_values(json.loads(ours)) == plain_values(json.loads(theirs)), where


def test_figures_built_here_share_one_template():
    from lcsm_explorer.app.kit.figure_style import build, default_template

    first, second = (build([go.Scatter(x=[0, 1], y=[0, 1])], "a") for _ in range(2))
    assert first._layout["template"] is second._layout["template"] is default_template()
    assert first.to_dict()["layout"]["template"] == go.Figure().to_dict()["layout"]["template"]
    assert list(first.to_dict()["layout"])[-1] == "template"              # where plotly puts it

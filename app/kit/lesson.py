"""What a lesson page is, as data: the one declaration `render_lesson` draws — pure (no streamlit).

A lesson module (`app/lessons/<page>.py`) reads top to bottom as

    SETTINGS = Settings(...)          every widget and its range, written once
    PRESETS = (Preset(...), ...)      one click → settings that show one insight
    def compute(v): ...               one call into lcsm_core (cached by the renderer)
    def figures(v, result): ...       {name: plotly Figure}, pure (cached by the renderer)
    def metrics(v, result): ...       [Metric | Notice] shown above the charts
    def quantities(v, result): ...    {name: float}: what exercises check and equations print
    def equations(q): ...             LaTeX lines filled from the quantities
    LESSON = Lesson(...)

and its prose and exercises live in `lessons/NN-<page>.md`. Pages that train while the learner
watches (Train live, Paper lab) add a `live` part, declared (`lcsm_explorer.app.kit.live.Live`: commands, poll interval,
what to fetch, what to draw) and drawn by `lcsm_explorer.app.kit.live_lesson`. Pages whose output is not charts add a
`panel`
returning blocks (`lcsm_explorer.app.kit.blocks`). Pages never call streamlit.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .settings import Preset, Settings

if TYPE_CHECKING:                                   # live.py is pure too; only the annotation needs it
    from .live import Live

Values = dict[str, Any]


@dataclass(frozen=True)
class Metric:
    """One number above the charts (`st.metric`)."""

    label: str
    value: str
    delta: str | None = None
    good: bool | None = None      # the delta's colour: True green, False red, None grey
    help: str | None = None


@dataclass(frozen=True)
class Notice:
    """A sentence the learner must not miss (a run diverged, a range was swapped)."""

    text: str
    level: str = "warning"        # "info" | "warning" | "error"
    icon: str = "⚠️"


@dataclass(frozen=True)
class Snippet:
    """How a page's numbers come out of lcsm_core alone, for the exported script (`lcsm_explorer.app.kit.snippet`):
    `imports` (lines), the core `call` with `{name}` for each setting (filled with the value's repr) — or a
    function of the settings that writes it — and the numbers it prints, each an expression over `result`
    (the call's return value)."""

    imports: str
    call: str | Callable[[Values], str]
    prints: dict[str, str]


@dataclass(frozen=True)
class Sweep:
    """Drag to preview: the whole page precomputed at a small family of values of one setting (the others held),
    so that dragging animates every chart and rewrites every metric in the browser with no server round trip (a
    round trip). A lesson with a sweep is drawn as one lesson instrument (`app/kit/instrument.py`): moving its swept
    control moves every chart, readout and equation of the page through the family; `chart` is the main chart,
    drawn beside the controls. Releasing commits the value to the page's own setting, which stays the one source
    of truth: the rerun draws URL, exercises and the instrument at that value. `lcsm_explorer.app.kit.sweep` builds the
    family;
    `lcsm_explorer.app.kit.preview` documents the mechanism.

    `values` (when given) are the family's values, else `points` of them spread over the setting's range on its
    step grid (a choice setting: its options)."""

    setting: str
    chart: str
    points: int = 21
    values: tuple = ()
    # The page's `compute` at every value of the family in one core call (a batch instead of a loop):
    # compute_many(held, values) -> [result or None (the core refuses that value)], equal member by member to
    # `compute({**held, setting: value})` (tests/app/test_sweep.py checks). None: `compute` once per value.
    compute_many: Callable[[Values, list], list] | None = None
    # The charts a drag moves, drawn at one member: figures(values, result) -> {name: Figure}, a part of the page's
    # `figures`. A chart left out is drawn once, at the current value, and follows no drag: it does not change with
    # the swept setting, or it has an animation of its own (▶ play). None: every chart of the page, per member.
    # tests/app/test_sweep_follows.py checks both ways: left out → the same at every member (or ▶ play).
    figures: Callable[[Values, Any], dict] | None = None


@dataclass(frozen=True)
class Lesson:
    """One page of the explorer, declared; `lcsm_explorer.app.kit.render.render_lesson` draws it."""

    page: str                     # URL path and the `page:` of its lesson file
    number: int                   # position in the navigation (lesson number)
    title: str                    # navigation title, e.g. "1 · Spring–mass–damper"
    icon: str
    section: str                  # navigation section
    summary: str                  # one line on Home
    settings: Settings
    presets: tuple[Preset, ...] = ()
    sidebar_title: str = ""       # header above the widgets
    compute: Callable[[Values], Any] | None = None
    figures: Callable[[Values, Any], dict] | None = None
    charts: tuple = ()            # rows of figure names; a plain string names an `in_main` setting drawn there
    metrics: Callable[[Values, Any], list] | None = None
    quantities: Callable[[Values, Any], dict[str, float]] | None = None
    equations: Callable[[dict[str, float]], list[str]] | None = None
    caption: str = ""
    # Per chart, the labels of the page's metrics that say what matters in it: (("response", ("regime",
    # "half-life")), ...). Its text alternative (`app/kit/chart_text.py`: a summary, the chart's accessible name, and
    # data tables, read from the chart's data) says those readouts first, as shown ("regime underdamped, half-life
    # 6.93 s"); a label the page does not show at these settings is left out, and so is a chart not named here.
    chart_readouts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    panel: Callable[[Values, Any], list] | None = None          # blocks (app/kit/blocks.py): tables, cards, text
    live: Live | None = None                                    # work started and watched (app/kit/live.py)
    snippet: Snippet | None = None                              # the page as a runnable lcsm_core script
    sweep: Sweep | None = None                                  # the page previewed while one setting is dragged
    # The few settings that drive the main chart: on a phone drawn again with it, in the presenter view first with
    # the rest folded (app/kit/chart_controls.py). A swept page is drawn by the lesson instrument instead
    # (app/kit/instrument.py).
    chart_controls: tuple[str, ...] = ()

    def chart_names(self) -> list[str]:
        return [name for row in self.charts if not isinstance(row, str) for name in row]

    def main_settings(self) -> list[str]:
        return [row for row in self.charts if isinstance(row, str)]

"""A page's numbers and charts at one set of settings, cached: what the renderer draws and the drag preview reuses
(the renderer and the preview both import it; neither imports the other for it)."""
from __future__ import annotations

from .cache import cached
from .chart_element import ChartSpec, chart_spec, plain_chart
from .classroom import presenter_figure
from .lesson import Lesson
from .page_text import chart_notes
from .settings import freeze  # noqa: F401  (the pages' cache key, where the renderer's callers look for it)


@cached
def computed(page: str, frozen: tuple, _lesson: Lesson):
    return _lesson.compute(dict(frozen))


@cached(store="charts")
def chart_specs(page: str, frozen: tuple, present: bool, _lesson: Lesson) -> dict[str, ChartSpec]:
    """Every chart of the page at these settings as the spec st.plotly_chart would send (the presenter's larger
    fonts and lines applied when `present`), with its text alternative (the lesson's `chart_readouts` first)."""
    result = computed(page, frozen, _lesson)
    specs = {}
    notes = chart_notes(_lesson, dict(frozen), result)
    for name, fig in _lesson.figures(dict(frozen), result).items():
        specs[name] = chart_spec(presenter_figure(fig.to_dict()) if present else fig, notes.get(name, ""), name)
    return specs


def plain_charts(frozen: tuple, lesson: Lesson) -> dict[str, dict]:
    """Every chart of the page at these settings as the figure dict `chart_specs` writes (`present` off), not
    written: the drag preview draws each chart from it (`preview.preview_specs`). Shared parts: never changed.
    Drawn as the family's members are (`Sweep.figures`) where that draws every chart of the page: the same
    figures, made faster (discretize's and rings' refilled charts, tests/app/test_preview_figures.py)."""
    values, result = dict(frozen), computed(lesson.page, frozen, lesson)
    figures = None
    if lesson.sweep is not None and lesson.sweep.figures is not None and _SWEEP_DRAWS_ALL.get(lesson.page, True):
        figures = lesson.sweep.figures(values, result)
        _SWEEP_DRAWS_ALL[lesson.page] = list(figures) == lesson.chart_names()
        if not _SWEEP_DRAWS_ALL[lesson.page]:              # a part of the page (LRU stability's loss)
            figures = None
    if figures is None:
        figures = lesson.figures(values, result)
    return {name: plain_chart(fig) for name, fig in figures.items()}


_SWEEP_DRAWS_ALL: dict[str, bool] = {}     # page → whether its `Sweep.figures` draws every chart (learned once)

"""A lesson's drag-to-preview chart on the page (`Lesson.sweep`), never computed on the request path.

A family (the chart at every value of the swept setting, the other settings held: `app.kit.sweep`) is computed
by the preview pool (`app.kit.preview_pool`: a lowest-priority worker process) and kept in the byte-bounded
cache (`app.kit.cache`, store "previews") under (page, held settings), for every session of the process.
On the page:

- family cached: the preview chart (the current chart with the family as frames) is assembled from it and
  cached as its JSON spec per (page, settings, presenter view): a swept move redraws it without recomputing
  any member, a rerun at known settings just re-sends the cached string;
- family not cached: the plain chart is drawn now and the family is requested; the chart sits in a fragment
  that polls every `POLL_S` and, once the family is in, reruns the page once (so the poll stops costing);
- the pool sheds new families when the server is busy (`preview_pool`): the plain chart stays, with a caption
  saying so, and the preview comes back on a later move when the server is quiet.

With `LCSM_PREVIEW_WORKERS=0` the family is computed in the session itself after the rest of its page is drawn
(`render_lesson` calls what `draw_swept_chart` returns last).

Design for "a drag updates the whole page at once" (issue 21, not built yet): a family is a `Family` of
members, each member a dict (`app.kit.sweep_figure.member`) keyed by value. To drive every chart of the page
during a drag, `compute_family` in the worker would return, per member, `charts: {chart name: frame}` for every
chart of `Lesson.figures` and `metrics: [...]` (the readouts as text) beside today's swept-chart `frame`; the
store, its keys, the byte accounting and the pool stay as they are (a family's measured size grows with the
charts it holds, so the cache bound still holds), and the page would ship the members to one browser-side
component instead of per-chart plotly frames.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass

import plotly.io
import streamlit as st

from .cache import STORES, cached
from .chart_element import ChartSpec
from .classroom import presenter_figure
from .lesson import Lesson
from .preview_pool import WARM, PreviewPool, worker_count
from .sweep import sweep_family
from .sweep_figure import member, preview_figure
from .widgets import show_chart

FAMILIES = STORES["previews"]              # (page, held settings) → Family, shared by every session
POLL_S = 0.75                              # how often a chart waiting for its family looks for it
PAUSED = "Drag preview paused: the server is busy; release the slider to update."
_POOL: PreviewPool | None = None
_POOL_LOCK = threading.Lock()
_WARMED = False


@dataclass(frozen=True)
class Family:
    """The members of one family, in the sweep's order (each: `sweep_figure.member`'s dict)."""

    page: str
    held: tuple
    members: tuple[dict, ...]


def store_family(key: tuple, members: list[dict]) -> None:
    FAMILIES.put(key, Family(key[0], key[1], tuple(members)))


def pool() -> PreviewPool | None:
    """The process's preview pool (None when LCSM_PREVIEW_WORKERS=0)."""
    global _POOL
    workers = worker_count()
    if workers == 0:
        return None
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = PreviewPool(workers, store_family)
        return _POOL


def warm_once(lessons) -> None:
    """`warm` in a background thread, the first time a page of this process is drawn (the router calls it)."""
    global _WARMED
    with _POOL_LOCK:
        if _WARMED:
            return
        _WARMED = True
    threading.Thread(target=warm, args=(list(lessons),), daemon=True, name="warm-previews").start()


def warm(lessons) -> None:
    """Queue, at the lowest priority, the families of every sweep page's defaults and presets."""
    queue = pool()
    if queue is None:
        return
    for lesson in lessons:
        if lesson.sweep is None:
            continue
        for values in [lesson.settings.defaults, *(p.state(lesson.settings) for p in lesson.presets)]:
            key = (lesson.page, held_settings(lesson, tuple(sorted(values.items()))))
            if key not in FAMILIES:
                queue.request(key, priority=WARM)


def held_settings(lesson: Lesson, frozen: tuple) -> tuple:
    return tuple(item for item in frozen if item[0] != lesson.sweep.setting)


def draw_swept_chart(lesson: Lesson, frozen: tuple, plain: ChartSpec, present: bool, filename: str,
                     container) -> Callable | None:
    """The sweep's chart in `container`: the preview when its family is cached, else `plain` (the chart alone)
    until it is; returns a function to call once the page is drawn (the inline mode only)."""
    key = (lesson.page, held_settings(lesson, frozen))
    family = FAMILIES.lookup(key)
    if family is not None:
        show_chart(preview_spec(lesson.page, frozen, present, lesson, family), filename, container=container)
        return None
    queue = pool()
    if queue is None:                                      # inline: after the page is out, in this session
        slot = container.empty()
        show_chart(plain, filename, container=slot, key=f"chart.{filename}.plain")

        def later() -> None:
            members = sweep_family(lesson, dict(key[1]))
            store_family(key, members)
            show_chart(preview_spec(lesson.page, frozen, present, lesson, FAMILIES.lookup(key)), filename,
                       container=slot)
        return later
    queued = queue.request(key)
    with container:
        waiting_chart(lesson, frozen, plain, present, filename, key, shed=queued is None)
    return None


def waiting_chart(lesson: Lesson, frozen: tuple, plain: ChartSpec, present: bool, filename: str, key: tuple,
                  shed: bool) -> None:
    """The plain chart while its family is computed: a fragment polls for the family and, once it is cached,
    reruns the page once (drawing the preview; the next runs find it and poll no more)."""
    if shed:
        show_chart(plain, filename, key=f"chart.{filename}.plain")
        st.caption(PAUSED)
        return

    @st.fragment(run_every=POLL_S)
    def poll() -> None:
        if key in FAMILIES:
            st.rerun()
        show_chart(plain, filename, key=f"chart.{filename}.plain")
        if not pool().pending(key) and key not in FAMILIES:   # dropped (worker lost or cache full): no poll
            st.caption(PAUSED)
    poll()


@cached(store="charts")
def preview_spec(page: str, frozen: tuple, present: bool, _lesson: Lesson, _family: Family) -> ChartSpec:
    """The chart at these settings with its family as frames, as the JSON the browser receives."""
    from .render import chart_specs
    current = json.loads(chart_specs(page, frozen, False, _lesson)[_lesson.sweep.chart].spec)
    setting = _lesson.settings[_lesson.sweep.setting]
    fig = preview_figure(current, member(setting, dict(frozen)[setting.name], current), list(_family.members),
                         setting.label)
    if present:
        fig = presenter_figure(fig)
    return ChartSpec(plotly.io.to_json(fig, validate=False), int(fig["layout"].get("height") or 450))

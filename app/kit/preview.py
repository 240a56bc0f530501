"""Drag to preview (`Lesson.sweep`): one family of precomputed page states drives every chart, readout and equation
of the page during a drag; it is never computed on the request path.

- A family is the whole page at every value of the swept setting, the other settings held
  (`lcsm_explorer.app.kit.sweep`), as data
  (no plotly objects): computed by the preview pool (`lcsm_explorer.app.kit.preview_pool`, a lowest-priority worker
  process) and
  cached per (page, held settings) as an `lcsm_explorer.app.kit.family.Family` for every session of the process.
- With its family cached, every chart is drawn at the current value with its axes fixed over the family and tagged
  `layout.meta.lcsm` (`lcsm_explorer.app.kit.sweep_figure`); the family goes to the browser once, in the instrument's
  family
  mount (`lcsm_explorer.app.kit.instrument`), which moves every chart, readout and equation to the member at the swept
  control
  and commits the value on release. A chart with an animation of its own (▶ play) does not follow a drag.
- Without it (a move of another setting), the script waits up to `family_wait_s()` for the pool (a condition wait,
  no CPU); past the wait the instrument is drawn without a family and a fragment polls every `POLL_S`, rerunning
  the page once when the family is in. A busy server sheds new families, and the instrument says so.

With `LCSM_PREVIEW_WORKERS=0` the family is computed in the session itself after the rest of its page is drawn
(`inline_family`).
"""
from __future__ import annotations

import json
import os
import pickle
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import plotly.io
import streamlit as st

from . import family as families
from .cache import STORES, cached
from .chart_element import ChartSpec
from .chart_text import chart_text
from .classroom import presenter_figure
from .fair_share import current_visitor
from .family import Family
from .lesson import Lesson
from .page_charts import chart_specs, computed, plain_charts
from .page_text import chart_notes
from .preview_pool import WARM, PreviewPool, worker_count
from .sweep import sweep_family
from .sweep_figure import chart_family, member, preview_figure

FAMILIES = STORES["previews"]              # (page, held settings) → Family, shared by every session
POLL_S = 0.75                              # how often a chart waiting for its family looks for it
PAUSED = "Drag preview paused: the server is busy; each move updates the page when you let go."
_POOL: PreviewPool | None = None
_POOL_LOCK = threading.Lock()
_WARMED = False


def store_family(key: tuple, family: Family | list[dict], results: dict | None = None, size: int = 0,
                 family_size: int | None = None) -> None:
    """Keep the family (`app/kit/family.py:Family`, or its page members to make it from; for every session) and,
    when the worker sent them, its members' compute results as the page's own (`page_charts.computed`, by settings):
    the release of a drag lands on a member's value, whose page is then computed already (the batch equals
    `compute` to fp64 rounding: tests/app/test_sweep_batch.py)."""
    from lcsm_explorer.app.lessons import lesson
    page = lesson(key[0])
    if not isinstance(family, Family):
        family = families.prepared(page, key[1], list(family))
    FAMILIES.put(key, family, None if family_size is None else family_size + 200)   # (+ the Family around it)
    if results:
        each, name = (size // len(results) if size else None), page.sweep.setting   # None: measured in the cache
        for value, result in results.items():
            computed.remember(result, key[0], tuple(sorted((*key[1], (name, value)))), page, size=each)


def store_pickled(key: tuple, family: bytes | None, results: bytes = b"") -> None:
    """`store_family` for what the preview worker sends (`preview_pool.compute_family`: the family and the results,
    each pickled once there); a family that failed (None) is kept empty, so the page asks for it no more."""
    if family is None:
        from lcsm_explorer.app.lessons import lesson
        store_family(key, families.empty(lesson(key[0]), key[1]))
        return
    store_family(key, pickle.loads(family), pickle.loads(results) if results else None, len(results), len(family))


def pool() -> PreviewPool | None:
    """The process's preview pool (None when LCSM_PREVIEW_WORKERS=0)."""
    global _POOL
    workers = worker_count()
    if workers == 0:
        return None
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = PreviewPool(workers, store_pickled)
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
            key = family_key(lesson, tuple(sorted(values.items())))
            if key not in FAMILIES:
                queue.request(key, priority=WARM)


def held_settings(lesson: Lesson, frozen: tuple) -> tuple:
    return tuple(item for item in frozen if item[0] != lesson.sweep.setting)


@dataclass(frozen=True)
class PagePreview:
    """Every chart of the page at the current value, tagged with the family it follows (`charts`, by name), and
    the family (`lcsm_explorer.app.kit.family.Family`: its members' outline and the link's data)."""

    charts: dict[str, ChartSpec]
    family: Family

    @property
    def link(self) -> dict:
        return self.family.link


def family_key(lesson: Lesson, frozen: tuple) -> tuple:
    return (lesson.page, held_settings(lesson, frozen))


def family_wait_s() -> float:
    """How long a held move's script waits for its new family before drawing the plain page (LCSM_FAMILY_WAIT_MS,
    default 300): a family arriving in that time is drawn in the same run, saving the page a second run and its
    polls (the script thread sleeps on a condition meanwhile: no CPU)."""
    try:
        return max(0.0, float(os.environ.get("LCSM_FAMILY_WAIT_MS", "300")) / 1000)
    except ValueError:
        return 0.3


_RUN = threading.local()     # this script run's wait for its family (`family_first`): one wait per run, not two


def family_first(lesson: Lesson, frozen: tuple) -> None:
    """A held move's family before the page computes: ask for it and wait up to `family_wait_s` (no CPU). The family
    brings its members' results (`store_family`), so where the current value is a member — after a release it
    always is, and the pages' defaults are — the page is not computed a second time here (LRU stability: its
    training). `waited_preview` then waits only what is left of the same `family_wait_s`."""
    _RUN.deadline = None
    key = family_key(lesson, frozen)
    if key in FAMILIES:
        return
    queue, wait_s = pool(), family_wait_s()
    if queue is None or wait_s == 0 or queue.request(key, visitor=current_visitor()) is None:
        return
    _RUN.deadline = (key, time.monotonic() + wait_s)
    queue.wait(key, wait_s)


def waited_preview(lesson: Lesson, frozen: tuple, present: bool) -> PagePreview | None:
    """The page's preview once its family is cached, asking the pool for it and waiting up to `family_wait_s` (what
    is left of it after `family_first` in this run); None when there is no pool, the server sheds new families, or
    the family takes longer (the page then draws its plain charts and polls for the family as before)."""
    queue, wait_s = pool(), family_wait_s()
    if queue is None or wait_s == 0:
        return None
    key = family_key(lesson, frozen)
    if queue.request(key, visitor=current_visitor()) is None:
        return None
    waited = getattr(_RUN, "deadline", None)
    if waited is not None and waited[0] == key:
        wait_s = max(0.0, waited[1] - time.monotonic())
    queue.wait(key, wait_s)
    return page_preview(lesson, frozen, present)


def cached_family(lesson: Lesson, frozen: tuple) -> Family | None:
    """The family of the page at these settings when it is cached, else None (nothing is computed)."""
    return FAMILIES.lookup(family_key(lesson, frozen))


def page_preview(lesson: Lesson, frozen: tuple, present: bool) -> PagePreview | None:
    """The page's preview at these settings when its family is cached, else None (nothing is computed)."""
    family = cached_family(lesson, frozen)
    if family is None:
        return None
    return preview_specs(lesson.page, frozen, present, lesson, family)


def await_family(lesson: Lesson, frozen: tuple) -> None:
    """The instrument drawn without its family: ask the pool for it and poll for it (a fragment that reruns the page
    once it is cached), or say that the server sheds previews now."""
    key = family_key(lesson, frozen)
    if pool().request(key, visitor=current_visitor()) is None:
        st.caption(PAUSED)
        return
    poll_family(key)


def inline_family(lesson: Lesson, frozen: tuple, view, slot, values: dict, text: dict) -> Callable:
    """With no pool (LCSM_PREVIEW_WORKERS=0): a function to call once the page is drawn, which computes the family
    in this session and draws the instrument with it in `slot`."""
    from .instrument import mount
    key = family_key(lesson, frozen)

    def later() -> None:
        results: dict = {}                                 # the members' results, kept as the pool's are
        store_family(key, sweep_family(lesson, dict(key[1]), results), results)
        preview = page_preview(lesson, frozen, view.present)
        with slot.container():
            if preview is None:                            # the cache could not keep it: the plain page stays
                mount(lesson, values, view, plain_specs(lesson, frozen, view.present), text)
            else:
                mount(lesson, values, view, preview.charts, text, preview.family)
    return later


def plain_specs(lesson: Lesson, frozen: tuple, present: bool) -> dict[str, ChartSpec]:
    return chart_specs(lesson.page, frozen, present, lesson)


def poll_family(key: tuple) -> None:
    """While the family is computed: a fragment polls for it and, once it is cached, reruns the page once (drawing
    the instrument with it; the next runs find it and poll no more)."""
    @st.fragment(run_every=POLL_S)
    def poll() -> None:
        if key in FAMILIES:
            st.rerun()
        if not pool().pending(key) and key not in FAMILIES:   # dropped (worker lost or cache full): no poll
            st.caption(PAUSED)
    poll()


@cached(store="charts")
def preview_specs(page: str, frozen: tuple, present: bool, _lesson: Lesson, _family: Family) -> PagePreview:
    """Every chart at these settings as the JSON the browser receives: the current value's picture only, its axes
    fixed over the family; each following chart tagged with the family it takes
    its frames from (`Family.link`, the link's data: the same for every value of the swept setting). Drawn from
    the page's figure dicts (`page_charts.plain_charts`): each chart's JSON is written once, never read back."""
    return previewed(page, frozen, present, _lesson, _family, plain_charts(frozen, _lesson))


def reference_preview(page: str, frozen: tuple, present: bool, lesson: Lesson, family: Family) -> PagePreview:
    """`preview_specs`' readable twin: each chart read back from the plain page's JSON (`page_charts.chart_specs`), as
    the browser would hold it. tests/app/test_preview_specs.py compares the two."""
    currents = {chart: json.loads(plain.spec) for chart, plain in chart_specs(page, frozen, False, lesson).items()}
    return previewed(page, frozen, present, lesson, family, currents)


def previewed(page: str, frozen: tuple, present: bool, lesson: Lesson, family: Family,
              currents: dict[str, dict]) -> PagePreview:
    """The page's preview from its charts at the current value (`currents`: figure dicts, never changed here), each
    with its text alternative read from the same figure."""
    values = dict(frozen)
    notes = chart_notes(lesson, values, computed(page, frozen, lesson))
    setting = lesson.settings[lesson.sweep.setting]
    link = family.link
    members = list(family.members)
    lead = lesson.sweep.chart
    charts = {}
    for chart, current in currents.items():
        if current.get("frames") and chart != lead:    # an animation of its own (▶ play): it keeps its frames
            fig = current
        else:
            fig = preview_figure(current, member(setting, values[setting.name], current),
                                 chart_family(members, chart), setting.label,
                                 groups=family.groups.get(chart, []))
        tag = (fig["layout"].get("meta") or {}).get("lcsm") or {"follows": False}
        tag = {**tag, "page": page, "chart": chart, "family": link["family_id"]}
        fig = {**fig, "layout": {**fig["layout"], "meta": {**(fig["layout"].get("meta") or {}), "lcsm": tag}}}
        if present:
            fig = presenter_figure(fig)
        charts[chart] = ChartSpec(plotly.io.to_json(fig, validate=False), int(fig["layout"].get("height") or 450),
                                  chart_text(current, notes.get(chart, ""), chart))
    return PagePreview(charts, family)

"""What a page shows besides the charts of its settings — text, tables, verdict boxes, cards, widgets — as data.

A page's `panel` and its live part return a list of these; `app/kit/block_view.py:draw_blocks` draws them. Pages
never call streamlit themselves (tests/app/test_declarations.py): what they show is a value a test can read.
Pure (no streamlit).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .lesson import Metric, Notice


@dataclass(frozen=True)
class Text:
    """A line of prose: `markdown`, `caption`, `heading` (a section of the page, an h2 under its title's h1),
    `subheader` (a part of a section, h3), `latex` (a display equation) or `code` (a copyable line, e.g. a share
    link)."""

    text: str
    kind: str = "markdown"


@dataclass(frozen=True)
class Callout:
    """A coloured box: `info`, `success`, `warning` or `error` (a verdict, a refusal, a run that failed)."""

    text: str
    level: str = "info"
    icon: str | None = None


@dataclass(frozen=True)
class Table:
    """Rows of a table (one dict per row, the same keys); `key` names the widget when a test or a reload needs it.
    `static`: a table to read, not to sort — every cell's text shown whole (wrapped), where a grid would cut a long
    cell short; `alt` names it to a screen reader."""

    rows: Sequence[dict]
    key: str | None = None
    static: bool = False
    alt: str | None = None


@dataclass(frozen=True)
class Chart:
    """A figure (plotly Figure, its dict, or a cached `ChartSpec`); `name` is the PNG download's file name."""

    figure: Any
    name: str


@dataclass(frozen=True)
class Readout:
    """Metrics in one row, then each notice as a banner (as above a page's charts)."""

    items: Sequence[Metric | Notice]


@dataclass(frozen=True)
class Group:
    """Blocks kept together: in a bordered card (`border`), or folded under an expander (`fold`: its label)."""

    blocks: Sequence
    border: bool = False
    fold: str | None = None


@dataclass(frozen=True)
class Columns:
    """Blocks side by side: one sequence of blocks per column; `widths` their relative widths."""

    columns: Sequence[Sequence]
    widths: Sequence[float] | None = None


@dataclass(frozen=True)
class Progress:
    """A bar of work done (0…1) with its words, e.g. "step 120 of 3000 · about 40 s left"."""

    fraction: float
    text: str


@dataclass(frozen=True)
class Download:
    label: str
    data: str | bytes
    file_name: str
    mime: str
    key: str


# --- widgets of a live part: their values reach the page's hooks as `Control.picked[key]` -----------------------
@dataclass(frozen=True)
class Toggle:
    key: str
    label: str
    value: bool = True


@dataclass(frozen=True)
class Pick:
    """A choice among `options` (`labels` names them), of one (a select box) or up to `most` of them (`many`).
    `on_change(control)` runs before the page redraws (e.g. show the chosen run)."""

    key: str
    label: str
    options: Sequence
    labels: dict | None = None
    many: bool = False
    most: int | None = None
    hide_label: bool = False
    on_change: Callable[[Any], None] | None = None

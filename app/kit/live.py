"""The live-lesson kind, declared: a page that starts work on the server (a training run, a grid of runs) and
watches it — pure data and plain functions (no streamlit); `lcsm_explorer.app.kit.live_lesson.render_live` draws it.

    LIVE = Live(
        commands=(Command("play", "▶ Play", play), ...),   # buttons; each hook gets a Control
        moving=lambda v, c: ...,        # is the shown work still changing? (then poll every `poll_s` seconds)
        page_state=lambda v, c: ...,    # optional: what the buttons and the lead show (a change reruns the page)
        fetch=lambda v, c: ...,         # what the polled part shows, read from the run store
        draw=lambda v, found, c: [...], # its blocks (lcsm_explorer.app.kit.blocks)
        quantities=lambda v, found: {}, # what exercises and challenges check
        owned_run=True)                 # one run of the store at a time: `?run=ID`, driven only by its owner tab

The kit owns what every such page used to write by hand: the shown run in the URL and the session, the owner
token, the command buttons and their callbacks, the error slot (a refusal, or a run-store fault in words), and
the polling fragment that reruns the whole page when the work stops moving, another run is shown, or the state
the buttons and the lead are drawn from (`page_state`, e.g. a visitor's place in a line) changes.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Values = dict[str, Any]


@dataclass
class Control:
    """What a live page's hooks may read about this tab, and the one thing they may change: the shown run.

    `settings` are the page's current settings; `owner` this tab's owner token (`app/kit/owner.py`; "" on a page
    without an owned run); `visitor` the key the server's admission quota counts this visitor under; `run` the
    shown run's id (None: none); `picked` the values of the live part's widgets; `present` the presenter view;
    `page_url` this page's address without its query (for share links)."""

    settings: Values
    owner: str = ""
    visitor: str = "local"
    run: int | None = None
    picked: dict = field(default_factory=dict)
    present: bool = False
    page_url: str = ""

    def show(self, run_id: int | None) -> None:
        """Show this run from now on (None: none); the kit writes it into the URL and the session."""
        self.run = run_id


@dataclass(frozen=True)
class Command:
    """One button. `act(control)` runs as its callback, before the page redraws; a `ValueError` it raises is
    shown in the error slot as its message (at `refusal` level; quote typed text with `lcsm_explorer.app.kit.literal`).
    `enabled(control)` greys it out when false; `choose(settings)` is a widget drawn above it (a `Pick`; its
    value in `picked`, its default in `Live.picks`)."""

    key: str
    label: str
    act: Callable[[Control], None]
    enabled: Callable[[Control], bool] | None = None
    help: str | None = None
    primary: bool = False
    refusal: str = "error"
    choose: Callable[[Values], Any] | None = None


@dataclass(frozen=True)
class Live:
    """A page's live part (the fields are described in the module docstring). `intro(v, control)` and
    `lead(v, control)` are blocks above and below the buttons (`lead` under the error slot, e.g. a share link);
    `picks` are the defaults of the widgets `draw` declares, so that `draw` sees them before they are drawn;
    `page_state(v, control)` a comparable value of what the buttons and the lead are drawn from, read at each poll:
    when it differs from the page's, the whole page reruns (they are outside the polled part)."""

    fetch: Callable[[Values, Control], Any]
    draw: Callable[[Values, Any, Control], Sequence]
    moving: Callable[[Values, Control], bool]
    quantities: Callable[[Values, Any], dict[str, float]] | None = None
    commands: tuple[Command, ...] = ()
    intro: Callable[[Values, Control], Sequence] | None = None
    lead: Callable[[Values, Control], Sequence] | None = None
    picks: dict = field(default_factory=dict)
    poll_s: float = 1.0
    owned_run: bool = False
    page_state: Callable[[Values, Control], Any] | None = None


RUN_ID = re.compile(r"[0-9]{1,18}")          # ASCII digits within SQLite's INTEGER range


def run_id_of(value: str) -> int | None:
    """The run id a link's `?run=` text names, or None. Strict: "²".isdigit() is true and int() takes "١٢",
    "1_000" and 5000 digits (then SQLite or int()'s digit limit raises), so only 1–18 ASCII digits pass."""
    return int(value) if RUN_ID.fullmatch(value) else None


# How a command runs, given by the module that draws live pages (app/kit/live_lesson.py registers its `hook` when
# imported, before any page is drawn): this module stays pure and imports nothing of the kit that draws.
_RUNNER: list[Callable[[Any, Callable[[Control], None]], Callable[[], None]]] = []


def runs_commands_with(hook: Callable[[Any, Callable[[Control], None]], Callable[[], None]]) -> None:
    """Register how a setting's live action runs (the drawing kit's `hook`)."""
    _RUNNER[:] = [hook]


def steer(lesson: Callable[[], Any], act: Callable[[Control], None]) -> Callable[[], None]:
    """A setting's `on_change` that acts on the live work (e.g. the learning rate of the shown run), run like a
    command (`app/kit/live_lesson.py:hook`: its refusal in the error slot). `lesson` returns the page's declaration
    (a page declares its settings before it)."""
    def changed() -> None:
        if not _RUNNER:
            raise RuntimeError("a live setting changed before app/kit/live_lesson.py was imported")
        _RUNNER[0](lesson(), act)()
    return changed

"""Teacher links: which controls students see, whether the rest are read-only, and the presenter view.

    ?show=c,forcing     only these settings' widgets are drawn (every other setting keeps its linked value)
    ?lock=1             every other widget is drawn, read-only (with ?show), or every widget is (without it)
    ?present=1          presenter view: the shown controls sit on the page, the sidebar and Streamlit's chrome
                        are hidden, fonts and chart lines are large, the lesson prose is collapsed
    ?challenge=2        opens the page's second challenge at the top, highlighted (1-based)

The share panel builds such a link from the page's current settings. Unknown names or values in these
parameters fall back (everything shown, not locked, not presenting, no challenge opened) with a note naming each.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlencode

import streamlit as st

from .figure_style import AXIS_KEY
from .internals.page_style import presenter_sheet
from .literal import literal
from .settings import Settings

VIEW_PARAMS = ("show", "lock", "present", "challenge")
FLAGS = {"1": True, "0": False}
MAX_NAMED = 5                                          # unknown `show` names noted one by one
NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
CHALLENGE_NUMBER = re.compile(r"[1-9][0-9]{0,2}")     # 1-based; no sign, no spaces, no leading zero


@dataclass(frozen=True)
class ClassroomView:
    shown: frozenset | None = None            # setting names drawn; None: all
    lock: bool = False
    present: bool = False
    notes: tuple[str, ...] = field(default=(), compare=False)
    challenge: int | None = None              # the challenge a link opens, 0-based; None: none

    def drawn(self, name: str) -> bool:
        """Whether the widget of setting `name` appears at all."""
        return self.shown is None or name in self.shown or self.lock

    def editable(self, name: str) -> bool:
        return not self.lock or (self.shown is not None and name in self.shown)


def read_view(spec: Settings, query, challenges: int = 0) -> ClassroomView:
    """The view a link asks for (`query`: name → list of values, as st.query_params.get_all gives) on a page
    with `challenges` challenges."""
    notes = []
    shown = None
    raw = (query.get("show") or [None])[-1]
    if raw is not None:
        names = [n.strip() for n in raw.split(",") if n.strip()]
        unknown = list(dict.fromkeys(n for n in names if n not in spec))
        for n in unknown[:MAX_NAMED]:           # a link of 5000 names gets a few notes, not 5000
            notes.append(f"show: {literal(n)} is not a setting of this page")
        if len(unknown) > MAX_NAMED:
            notes.append(f"show: {len(unknown) - MAX_NAMED} more names are not settings of this page")
        known = frozenset(n for n in names if n in spec)
        shown = known if known else None
    flags = {}
    for name in ("lock", "present"):
        value = (query.get(name) or [None])[-1]
        if value is not None and value not in FLAGS:
            notes.append(f"{name}: {literal(value)} is not 1 or 0")
        flags[name] = FLAGS.get(value, False)
    challenge = _challenge(query, challenges, notes)
    return ClassroomView(shown, flags["lock"], flags["present"], tuple(notes), challenge)


def _challenge(query, challenges: int, notes: list) -> int | None:
    """The 0-based challenge of `?challenge=N` (N from 1 to `challenges`); a note and None for anything else."""
    raw = (query.get("challenge") or [None])[-1]
    if raw is None:
        return None
    if CHALLENGE_NUMBER.fullmatch(raw) and int(raw) <= challenges:
        return int(raw) - 1
    which = f"a number from 1 to {challenges}" if challenges else "unused: this page has no challenges"
    notes.append(f"challenge: {literal(raw)} is not a challenge of this page ({which})")
    return None


def current_view(spec: Settings, challenges: int = 0) -> ClassroomView:
    """The view of this page run (read once per run from the URL); notes shown as one warning."""
    query = {name: st.query_params.get_all(name) for name in VIEW_PARAMS if name in st.query_params}
    view = read_view(spec, query, challenges)
    if view.notes:
        st.warning("This link's classroom settings could not all be used:\n\n"
                   + "\n".join(f"- {n}" for n in view.notes), icon="⚠️")
    return view


def share_query(spec: Settings, values: dict, shown=(), lock=False, present=False, challenge: int | None = None) -> str:
    """The query string of a teacher link: every setting's current value, then the view (`challenge` 0-based)."""
    query = dict(spec.encode(values))
    if shown:
        query["show"] = ",".join(name for name in (p.name for p in spec.params) if name in set(shown))
    if lock:
        query["lock"] = "1"
    if present:
        query["present"] = "1"
    if challenge is not None:
        query["challenge"] = str(challenge + 1)
    return urlencode(query, safe=",")


def share_panel(spec: Settings, values: dict, challenges: tuple[str, ...] = (), key: str | None = None) -> None:
    """Sidebar panel: choose the controls students see, the view and a challenge to open; copy the link. `key`: the
    expander reruns the app when opened or closed, and its session key says whether it is open (a page whose moves
    rerun a fragment reruns the app instead while the link, which shows the values, is open)."""
    with st.expander("🔗 Share as a teacher link", **({"key": key, "on_change": "rerun"} if key else {})):
        labels = {p.name: p.label for p in spec.params}
        shown = st.multiselect("controls students see (none chosen: all)", list(labels), format_func=labels.get,
                               key=f"{spec.page}.share.show")
        lock = st.checkbox("show the other controls read-only", key=f"{spec.page}.share.lock")
        present = st.checkbox("presenter view (projector)", key=f"{spec.page}.share.present")
        picked = 0                                      # 0: none; n: challenge n (1-based, as in the link)
        if challenges:
            picked = st.radio("open a challenge at the top", range(len(challenges) + 1),
                              format_func=lambda n: f"{n}. {challenges[n - 1]}" if n else "none",
                              key=f"{spec.page}.share.challenge")
        challenge = picked - 1 if picked else None
        base = (st.context.url or "").split("?", 1)[0] or f"/{spec.page}"
        st.code(f"{base}?{share_query(spec, values, shown, lock, present, challenge)}", language=None,
                wrap_lines=True)
        st.caption("The link fixes every setting at its current value; a student's changes stay in their tab.")


def presenter_style() -> None:
    """Large type and no chrome for a projector: no sidebar, header or tool bar, 22-px text, large metrics (the
    sheet, `internals.page_style.presenter_sheet`, holds no user input). A button's label wraps rather than being
    cut to "Run missi…" in a narrow column of the stage (Paper lab's four)."""
    st.markdown(presenter_sheet(), unsafe_allow_html=True)


PRESENTER_LEGEND_PX = 14     # a legend's font on the projector (discretize's z-plane: 60 px wide beside one at 18)
PRESENTER_SLIDER_GAP = 24     # px more between the plot and a chart's own slider at the presenter's 18-px fonts
#                               (taken from the plot, not added to the chart: the projector's screen is full)
PRESENTER_RANGED_MARGIN = 150  # px left of a chart whose drag changes a y range (sweep_figure.RANGED_MARGIN at 18 px:
#                               139 measured); plotly's animation does not redo margins


def presenter_figure(fig: dict) -> dict:
    """A figure dict with fonts and lines a projector at 1280×720 shows from the back of a room."""
    layout = dict(fig.get("layout", {}))
    layout["font"] = {**layout.get("font", {}), "size": 18}
    if layout.get("legend"):          # a key read up close: at 18 px a legend at the right left a square plot a sliver
        layout["legend"] = {**layout["legend"], "font": {**(layout["legend"].get("font") or {}),
                                                         "size": PRESENTER_LEGEND_PX}}
    if layout.get("sliders"):              # the larger x-axis title needs more room above a chart's own slider
        layout["sliders"] = [{**slider, "pad": {**slider.get("pad", {}), "t": slider.get("pad", {}).get("t", 0)
                                                + PRESENTER_SLIDER_GAP}} for slider in layout["sliders"]]
        margin = dict(layout.get("margin") or {})
        layout["margin"] = {**margin, "b": margin.get("b", 80) + PRESENTER_SLIDER_GAP}   # the plot gives it up
    if ((layout.get("meta") or {}).get("lcsm") or {}).get("ranges") and (layout.get("margin") or {}).get("l"):
        margin = dict(layout["margin"])          # a drag changes its axis ranges: room for 18-px "−0.5×10⁶" ticks
        layout["margin"] = {**margin, "l": max(margin["l"], PRESENTER_RANGED_MARGIN)}
    for key, spec in list(layout.items()):  # 18-px tick labels are wider than the margin the page's fonts left: the
        if AXIS_KEY.match(key) and isinstance(spec, dict):      # axis titles lay on them (propagation's ‖Δ state‖)
            layout[key] = {**spec, "automargin": True}
    data = []
    for trace in fig.get("data", []):
        trace = dict(trace)
        if trace.get("type", "scatter") == "scatter" and "lines" in str(trace.get("mode", "lines")):
            trace["line"] = {**trace.get("line", {}), "width": max(4, trace.get("line", {}).get("width") or 0)}
        data.append(trace)
    return {**fig, "layout": layout, "data": data}

"""The lesson instrument: a dynamics lesson's controls, every chart, the readouts and the live equations drawn by
one browser component (Streamlit's public custom-component v2 API), so that one value shows everywhere.

What the browser gets, in two mounts of the one component (`instrument.js`):

- the page (`instrument_payload`): every setting as a control (native range, number, select, checkbox), the
  presets, every chart at the current value as its finished JSON spec, and the current readouts, equations and
  charts' words (`text.charts`: each chart's summary and data tables, `app/kit/chart_text.py`). It changes with every
  committed value;
- the family (`family_payload`, only where the drag preview is on): every chart's frames and every member's
  readouts, equations and charts' notes (`app/kit/family.py:Family.link`); the browser words each chart at a member
  from its frame (`app/kit/chart_words.js`). It does not depend on the swept value, so
  across swept moves it is the same message, byte for byte, and Streamlit's message cache sends a reference, not
  the family.

In the browser, moving the swept control (mouse, arrow keys, touch) steps through the family's members and moves
every chart, readout and equation at once, with no round trip; its release (or a pause in the keys) commits the
value. Any other control and every preset commits on release, and the instrument shows one pending state until
the server's page at the new values arrives. A commit is `{seq, values: {name: text}, preset}`; `commit` (the
component's callback, run before the script) checks every value against its setting and writes it into the
setting's session-state key: the URL, exercises and challenges read it from there (`url_state`). `seq` comes back
in the page's payload so the browser never shows an older page over a newer move.

plotly.js and KaTeX are the installed packages' own files (plotly's `plotly.min.js`, Debian's libjs-katex), served
by the app's own routes (`lcsm_explorer.app.kit.vendor`): no CDN, the app works offline.
"""
from __future__ import annotations

import json
from functools import partial
from typing import Any

import streamlit as st

from .classroom import ClassroomView
from .internals.widget_states import sent_widgets
from .lesson import Lesson
from .settings import Setting
from .sweep_figure import MOVING_DATA, MOVING_LAYOUT
from .vendor import VENDOR_URLS
from .widgets import chart_config

# The component's own code is a loader of instrument.js (served by the app, `app/kit/vendor.py`): Streamlit sends a
# component's inline code with every element, and the instrument's element is sent on every move.
# Once loaded, the module is called at once (a re-mounted element is redrawn in the same frame).
LOADER_JS = ("const url = new URL(%s, window.location.origin).href;\n"
             "export default function (component) {\n"
             "  const held = window.__lcsmInstrumentModules = window.__lcsmInstrumentModules || {};\n"
             "  if (held[url]) return held[url].default(component);\n"
             "  import(url).then((module) => { held[url] = module; module.default(component); });\n"
             "}\n" % json.dumps(VENDOR_URLS["instrument_js"]))
TRIGGER_SUFFIX = "__events"      # Streamlit names a component's trigger widget by its key and this
INSTRUMENT = st.components.v2.component("lcsm_instrument", js=LOADER_JS, isolate_styles=False)


def instrument_key(page: str) -> str:
    return f"{page}.instrument"


def family_mount_key(page: str) -> str:
    return f"{page}.instrument_family"


def seq_key(page: str) -> str:
    return f"{page}.instrument_seq"


def held_key(page: str) -> str:
    return f"{page}.instrument_held"


def control(setting: Setting, values: dict, view: ClassroomView) -> dict:
    """One setting as the instrument draws it: its kind, range or options, its value as URL text, whether it
    is shown (its `shown` rule, the teacher's `show=`) and editable (`lock=`)."""
    spec = dict(name=setting.name, label=setting.label, kind=setting.kind, widget=setting.widget,
                value=setting.encode(values[setting.name]), help=setting.help or "", group=setting.group,
                shown=(setting.shown is None or bool(setting.shown(values))) and view.drawn(setting.name),
                editable=view.editable(setting.name))
    if setting.kind in ("float", "int"):
        upper = setting.upper(values)
        spec.update(low=setting.low, high=upper, step=setting.step or (1 if setting.kind == "int" else
                                                                        (upper - setting.low) / 100))
    elif setting.kind == "choice":
        names = setting.option_labels.get if setting.option_labels else str
        spec["options"] = [dict(value=setting.encode(o), label=str(names(o))) for o in setting.options]
    elif setting.kind == "text":
        spec["max_length"] = setting.max_length
    return spec


def presets_allowed(view: ClassroomView) -> bool:
    """Presets are drawn in every view but a locked one (a preset would change the settings the lock holds)."""
    return not view.lock


def instrument_payload(lesson: Lesson, values: dict, view: ClassroomView, charts: dict, text: dict | None,
                       family=None, seq: int = 0, member: str | None = None) -> bytes:
    """The page's mount: a JSON head (controls, presets, readouts, equations, layout) and every chart's spec
    spliced in as it was written (`charts`: name → `ChartSpec`), as bytes (Streamlit hashes bytes once).
    `member`: the page is that member of `family`, which the browser holds and shows — every chart not in
    `charts` is its drawing moved to that member's frame, the readouts and equations that member's (`kept`)."""
    spec = lesson.settings
    kept = [name for name in lesson.chart_names() if name not in charts] if member is not None else []
    sweep = lesson.sweep
    members = [dict(name=m["name"], label=m["label"], order=m["order"]) for m in family.members] if family else []
    head = dict(
        role="instrument", page=lesson.page, seq=seq, present=view.present,
        controls=[control(s, values, view) for s in spec.params if not s.in_main],
        swept=dict(name=sweep.setting, chart=sweep.chart, members=members,
                   family_id=family.link["family_id"] if family else None),
        presets=[dict(label=p.label, insight=p.insight) for p in lesson.presets] if presets_allowed(view) else [],
        insight=st.session_state.get(spec.insight_key),
        rows=[list(row) for row in lesson.charts if not isinstance(row, str)],
        configs={name: chart_config(f"{lesson.page}-{name}") for name in charts},   # the PNG download (a kept
        # chart keeps the one it was drawn with)
        member=member, kept=kept,
        text=None if text is None else
        {**text, "charts": {name: chart.text for name, chart in charts.items() if chart.text is not None}},
        vendor=VENDOR_URLS, caption=lesson.caption, moving=dict(data=MOVING_DATA, layout=MOVING_LAYOUT))
    body = ",".join(f"{json.dumps(name)}:{chart.spec}" for name, chart in charts.items())
    return (json.dumps(head)[:-1] + ',"figures":{' + body + "}}").encode("utf-8")


def family_payload(family) -> bytes:
    """The family's mount: the family's JSON text (frames, readouts and equations by member) and its id."""
    link = family.link
    return ('{"role":"family","page":' + json.dumps(link["page"]) + ',"family_id":' + json.dumps(link["family_id"])
            + ',"family":' + link["family"] + "}").encode("utf-8")


def mount(lesson: Lesson, values: dict, view: ClassroomView, charts: dict, text: dict | None, family=None,
          member: str | None = None) -> None:
    """Draw the instrument (and, under it, its family: an element of no height) where the page is; `member`: the
    browser draws the charts not in `charts`, and the text, from that member of `family` (`instrument_payload`)."""
    page = lesson.page
    payload = instrument_payload(lesson, values, view, charts, text, family, st.session_state.get(seq_key(page), 0),
                                 member)
    INSTRUMENT(key=instrument_key(page), data=payload, height="content",
               on_commit_change=partial(commit, lesson, view))
    if family is not None:
        INSTRUMENT(key=family_mount_key(page), data=family_payload(family), height="content")


def commit(lesson: Lesson, view: ClassroomView) -> None:
    """The component's callback (before the script runs): the values the browser committed become the settings'
    values; a preset's insight is kept for the presets' caption. A value that is no value of its setting, a
    setting the view does not let this tab change, or a malformed message changes nothing."""
    state = st.session_state.get(instrument_key(lesson.page))
    message = state.get("commit") if state is not None else None
    apply_commit(lesson, view, message)


def apply_commit(lesson: Lesson, view: ClassroomView, message: Any) -> bool:
    """`commit`'s work on one message (also what a reconnected tab's first event is given: `recover_commit`)."""
    if not isinstance(message, dict) or not isinstance(message.get("values"), dict):
        return False
    spec = lesson.settings
    chosen = {}
    for name, text in message["values"].items():
        if name not in spec or not isinstance(text, str) or not view.editable(name):
            continue
        setting = spec[name]
        try:
            value = setting.parse(text)
        except ValueError:
            continue
        if setting.kind == "float" and isinstance(value, int):
            value = float(value)
        if setting.valid(value):
            chosen[name] = value
    preset = message.get("preset")
    if isinstance(preset, int) and 0 <= preset < len(lesson.presets) and presets_allowed(view):
        picked = lesson.presets[preset]
        chosen = {**picked.state(spec)}
        st.session_state[spec.insight_key] = picked.insight
    for name, value in chosen.items():
        st.session_state[spec.key(name)] = value
    seq = message.get("seq")
    if isinstance(seq, int) and not isinstance(seq, bool):
        st.session_state[seq_key(spec.page)] = seq
    if "held" in message:                               # what the browser shows now (None: nothing to keep)
        st.session_state[held_key(spec.page)] = held_drawing(message["held"])
    return bool(chosen)


def held_drawing(held: Any) -> dict | None:
    """What a commit says the browser shows: the family (`family`, its id) whose member (`member`, URL text) its
    charts named in `charts` are moved to — None when it says nothing of the kind."""
    if not isinstance(held, dict):
        return None
    family, member, charts = held.get("family"), held.get("member"), held.get("charts")
    if not (isinstance(family, str) and isinstance(member, str) and isinstance(charts, list)
            and all(isinstance(c, str) for c in charts)):
        return None
    return {"family": family, "member": member, "charts": charts}


def kept_member(lesson: Lesson, values: dict, view: ClassroomView, family) -> str | None:
    """The member the browser shows every chart of the page at, by this session's last commit, where that is the
    page at `values` with `family` (the page's cached family): then the page needs no chart drawn (`mount`'s
    `member`). Not on a projector (its charts are drawn larger than the frames they move by)."""
    held = st.session_state.get(held_key(lesson.page))
    if held is None or view.present or family is None or held["family"] != family.link["family_id"]:
        return None
    name = lesson.settings[lesson.sweep.setting].encode(values[lesson.sweep.setting])
    if held["member"] != name or not any(m["name"] == name for m in family.members):
        return None
    return name if set(lesson.chart_names()) <= set(held["charts"]) else None


def settings_controlled(lesson: Lesson) -> bool:
    """Whether the instrument draws this lesson's settings (a dynamics lesson: it declares a drag preview)."""
    return lesson.sweep is not None



def recover_commit(lesson: Lesson, view: ClassroomView) -> None:
    """A commit made as a fresh session's first event (a tab that reconnected to another web process after its own
    died): that session has not mounted the instrument, so its callback cannot run; the message the browser sent
    with the rerun is applied here, before the settings are loaded, as `commit` would."""
    if instrument_key(lesson.page) in st.session_state:      # mounted in this session: its callback runs
        return
    sent = sent_widgets().get(instrument_key(lesson.page) + TRIGGER_SUFFIX)
    if sent is None or sent.kind != "json_trigger":
        return
    try:
        events = json.loads(sent.value)
    except ValueError:
        return
    for event in events if isinstance(events, list) else [events]:
        if isinstance(event, dict) and event.get("event") == "commit":
            apply_commit(lesson, view, event.get("value"))

"""The page link: a Streamlit v2 component that makes one drag move the whole page (`app.kit.preview`).

Its data is the family (`family.Family.link`: every chart's frames and every member's readouts, one JSON text)
and nothing that depends on the current value, so across swept moves of one family it is the same message, byte for
byte, and Streamlit's message cache sends the browser a reference instead of the family again. Its JavaScript
(`page_link.js`, run in the app page itself: no iframe) finds the page's charts by their `layout.meta.lcsm` tag
(page, chart, family, current value, trace signature), adds the family's frames to every following chart that
lacks them (after any re-render), listens to the lead chart's plotly slider, and on each step animates every other
chart of the page to the frame of the same name and rewrites the metrics and notices (inside the readout
container, `READOUT_KEY`) from that member's readouts (the current value's from the lead chart's tag). On release
it sends the frame name back; `commit` (the component's callback, run before the script) writes the value into
the setting's widget key, so the rerun draws the page, the sidebar and the URL at that value. The component
draws nothing (no HTML) and is mounted once per page whose preview is in.
"""
from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import streamlit as st

from .lesson import Lesson
from .settings import Settings

READOUT_KEY = "lcsm-readout"          # the container of the metrics and notices: CSS class st-key-lcsm-readout
LINK_JS = (Path(__file__).with_name("page_link.js")).read_text(encoding="utf-8")
PAGE_LINK = st.components.v2.component("lcsm_page_link", js=LINK_JS, isolate_styles=False)


def link_key(page: str) -> str:
    return f"{page}.page_link"


def link_page(lesson: Lesson, link: dict) -> None:
    """Mount the page link for `lesson` with `link` (`preview.PagePreview.link`: the lead chart and the family's
    frames and readouts; its key fixes the element id, so the same family is the same message)."""
    key = link_key(lesson.page)
    PAGE_LINK(key=key, data=link_payload(link), height="content",
              on_commit_change=partial(commit, lesson.settings, lesson.sweep.setting, key))


def link_payload(link: dict) -> bytes:
    """The component's data as JSON bytes, the family's JSON text (`link["family"]`) spliced in as an object: sent
    as bytes, Streamlit hashes them once for the element's identity instead of writing the ~1 MiB family twice
    more as JSON on every rerun (a dict's way: its JSON, and again with sorted keys). `page_link.js` parses it."""
    head = {key: value for key, value in link.items() if key != "family"} | {"readout": f"st-key-{READOUT_KEY}"}
    return (json.dumps(head)[:-1] + ', "family": ' + link["family"] + "}").encode("utf-8")


def commit(settings: Settings, name: str, key: str) -> None:
    """The released preview value becomes the setting's value (a widget callback: before the widgets are drawn).
    A name that is not a value of the setting (a stale or forged message) changes nothing."""
    state = st.session_state.get(key)
    text = state.get("commit") if state is not None else None
    if not isinstance(text, str):
        return
    setting = settings[name]
    try:
        value = setting.parse(text)
    except ValueError:
        return
    if setting.valid(value):
        st.session_state[settings.key(name)] = value

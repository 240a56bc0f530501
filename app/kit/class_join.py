"""A learner joins a teacher's class through the link: `?class=CODE`.

The code is read once per session, checked against the store (a code no class has is noted once, and the tab
goes on alone), remembered with the learner token (`ClassStore.join`: a seat, if one is free and the address has
not joined too often; the class view counts the learner's answers from then on) and kept in the URL on every page
run, as the learner token is.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable

import streamlit as st

from lcsm_serving.class_store import CLASS_CODE, ClassFull, ClassStore, JoinsLimited
from lcsm_serving.progress_store import ProgressStore, StoreFile
from lcsm_serving.store_faults import log_store_fault

from .client_address import client_address
from .literal import literal

CLASS_PARAM, CLASS_KEY = "class", "progress.class"


def keep_class(token: str, store_file: Callable[[], StoreFile]) -> str | None:
    """The class this tab joined (None: none); joins it on the session's first run with a `?class=` link (the
    store is opened only then: this runs on every page run)."""
    if CLASS_KEY not in st.session_state:
        st.session_state[CLASS_KEY] = _join(token, store_file(), st.query_params.get(CLASS_PARAM))
    code = st.session_state[CLASS_KEY]
    if code is not None and st.query_params.get(CLASS_PARAM) != code:
        st.query_params[CLASS_PARAM] = code
    return code


def _join(token: str, file: StoreFile, raw: str | None) -> str | None:
    if raw is None:
        return _remembered(token, file)
    code = raw.strip().upper()
    try:
        if CLASS_CODE.fullmatch(code) and ClassStore(file).exists(code):
            ClassStore(file).join(token, code, client_address())
            return code
    except (ClassFull, JoinsLimited) as why:
        st.warning(f"You could not join this class: {why}. Your answers count for you, not in the class.", icon="👥")
        st.query_params.pop(CLASS_PARAM, None)
        return None
    except (sqlite3.Error, OSError) as why:             # in words: never SQLite's text or the server's path
        st.warning(f"The class {literal(code)} could not be joined, so your answers count in this tab only. "
                   + (log_store_fault(why, "class join") or "The server's store could not be read just now."),
                   icon="👥")
        return None
    st.warning(f"This link's class code {literal(raw)} is not a class on this server: your answers count in "
               "this tab only. Ask your teacher for the link again.", icon="👥")
    st.query_params.pop(CLASS_PARAM, None)              # a reload does not say it again
    return None


def _remembered(token: str, file: StoreFile) -> str | None:
    """The class a reloaded tab (its token in the URL, its class dropped) joined before."""
    try:
        return ProgressStore(file).class_of(token)
    except sqlite3.Error:
        return None

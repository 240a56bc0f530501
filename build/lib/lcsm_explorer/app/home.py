"""Home: what the explorer teaches, the lessons, this session's progress, the device, the variant registry."""
from __future__ import annotations

import pandas as pd
import streamlit as st

import lcsm_core
from lcsm_explorer.app.kit.cache import cached
from lcsm_explorer.app.kit.lesson_view import every_lesson_progress
from lcsm_explorer.app.kit.progress import new_learner_markdown, progress_table, score_keeper, score_line


@cached(store="small")
def registry_rows() -> list[dict]:
    return lcsm_core.variant_table()


def render_home(lessons: dict) -> None:
    """`lessons`: each lesson's navigation page (st.Page) → its declaration, for the links. The page says what
    the explorer is and where to start (lesson 1) before anything else; how the core runs sits at the bottom."""
    st.title("🌀 LCSM Explorer")
    st.markdown(
        "**An interactive course on linear sequence models, in ten short lessons.** A damped spring, a "
        "discretized linear system, an LRU eigenvalue and a Mamba / GLA / Longhorn layer are **the same "
        "object**: a linear recurrence whose memory decays, rotates or grows. Each lesson tells one idea, gives "
        "you sliders with live charts, and checks your answers to its exercises and challenges."
    )
    if lessons:
        start = min(lessons, key=lambda page: lessons[page].number)
        with st.container(border=True):
            st.markdown(f"**New here? Start with lesson {lessons[start].number}** — about ten minutes, no code "
                        "needed — and take the lessons in order: each builds on the one before.")
            st.page_link(start, label=f"Start: {start.title} — {lessons[start].summary}", icon="▶️")
    st.markdown("Every lesson computes with one tested **Expand–Oscillation–Shrink** core:")
    st.latex(r"\mathbf m_t = \mathbf o_t \,\psi\, \mathbf m_{t-1} + \mathbf e_t \mathbf i_t^\top,\qquad "
             r"\mathbf y_t = \mathbf m_t^\top \mathbf s_t")
    st.caption("i: input state · e: expand state · o: oscillation state · s: shrink state · "
               "ψ = ⊙ (elementwise) or × (matrix) · m₀ = 0")

    st.header("Lessons")
    unreadable = {row.page for row in every_lesson_progress() if not row.readable}
    for page, lesson in lessons.items():
        broken = " — ⚠️ its lesson file could not be read (the page says why)" if lesson.page in unreadable else ""
        st.page_link(page, label=f"{page.title} — {lesson.summary}{broken}", icon=lesson.icon)

    progress_section()

    st.header("The variant registry")
    st.markdown(
        "Every model below is a short declaration of how it computes (i, e, o, s) from the input x_t; all of "
        "them run through the same `eos_scan`. Columns follow LCSM Table 1 (and Table 7, Longhorn, LRU)."
    )
    st.dataframe(pd.DataFrame(registry_rows()), hide_index=True, width="stretch")
    st.markdown(
        "Model codes **e-o-s-a** (LCSM §2.5) build the paper's ablation family: e, s ∈ {0 data-independent, "
        "1 data-dependent}, o ∈ 0..11 (Table 3), a ∈ 0..7 (Table 2 activation); the bare code `0` is the SSM "
        "parameterization. Example: `1-9-1-0`."
    )
    where_the_core_runs()


def where_the_core_runs() -> None:
    """The device and the scan's path: for the curious, small, last."""
    info = lcsm_core.device_summary()
    with st.expander("⚙️ Where the core runs"):
        st.caption(f"Device: {info['device']} · eos_scan path (form='auto'): {info['scan_path']} · "
                   f"torch {info['torch']} · {info['threads']} CPU threads")


def progress_section() -> None:
    """The learner's exercises and challenges solved, per lesson and in all."""
    rows = every_lesson_progress()
    keeper = score_keeper()
    st.header(f"Your progress in {keeper}")
    st.markdown(score_line(rows))
    narrow = {"lesson": st.column_config.TextColumn(width="medium"),    # a phone shows every count
              "challenges": st.column_config.TextColumn(width="small"),
              "exercises": st.column_config.TextColumn(width="small")}
    st.dataframe(pd.DataFrame(progress_table(rows)), hide_index=True, width="stretch", key="home.progress",
                 column_config=narrow)
    if keeper == "this browser":
        new_learner = new_learner_markdown("/")
        st.caption("Solve a lesson's exercises and challenges with their Check buttons. Your score belongs to this "
                   "browser: another tab, a reload or your class's link opened again keeps it. On a computer "
                   f"learners share: {new_learner}.")
    else:
        st.caption("Solve a lesson's exercises and challenges with their Check buttons. Your score belongs to this "
                   "tab's link (its `learner=` part): a reload, or the link opened again later, keeps it; a new tab "
                   "opened from the bare address starts a new score.")

"""The controls of a page's main chart, drawn with it: `Lesson.chart_controls` names the few
settings that drive the main chart.

- On a phone (≤ 640 px; the sidebar would cover the screen) they are drawn again under the main chart (a live
  page: above its buttons; a page without charts: under its readouts), with the page's presets as a row of pills
  and every other setting folded under "More settings". A page with a drag preview (lessons 1–5) is drawn by
  the lesson instrument (`app/kit/instrument.py`), which holds its controls and presets: none of this applies there.
  The sidebar keeps the full set. On a wider screen the copy is hidden by the layout's style sheet
  (`layout.CHART_CONTROLS_KEY`).
- A setting drawn twice is one value: the copy's widget has a key of its own (Streamlit allows one widget per
  key), is set from the setting's value before it is drawn, and its change writes the setting's own key in its
  callback (before the script runs, the sidebar and the URL then follow), then runs the setting's `on_change`.
  A tab that reconnected to another web process (its own died) makes its first move on a session that has drawn
  nothing, whose callbacks cannot run: the copy's value is read from what the browser sent
  (`url_state.sent_widget_values`), a preset's pill or sidebar button by `recover_preset_pick`, before the
  settings are loaded.
- In the presenter view (no sidebar) the controls column draws the few first and folds the rest
  (`presenter_controls`), so a page of many settings (Train live's 14) keeps the first screen for what is in use.
"""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from .classroom import ClassroomView
from .internals.widget_states import SentWidget, sent_widgets
from .layout import CHART_CONTROLS_KEY
from .lesson import Lesson
from .settings import Preset, Setting, Settings
from .url_state import copy_key
from .widgets import apply_preset, draw_setting, preset_button_key, preset_insight

FOLD_LABEL = "⚙️ More settings"


def preset_pick_key(spec: Settings) -> str:
    return f"{spec.page}.preset.with_chart"


def drawn_here(lesson: Lesson, values: dict, view: ClassroomView) -> tuple[list[Setting], list[Setting]]:
    """(the chart's few, every other sidebar setting) that this view draws at these values, in declared order."""
    few = set(lesson.chart_controls)
    shown = [s for s in lesson.settings.params
             if not s.in_main and (s.shown is None or s.shown(values)) and view.drawn(s.name)]
    return [s for s in shown if s.name in few], [s for s in shown if s.name not in few]


def draw_chart_controls(lesson: Lesson, values: dict, view: ClassroomView) -> None:
    """The copy of the chart's controls, its presets and the rest folded (shown on a phone only). A swept page
    (lessons 1–5, drawn by the instrument, never come here) would get its presets alone.
    Not in the presenter view, whose controls column is the only set."""
    presets = pills_drawn(lesson, view)
    if view.present or not (lesson.chart_controls or presets):
        return
    few, rest = drawn_here(lesson, values, view) if lesson.chart_controls else ([], [])
    with st.container(key=CHART_CONTROLS_KEY):
        for setting in few:
            draw_copy(lesson.settings, setting, values, view)
        if presets:
            preset_pills(lesson.settings, lesson.presets)
        if rest:
            with st.expander(FOLD_LABEL):
                for setting in rest:
                    draw_copy(lesson.settings, setting, values, view)


def draw_copy(spec: Settings, setting: Setting, values: dict, view: ClassroomView) -> None:
    """A second widget of `setting`, holding its value, whose change becomes the setting's value."""
    key = copy_key(spec, setting.name)
    st.session_state[key] = values[setting.name]        # before the widget, every run: the setting's value, sent
    #   with the widget (Streamlit sends a value only in a run that set its key: a copy the browser re-mounts
    #   would be drawn at its minimum, as Spring's sidebar was — url_state.resend_values). A move on the copy has
    #   already become the setting's value in its callback.
    draw_setting(replace(setting, on_change=lambda: copy_back(spec, setting)), key, values,
                 disabled=not view.editable(setting.name))


def copy_back(spec: Settings, setting: Setting) -> None:
    """The copy's callback: its value into the setting's own key (sidebar, URL and page follow), then the
    setting's own `on_change` (e.g. Train live steering its run)."""
    st.session_state[spec.key(setting.name)] = st.session_state[copy_key(spec, setting.name)]
    if setting.on_change is not None:
        setting.on_change()


def pills_drawn(lesson: Lesson, view: ClassroomView) -> bool:
    """Whether this view draws the presets as pills with the chart (not where a teacher's link picks or locks
    the controls: a preset would change the rest)."""
    return bool(lesson.presets) and view.shown is None and not view.lock and not view.present


def recover_preset_pick(lesson: Lesson, view: ClassroomView) -> None:
    """A preset picked as a fresh session's first event (a tab that reconnected to another web process after its
    own died), with a pill by the chart or a sidebar button: that session has not drawn them, so their callback
    cannot run. The pick the browser sent is applied here, before the settings are loaded, as `pick_preset` or
    the button's `apply_preset` would (the other moved widgets are `url_state.sent_widget_values`'s). Pills and
    buttons are drawn in the same views (`pills_drawn`: not where a teacher's link picks or locks the controls)."""
    key = preset_pick_key(lesson.settings)
    if not pills_drawn(lesson, view) or key in st.session_state:     # drawn in this session: their callbacks run
        return
    sent = sent_widgets()
    picked = picked_index(sent.get(key), [p.label for p in lesson.presets])
    if picked is not None:
        st.session_state[key] = picked
        pick_preset(lesson.settings, lesson.presets)
        return
    clicked = next((n for n in range(len(lesson.presets))
                    if triggered(sent.get(preset_button_key(lesson.settings, n)))), None)
    if clicked is not None:
        apply_preset(lesson.settings, lesson.presets[clicked])


def triggered(sent: SentWidget | None) -> bool:
    """Whether a widget sent a button's click (a trigger sent true)."""
    return sent is not None and sent.kind == "trigger" and sent.value is True


def picked_index(sent: SentWidget | None, labels: list[str]) -> int | None:
    """The preset a pills widget sent (its option's label, as the frontend sends it), or None."""
    if sent is None or sent.kind != "array" or len(sent.value) != 1 or not isinstance(sent.value[0], str):
        return None
    label = sent.value[0]
    return labels.index(label) if label in labels else None


def preset_pills(spec: Settings, presets: tuple[Preset, ...]) -> None:
    """The presets as one row of pills; a pick applies the preset and clears itself (a preset is an action)."""
    labels = [p.label for p in presets]
    st.pills("Presets", range(len(presets)), format_func=labels.__getitem__, key=preset_pick_key(spec),
             on_change=lambda: pick_preset(spec, presets))
    preset_insight(spec)


def pick_preset(spec: Settings, presets: tuple[Preset, ...]) -> None:
    picked = st.session_state.get(preset_pick_key(spec))
    if picked is None:
        return
    apply_preset(spec, presets[picked])
    st.session_state[preset_pick_key(spec)] = None


def presenter_controls(lesson: Lesson, values: dict, view: ClassroomView) -> None:
    """The presenter view's controls column for a page that names its chart's controls: those, then the rest
    folded (the setting's own widgets: there is no sidebar to share them with). A teacher's link that names the
    controls (`?show=`) has already chosen the few: every one of them is drawn, none folded."""
    few, rest = drawn_here(lesson, values, view)
    if view.shown is not None:
        few, rest = [s for s in lesson.settings.params if s in few or s in rest], []   # declared order
    spec = lesson.settings
    for setting in few:
        draw_setting(setting, spec.key(setting.name), values, disabled=not view.editable(setting.name))
    if rest:
        with st.expander(FOLD_LABEL):
            for setting in rest:
                draw_setting(setting, spec.key(setting.name), values, disabled=not view.editable(setting.name))

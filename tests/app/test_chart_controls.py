"""The main chart's controls drawn with it (app/kit/chart_controls.py): the copy and the sidebar's widget are one
value (either moves the other, the URL and the page), a preset pill applies its preset and clears itself, a
teacher link's view holds for the copy, and the presenter view draws the few first with the rest folded."""
import pytest

from lcsm_explorer.app.kit.chart_controls import FOLD_LABEL, copy_key, preset_pick_key
from lcsm_explorer.app.kit.widgets import preset_button_key
from lcsm_explorer.app.lessons import all_lessons, lesson
from tests.app.pages import assert_clean, control, instrument, open_page, url_value
from tests.app.test_classroom import instrument_commit, reconnected_move, send_commit

NAMED = [spec.page for spec in all_lessons() if spec.chart_controls]


def copy_of(at, page: str, name: str):
    """The copy's widget (any kind) by its key."""
    key = copy_key(lesson(page).settings, name)
    found = [w for w in at.main if getattr(w, "key", None) == key]
    found += [w for kind in ("slider", "selectbox", "radio", "number_input", "toggle", "select_slider")
              for w in at.get(kind) if getattr(w, "key", None) == key]
    assert found, f"{page}: no copy of {name} drawn with the chart"
    return found[0]


def test_pages_without_a_drag_preview_name_their_chart_controls():
    """Every lesson either drags its main chart's setting (lessons 1–5) or names the controls drawn with it."""
    for spec in all_lessons():
        assert bool(spec.sweep) != bool(spec.chart_controls), spec.page
        assert set(spec.chart_controls) <= {p.name for p in spec.settings.params if not p.in_main}, spec.page


@pytest.mark.parametrize("page", NAMED)
def test_the_copy_draws_every_named_setting_and_the_rest_folded(page):
    at = open_page(page)
    assert_clean(at, page)
    spec = lesson(page)
    values = {p.name: at.session_state[spec.settings.key(p.name)] for p in spec.settings.params}
    for p in spec.settings.params:
        if p.in_main or (p.shown is not None and not p.shown(values)):
            continue
        assert copy_key(spec.settings, p.name) in at.session_state, f"{page}: {p.name} has no copy"
        assert at.session_state[copy_key(spec.settings, p.name)] == values[p.name]
    assert FOLD_LABEL in [e.label for e in at.expander]


def test_moving_the_copy_moves_the_setting_the_url_and_the_page():
    page, name = "online_learners", "key_scale"
    at = open_page(page)
    before = [m.value for m in at.metric]
    copy_of(at, page, name).set_value(2.5).run()
    assert_clean(at)
    assert at.slider(key=f"{page}.{name}").value == 2.5                 # the sidebar's widget
    assert url_value(at, name) == "2.5"
    assert [m.value for m in at.metric] != before                         # the page was drawn at 2.5
    at.slider(key=f"{page}.{name}").set_value(0.5).run()                  # and back, from the sidebar
    assert at.session_state[copy_key(lesson(page).settings, name)] == 0.5
    assert url_value(at, name) == "0.5"


def test_a_preset_pill_applies_the_preset_and_clears_itself():
    page = "eos_view"
    spec = lesson(page)
    at = open_page(page)
    n = next(i for i, p in enumerate(spec.presets) if "DeltaNet" in p.label)
    pills = [w for w in at.get("button_group") if getattr(w, "key", None) == preset_pick_key(spec.settings)]
    assert pills, "no preset pills with the chart"
    pills[0].set_value(n).run()
    assert_clean(at)
    assert at.session_state[spec.settings.key("variant")] == spec.presets[n].values["variant"]
    assert url_value(at, "variant") == spec.presets[n].values["variant"]
    assert at.session_state[preset_pick_key(spec.settings)] is None


def test_a_swept_page_gets_its_presets_alone_with_the_chart():
    """A dynamics lesson: its presets are the instrument's, drawn with its charts; no pills, no buttons, no fold."""
    spec = lesson("spring")
    at = open_page("spring")
    payload = instrument(at, "spring")
    assert [p["label"] for p in payload["presets"]] == [p.label for p in spec.presets] and payload["figures"]
    assert not [w for w in at.get("button_group") if getattr(w, "key", None) == preset_pick_key(spec.settings)]
    assert not [b for b in at.button if b.key and ".preset." in b.key]
    assert FOLD_LABEL not in [e.label for e in at.expander]
    n = next(i for i, p in enumerate(spec.presets) if "Critically" in p.label)
    send_commit(at, "spring", preset=n)
    assert at.session_state[spec.settings.key("c")] == spec.presets[n].values["c"] == float(url_value(at, "c"))
    assert float(control(at, "spring", "c")["value"]) == spec.presets[n].values["c"]


def test_a_teacher_link_locks_the_copy_and_hides_the_presets():
    at = open_page("online_learners", {"show": "beta", "lock": "1"})
    assert_clean(at)
    assert not copy_of(at, "online_learners", "beta").disabled
    assert copy_of(at, "online_learners", "gate").disabled
    assert preset_pick_key(lesson("online_learners").settings) not in at.session_state


def test_the_presenter_view_draws_the_few_first_and_folds_the_rest():
    at = open_page("train_live", {"present": "1"})
    assert_clean(at)
    spec = lesson("train_live").settings
    assert copy_key(spec, "task") not in at.session_state, "a copy in the presenter view"
    assert FOLD_LABEL in [e.label for e in at.expander]
    folded = next(e for e in at.expander if e.label == FOLD_LABEL)
    inside = {w.key for kind in ("number_input", "selectbox", "select_slider", "radio", "text_input")
              for w in folded.get(kind)}
    assert spec.key("seq_len") in inside and spec.key("lr") not in inside


# --- a tab that reconnected to another web process (its own died): the first move is on the phone's copy ---------
@pytest.mark.parametrize("page, query, name, value", [
    ("online_learners", {"key_scale": "1.5"}, "key_scale", 2.5),                       # a slider
    ("eos_view", {"T": "32"}, "variant", "mamba"),                                      # a selectbox, by its label
])
def test_a_first_move_on_the_copy_after_a_reconnect_is_kept(page, query, name, value):
    """The fresh session has drawn nothing, so the copy's callback cannot run: the value the browser sent for the
    copy becomes the setting's (the sidebar's widget, still at the old value, does not undo it)."""
    spec = lesson(page).settings
    _, fresh = reconnected_move(page, query, lambda tab: copy_of(tab, page, name).set_value(value))
    assert fresh.session_state[spec.key(name)] == value                # the sidebar's widget
    assert fresh.session_state[copy_key(spec, name)] == value
    assert url_value(fresh, name) == spec[name].encode(value)
    for other, text in query.items():
        if other != name:
            assert url_value(fresh, other) == text


def test_a_first_move_on_the_sidebar_after_a_reconnect_still_wins_over_its_unmoved_copy():
    page, name = "online_learners", "key_scale"
    spec = lesson(page).settings
    _, fresh = reconnected_move(page, {"key_scale": "1.5"}, lambda tab: tab.slider(key=spec.key(name)).set_value(0.5))
    assert fresh.slider(key=spec.key(name)).value == 0.5 and url_value(fresh, name) == "0.5"
    assert fresh.session_state[copy_key(spec, name)] == 0.5


@pytest.mark.parametrize("page", ["eos_view"])
def test_a_first_preset_pill_after_a_reconnect_applies_its_preset(page):
    spec = lesson(page)
    n = len(spec.presets) - 1
    _, fresh = reconnected_move(page, {}, lambda tab: pills_of(tab, spec).set_value(n))
    for name, value in spec.presets[n].values.items():
        assert fresh.session_state[spec.settings.key(name)] == value, name
        assert url_value(fresh, name) == spec.settings[name].encode(value), name
    assert fresh.session_state[preset_pick_key(spec.settings)] is None        # the pick is an action: cleared


@pytest.mark.parametrize("page", ["eos_view"])
def test_a_first_sidebar_preset_button_after_a_reconnect_applies_its_preset(page):
    """As the pill above, for the sidebar's button of a preset: its on_click cannot run in a fresh session."""
    spec = lesson(page)
    n = len(spec.presets) - 1
    _, fresh = reconnected_move(page, {}, lambda tab: tab.button(key=preset_button_key(spec.settings, n)).click())
    for name, value in spec.presets[n].values.items():
        assert fresh.session_state[spec.settings.key(name)] == value, name
        assert url_value(fresh, name) == spec.settings[name].encode(value), name
    assert any(spec.presets[n].insight in c.value for c in fresh.caption), "the preset's insight is not shown"


def test_a_first_instrument_preset_after_a_reconnect_applies_its_preset():
    """As the pill and the button above, for a dynamics lesson's preset pressed in the instrument: the fresh session
    has not mounted the instrument, so its callback cannot run (`instrument.recover_commit`)."""
    page = "spring"
    spec = lesson(page)
    n = len(spec.presets) - 1
    _, fresh = reconnected_move(page, {}, lambda tab: instrument_commit(tab, page, preset=n))
    for name, value in spec.presets[n].values.items():
        assert fresh.session_state[spec.settings.key(name)] == value, name
        assert url_value(fresh, name) == spec.settings[name].encode(value), name
    assert instrument(fresh, page)["insight"] == spec.presets[n].insight, "the preset's insight is not shown"
    send_commit(fresh, page, {"c": "0.3"}, seq=2)                          # the press is an action: not applied again
    assert fresh.session_state[spec.settings.key("c")] == 0.3 and url_value(fresh, "c") == "0.3"


def pills_of(at, spec):
    [pills] = [w for w in at.get("button_group") if getattr(w, "key", None) == preset_pick_key(spec.settings)]
    return pills


def test_every_run_sends_the_copy_its_value():
    """As url_state.resend_values for the sidebar: a copy the browser re-mounts in a run that set no key must not
    be drawn at its minimum (a move from there would commit the minimum)."""
    page, name = "online_learners", "key_scale"
    at = open_page(page, {"key_scale": "1.5"})
    at.run()                                                            # a run that moves nothing
    copy = copy_of(at, page, name)
    assert copy.proto.set_value and list(copy.proto.value) == [1.5]
    at.slider(key=f"{page}.{name}").set_value(0.5).run()                # the sidebar moves: the copy follows
    at.run()
    copy = copy_of(at, page, name)
    assert copy.proto.set_value and list(copy.proto.value) == [0.5]

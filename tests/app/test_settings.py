"""Declared settings: parse URL text, fall back with a note, encode round trip, dependent bounds."""
import pytest

from lcsm_explorer.app.kit.settings import Setting, Settings

SPEC = Settings("demo", (Setting.slider("m", "mass", 1.0, 0.1, 5.0), Setting.slider("n", "count", 8, 8, 64),
                         Setting.choice("kind", "method", "zoh", ("zoh", "euler")),
                         Setting.toggle("gamma", "γ", True),
                         Setting.choice("lr", "rate", 0.01, (0.001, 0.01, 0.1), widget="select_slider"),
                         Setting.text("code", "model code", "1-3-1-0", max_length=8),
                         Setting.slider("t", "step", 3, 0, 64, high_of=lambda v: v["n"] - 1)))


def test_good_values_round_trip():
    values = dict(m=2.5, n=32, kind="euler", gamma=False, lr=0.1, code="0", t=5)
    got, notes = SPEC.read(SPEC.encode(values))
    assert got == values and notes == []


@pytest.mark.parametrize("name, raw, why", [
    ("m", "banana", "not a number"), ("m", "9", "outside"), ("m", "nan", "not a finite number"),
    ("n", "8.5", "not a whole number"), ("kind", "rk4", "not one of"), ("gamma", "maybe", "not true/false"),
    ("lr", "0.02", "not one of")])
def test_bad_values_fall_back_to_the_default_with_a_note(name, raw, why):
    got, notes = SPEC.read({name: raw})
    assert got == SPEC.defaults
    assert len(notes) == 1 and why in notes[0] and name in notes[0]


def test_missing_values_are_defaults_without_notes_and_lists_take_the_last():
    assert SPEC.read({}) == (SPEC.defaults, [])
    assert SPEC.read({"m": ["2", "3"]})[0]["m"] == 3.0


def test_valid_checks_type_and_range_without_text_round_trip():
    assert SPEC["m"].valid(0.30000000000000004) and not SPEC["m"].valid(7.0) and not SPEC["m"].valid(True)
    assert SPEC["n"].valid(16) and not SPEC["n"].valid(16.0)


def test_text_settings_have_a_length_limit_and_dependent_bounds_follow_other_settings():
    assert SPEC.read({"code": "1-9-1-0"})[0]["code"] == "1-9-1-0"
    got, notes = SPEC.read({"code": "x" * 9})
    assert got["code"] == "1-3-1-0" and "longer than 8" in notes[0]
    assert SPEC["t"].upper({"n": 8}) == 7 and SPEC["m"].upper({}) == 5.0


def test_a_slider_is_int_only_when_every_number_is_int():
    assert SPEC["n"].kind == "int" and SPEC["m"].kind == "float"
    assert Setting.slider("x", "x", 1, 0, 2, step=0.5).kind == "float"


def test_declarations_refuse_a_default_outside_the_range_and_duplicate_names():
    with pytest.raises(AssertionError):
        Setting.slider("x", "x", 9.0, 0.0, 1.0)
    with pytest.raises(AssertionError):
        Settings("p", (Setting.toggle("a", "a", True), Setting.toggle("a", "b", False)))

"""URL settings: parse, fall back with a note, encode round trip; presets fit their pages."""
import importlib

import pytest

from app.ui.query_params import PageParams, Param

SPEC = PageParams("demo", (Param.float("m", 1.0, 0.1, 5.0), Param.int("n", 8, 8, 64),
                           Param.choice("kind", "zoh", ("zoh", "euler")), Param.bool("gamma", True),
                           Param.choice("lr", 0.01, (0.001, 0.01, 0.1))))
PAGES = ["spring", "discretize", "rings", "lru_stability", "propagation"]


def test_good_values_round_trip():
    values = dict(m=2.5, n=32, kind="euler", gamma=False, lr=0.1)
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


@pytest.mark.parametrize("page", PAGES)
def test_every_preset_and_default_fits_the_declared_settings(page):
    mod = importlib.import_module(f"app.ui.settings.{page}")
    for p in mod.SETTINGS.params:
        assert p.valid(p.default), p
    for preset in mod.PRESETS:
        assert preset.values, preset.label
        for name, value in preset.values.items():
            assert mod.SETTINGS[name].valid(value), (preset.label, name, value)

"""A lesson's settings, declared once: widget, label, range, default, and how each travels in the URL — pure.

Every bound is written here and nowhere else: the renderer draws the widget from it, the URL
reader checks links against it, the tests check presets against it.

    SETTINGS = Settings("spring", (
        Setting.slider("m", "mass m", 1.0, 0.1, 5.0, step=0.05),
        Setting.choice("forcing", "forcing f(t)", "impulse", FORCINGS),
        Setting.slider("freq", "sine frequency ω (rad/s)", 1.0, 0.1, 5.0, step=0.05,
                       shown=lambda v: v["forcing"] == "sine"),
    ))

`Settings.read(query)` turns query parameters into values, falling back to the default (with a
note saying why) for anything outside the declared type or range.
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .literal import HIDDEN, literal

TRUE_WORDS, FALSE_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
# A number in a link is ASCII and short: Python's float()/int() also take "1_000", Arabic-Indic or full-width
# digits ("١٢") and 5000-digit strings (int() refuses those with a ValueError of its own) — links never carry
# those, so they are refused here, before any conversion.
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")
NOT_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
MAX_NUMBER_LENGTH = 32
ASCII_SPACE = " \t\n\r\f\v"
KINDS = ("float", "int", "choice", "bool", "text")
WIDGETS = ("slider", "select_slider", "selectbox", "radio", "toggle", "number", "text")


def parse_number(raw: str) -> float:
    """A finite number written in ASCII decimal (sign, digits, point, exponent), at most 32 characters."""
    if NOT_FINITE.fullmatch(raw):
        raise ValueError("not a finite number")
    if len(raw) > MAX_NUMBER_LENGTH:
        raise ValueError(f"a number longer than {MAX_NUMBER_LENGTH} characters")
    if not NUMBER.fullmatch(raw):
        raise ValueError("not a number (ASCII digits only)")
    if re.fullmatch(r"[+-]?[0-9]+", raw):          # exact, even past 2**53 (a float would round it into range)
        return int(raw)
    value = float(raw)
    if not math.isfinite(value):                    # 1e999
        raise ValueError("not a finite number")
    return value


@dataclass(frozen=True)
class Setting:
    """One setting: URL name, value kind and range, and the widget that edits it."""

    name: str                       # URL parameter and key within the page
    label: str                      # widget label (what the learner reads)
    kind: str                       # one of KINDS
    default: Any
    widget: str                     # one of WIDGETS
    low: float | None = None
    high: float | None = None
    step: float | None = None
    options: tuple = ()
    max_length: int = 64            # text only
    help: str | None = None
    format: str | None = None       # printf-style number format of a slider / number box
    option_labels: Mapping | None = None             # choice → what the widget shows
    shown: Callable[[dict], bool] | None = None      # drawn only when this holds for the current values
    high_of: Callable[[dict], float] | None = None   # a tighter upper bound that depends on other settings
    group: str = ""                 # sidebar subheader the widget sits under
    in_main: bool = False           # drawn in the page body (at its place in the chart layout), not the sidebar
    on_change: Callable[[], None] | None = None

    def __post_init__(self):
        assert self.kind in KINDS and self.widget in WIDGETS, (self.kind, self.widget)
        assert self.valid(self.default), f"default of {self.name} outside its own range"

    # --- constructors: one per widget kind --------------------------------------------------
    @classmethod
    def slider(cls, name, label, default, low, high, *, step=None, **kw) -> Setting:
        """A float slider, or an int slider when default, low, high (and step) are all ints."""
        numbers = (default, low, high) + (() if step is None else (step,))
        if all(isinstance(x, int) and not isinstance(x, bool) for x in numbers):
            return cls(name, label, "int", int(default), "slider", int(low), int(high), step, **kw)
        return cls(name, label, "float", float(default), "slider", float(low), float(high), step, **kw)

    @classmethod
    def number(cls, name, label, default, low, high, *, step=None, **kw) -> Setting:
        """A number box (for wide ranges); int when default, low and high are ints."""
        if all(isinstance(x, int) and not isinstance(x, bool) for x in (default, low, high)):
            return cls(name, label, "int", int(default), "number", int(low), int(high), step, **kw)
        return cls(name, label, "float", float(default), "number", float(low), float(high), step, **kw)

    @classmethod
    def choice(cls, name, label, default, options, *, widget="selectbox", **kw) -> Setting:
        """One of `options`, drawn as a selectbox, radio or select_slider."""
        return cls(name, label, "choice", default, widget, options=tuple(options), **kw)

    @classmethod
    def toggle(cls, name, label, default, **kw) -> Setting:
        return cls(name, label, "bool", bool(default), "toggle", **kw)

    @classmethod
    def text(cls, name, label, default, *, max_length=64, **kw) -> Setting:
        return cls(name, label, "text", str(default), "text", max_length=max_length, **kw)

    # --- values ----------------------------------------------------------------------------
    def parse(self, raw: str) -> Any:
        """The value the URL text `raw` stands for; ValueError with a reader-facing reason otherwise."""
        raw = raw.strip(ASCII_SPACE)
        if self.kind == "text":
            if len(raw) > self.max_length:
                raise ValueError(f"longer than {self.max_length} characters")
            if any(unicodedata.category(c) in HIDDEN for c in raw):   # line breaks, bidi overrides, NUL
                raise ValueError("text with a control character")
            return raw
        if self.kind == "choice":
            for option in self.options:
                if raw == self.encode(option):
                    return option
            shown = ", ".join(map(self.encode, self.options[:12])) + (", …" if len(self.options) > 12 else "")
            raise ValueError(f"not one of {shown}")
        if self.kind == "bool":
            if raw.lower() in TRUE_WORDS + FALSE_WORDS:
                return raw.lower() in TRUE_WORDS
            raise ValueError("not true/false")
        value = parse_number(raw)
        if self.kind == "int":
            if value != int(value):
                raise ValueError("not a whole number")
            value = int(value)
        else:
            value = float(value)                    # a float widget refuses an int value
        if not (self.low <= value <= self.high):
            raise ValueError(f"outside [{self.encode(self.low)}, {self.encode(self.high)}]")
        return value

    def encode(self, value: Any) -> str:
        if self.kind == "bool":
            return "1" if value else "0"
        if self.kind == "int":
            return str(int(value))
        if self.kind == "float" or isinstance(value, float):
            return f"{float(value):.10g}"
        return str(value)

    def valid(self, value: Any) -> bool:
        """Whether a widget can hold `value` (type and range), without a text round trip."""
        if self.kind == "text":
            return isinstance(value, str) and len(value) <= self.max_length
        if self.kind == "choice":
            return value in self.options
        if self.kind == "bool":
            return isinstance(value, bool)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return False
        if self.kind == "int" and not isinstance(value, int):
            return False
        return self.low <= value <= self.high

    def upper(self, values: Mapping[str, Any]) -> float | None:
        """The upper bound in force for these values (the declared one, or tighter with `high_of`)."""
        if self.high_of is None:
            return self.high
        return min(self.high, self.high_of(values))


@dataclass(frozen=True)
class Settings:
    """All settings of one page; `page` namespaces their session-state keys."""

    page: str
    params: tuple[Setting, ...]

    def __post_init__(self):
        names = [p.name for p in self.params]
        assert len(set(names)) == len(names), f"{self.page}: a setting name is declared twice"

    def key(self, name: str) -> str:
        return f"{self.page}.{name}"

    @property
    def insight_key(self) -> str:
        """The session key of the last picked preset's insight (the presets' caption: buttons, pills, instrument)."""
        return f"{self.page}.preset.last"

    def __getitem__(self, name: str) -> Setting:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def __contains__(self, name: str) -> bool:
        return any(p.name == name for p in self.params)

    @property
    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def read(self, query: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """Values from a query mapping (str or list of str per name) and one note per rejected value."""
        values, notes = {}, []
        for p in self.params:
            raw = query.get(p.name)
            if isinstance(raw, list | tuple):
                raw = raw[-1] if raw else None
            if raw is None:
                values[p.name] = p.default
                continue
            try:
                values[p.name] = p.parse(str(raw))
            except ValueError as why:
                values[p.name] = p.default
                notes.append(f"{literal(f'{p.name}={raw}')} is {why}; using the default {p.encode(p.default)}.")
        return values, notes

    def encode(self, values: Mapping[str, Any]) -> dict[str, str]:
        return {p.name: p.encode(values[p.name]) for p in self.params}


@dataclass(frozen=True)
class Preset:
    """One click → a complete page state that shows one key insight, and the claim that insight makes.

    A click sets `values` and every other setting back to its default, so a preset always shows the
    same picture whatever the learner did before. `claim` holds check lines on the page's quantities
    (the exercise grammar: `naive_left_disk = 1`, `final_error < 0.05`); tests apply every preset and
    check that its claim holds — across seeds 0..2 when the page has a seed the preset does not pin.
    """

    label: str            # button text, e.g. "🌊 Underdamped"
    values: dict = field(default_factory=dict)   # setting name → value (the rest are the defaults)
    insight: str = ""     # one sentence: what to look at
    claim: tuple[str, ...] = ()                  # check lines that must hold at this state

    def state(self, settings: Settings) -> dict[str, Any]:
        """Every setting's value once this preset is applied."""
        return {**settings.defaults, **self.values}


def freeze(values: dict) -> tuple:
    """A page's settings as a hashable cache key."""
    return tuple(sorted(values.items()))

"""Declared page settings and how they travel in the URL — pure, no streamlit.

A page declares its settings once:

    SETTINGS = PageParams("spring", (
        Param.float("m", 1.0, 0.1, 5.0), Param.choice("forcing", "impulse", FORCINGS), ...))

`PageParams.read(query)` turns a query-parameter mapping into values, falling back to
the default (with a note saying why) for anything missing the declared type or range.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

TRUE_WORDS, FALSE_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclass(frozen=True)
class Param:
    """One setting: URL name, kind, default and the allowed range or options."""

    name: str
    kind: str                      # "float" | "int" | "choice" | "bool"
    default: Any
    low: float | None = None
    high: float | None = None
    options: tuple = field(default_factory=tuple)

    @classmethod
    def float(cls, name, default, low, high):
        return cls(name, "float", float(default), float(low), float(high))

    @classmethod
    def int(cls, name, default, low, high):
        return cls(name, "int", int(default), int(low), int(high))

    @classmethod
    def choice(cls, name, default, options):
        return cls(name, "choice", default, options=tuple(options))

    @classmethod
    def bool(cls, name, default):
        return cls(name, "bool", bool(default))

    def parse(self, raw: str) -> Any:
        """The value the text `raw` stands for; ValueError with a reader-facing reason otherwise."""
        raw = raw.strip()
        if self.kind == "choice":
            for option in self.options:
                if raw == self.encode(option):
                    return option
            raise ValueError(f"not one of {', '.join(map(self.encode, self.options))}")
        if self.kind == "bool":
            if raw.lower() in TRUE_WORDS + FALSE_WORDS:
                return raw.lower() in TRUE_WORDS
            raise ValueError("not true/false")
        try:
            value = float(raw)
        except ValueError:
            raise ValueError("not a number") from None
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        if self.kind == "int":
            if value != int(value):
                raise ValueError("not a whole number")
            value = int(value)
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
        if self.kind == "choice":
            return value in self.options
        if self.kind == "bool":
            return isinstance(value, bool)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return False
        if self.kind == "int" and not isinstance(value, int):
            return False
        return self.low <= value <= self.high


@dataclass(frozen=True)
class PageParams:
    """All settings of one page; `page` namespaces their session-state keys."""

    page: str
    params: tuple[Param, ...]

    def key(self, name: str) -> str:
        return f"{self.page}.{name}"

    def __getitem__(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

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
                notes.append(f"`{p.name}={str(raw)[:40]}` is {why}; using the default {p.encode(p.default)}.")
        return values, notes

    def encode(self, values: Mapping[str, Any]) -> dict[str, str]:
        return {p.name: p.encode(values[p.name]) for p in self.params}


@dataclass(frozen=True)
class Preset:
    """One click → a set of page settings that shows one key insight."""

    label: str            # button text, e.g. "🌊 Underdamped"
    values: dict          # setting name → value (a subset of the page's params)
    insight: str          # one sentence: what to look at

"""LCSM model codes `e-o-s-a` (paper §2.5).

e, s ∈ {0 data-independent, 1 data-dependent}; o ∈ 0..11 (Table 3); a ∈ 0..7
(Table 2, applied to e and s). The bare code "0" is the SSM parameterization.
"""
from __future__ import annotations

from dataclasses import dataclass

from .activations import ACTIVATIONS

OSCILLATIONS = {
    0: "k×d matrix, data-independent",
    1: "outer product of a data-dependent k-vector and a data-dependent d-vector",
    2: "data-dependent d-vector broadcast to k×d",
    3: "data-dependent k-vector broadcast to k×d",
    4: "data-independent k-vector broadcast",
    5: "data-independent d-vector broadcast",
    6: "data-independent k-vector ⊙ data-dependent k×d matrix",
    7: "data-independent d-vector ⊙ data-dependent k×d matrix",
    8: "outer product: data-independent k, data-dependent d",
    9: "outer product: data-dependent k, data-independent d",
    10: "all ones (no decay)",
    11: "exp(iΘ) 1_dᵀ, complex, data-independent",
}
FIELDS = (("e", (0, 1), "0 (data-independent) or 1 (data-dependent)"),
          ("o", tuple(OSCILLATIONS), "0..11 (LCSM Table 3)"),
          ("s", (0, 1), "0 (data-independent) or 1 (data-dependent)"),
          ("a", tuple(ACTIVATIONS), "0..7 (LCSM Table 2)"))


@dataclass(frozen=True)
class ModelCode:
    e: int | None
    o: int | None
    s: int | None
    a: int | None

    @property
    def is_ssm(self) -> bool:
        return self.o is None

    def __str__(self) -> str:
        return "0" if self.is_ssm else f"{self.e}-{self.o}-{self.s}-{self.a}"

    def describe(self) -> str:
        if self.is_ssm:
            return ("SSM parameterization: a bank of d SISO SSMs (DSS), diagonal complex A shared, "
                    "Δ, B, C per channel, zero-order hold")
        dd = lambda v: "data-dependent" if v else "data-independent"
        return (f"expand {dd(self.e)}, oscillation: {OSCILLATIONS[self.o]}, shrink {dd(self.s)}, "
                f"activation {ACTIVATIONS[self.a][0]}")


SSM_CODE = ModelCode(None, None, None, None)


MAX_FIELD_DIGITS = 4
SHOWN_CHARS = 40


def _shown(text: str) -> str:
    """repr of a piece of the code, cut short: a message is read, not scrolled."""
    return repr(text) if len(text) <= SHOWN_CHARS else repr(text[:SHOWN_CHARS]) + f"… ({len(text)} characters)"


def parse_code(code) -> ModelCode:
    """Parse "e-o-s-a" (or the bare "0"). Raises ValueError naming the bad field."""
    if not isinstance(code, str):
        raise ValueError(f"a model code is a string like '1-9-1-0', got {type(code).__name__}")
    text = code.strip().replace("–", "-").replace("—", "-")
    if not text:
        raise ValueError("the model code is empty; write four fields e-o-s-a like '1-9-1-0', or '0'")
    if text == "0":
        return SSM_CODE
    parts = [p.strip() for p in text.split("-")]
    if len(parts) != 4:
        raise ValueError(f"model code {_shown(code)} must have four fields e-o-s-a (like '1-9-1-0') or be '0'; "
                         f"found {len(parts)} field(s)")
    values = []
    shown = _shown(code)
    for part, (name, allowed, meaning) in zip(parts, FIELDS):
        if not (part.isascii() and part.isdigit()):
            raise ValueError(f"model code {shown}: field {name} is {_shown(part)}, not a whole number; "
                             f"allowed: {meaning}")
        # Every allowed value has at most two digits: a longer field is out of range without being read (int()
        # of a 5000-digit string is refused by Python's own digit limit, with a message naming no field).
        value = int(part) if len(part) <= MAX_FIELD_DIGITS else None
        if value not in allowed:
            value_text = value if value is not None else f"a {len(part)}-digit number"
            raise ValueError(f"model code {shown}: field {name} = {value_text} is out of range; allowed: {meaning}")
        values.append(value)
    return ModelCode(*values)


def all_codes() -> list[str]:
    """All 2 × 12 × 2 × 8 = 384 four-field codes."""
    return [f"{e}-{o}-{s}-{a}" for e in (0, 1) for o in OSCILLATIONS for s in (0, 1) for a in ACTIVATIONS]

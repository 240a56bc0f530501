"""The one registry of model variants."""
from __future__ import annotations

from .base import EOSLayer

VARIANT_CLASSES: dict[str, type[EOSLayer]] = {}


def register(cls: type[EOSLayer]) -> type[EOSLayer]:
    name = cls.info.name
    if name in VARIANT_CLASSES:
        raise ValueError(f"variant {name!r} registered twice")
    VARIANT_CLASSES[name] = cls
    return cls


def build_layer(name: str, d_model: int, expand_dim: int, **options) -> EOSLayer:
    """A registered variant as a torch module: forward(x (B, T, d_model)) -> (B, T, d_model).

    options: form ("auto", "chunked", "recurrent", ...), chunk_size, and the
    variant's own (tau for gated decays, decay for RetNet, ...).
    Raises ValueError for an unknown name, bad options, or widths too large to allocate (see sizes.py).
    """
    if not isinstance(name, str) or name not in VARIANT_CLASSES:
        raise ValueError(f"unknown variant {name!r}; choose from {', '.join(VARIANT_CLASSES)}")
    try:
        return VARIANT_CLASSES[name](d_model, expand_dim, **options)
    except TypeError as err:
        raise ValueError(f"bad options for variant {name!r}: {err}") from None


def variant_table() -> list[dict]:
    """One row per variant: name, family, i/e/o/s, psi, data dependence."""
    rows = []
    for cls in VARIANT_CLASSES.values():
        info = cls.info
        rows.append({"name": info.name, "method": info.label, "family": info.family, "i": info.i, "e": info.e,
                     "o": info.o, "s": info.s, "psi": info.psi,
                     "data-dependent": info.data_dependent or "none", "note": info.note})
    return rows

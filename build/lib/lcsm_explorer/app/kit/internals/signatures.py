"""Whether a library's private methods are still there with the parameters the app passes them.

The start-up self-check (`self_check.py`) asks this of every private method the app replaces or calls: a method
renamed, removed or given other parameters by an upgrade is reported, and the app takes the public path instead
of calling it with arguments it no longer takes.
"""
from __future__ import annotations

import inspect


def parameter_names(function) -> tuple[str, ...] | None:
    """The names of `function`'s parameters in order (None: not a function, or its signature cannot be read)."""
    try:
        return tuple(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None


def missing_methods(owners: dict[str, type], needed: dict[tuple[str, str], tuple[str, ...]]) -> list[str]:
    """Each of `needed` — (class name, method name) → the parameter names it must have, in order — that the class
    in `owners` lacks or has with other parameters, as "Class.method(a, b)" (empty: all are there)."""
    found = []
    for (owner, name), parameters in needed.items():
        method = getattr(owners[owner], name, None)
        if method is None or parameter_names(method) != parameters:
            found.append(f"{owner}.{name}({', '.join(parameters)})")
    return found


def has_parameters(function, needed: tuple[str, ...]) -> bool:
    """Whether `function` takes each of the parameters `needed` by name (keyword arguments the app passes)."""
    names = parameter_names(function)
    return names is not None and set(needed) <= set(names)


def nothing_missing(missing) -> bool:
    """Whether `missing()` (an area's own check) finds nothing; a check that raises counts as a missing internal."""
    try:
        return not missing()
    except Exception:                                  # noqa: BLE001 — a check that fails is a missing internal
        return False

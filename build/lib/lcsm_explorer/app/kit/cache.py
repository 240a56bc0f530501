"""The one cache convention of the app: `@cached`, an in-process LRU bounded by BYTES and shared by every session.

The renderer caches every lesson's `compute`, its charts (as finished JSON specs) and its preview families with
it, keyed on (page, settings). A lesson uses it itself only for an expensive step that depends on fewer settings
than the whole page (e.g. a grid that does not move with a slider), so that moving that slider stays fast.

Why not `st.cache_data`: it pickles a value on every store and unpickles it on every hit (a copy per rerun of
every figure and result), and bounds entries, not memory. Here:

- one budget for the process, `LCSM_CACHE_MB` (default `DEFAULT_MB`), split between named stores by `SHARES`
  (results of `compute`, chart specs, preview families, small things such as lesson texts); each store evicts
  its least recently used entries past its share. A value's size is measured once, when stored
  (`measured_size`: the length of a string, the bytes of an array, a pickle-length estimate otherwise);
- values are shared, not copied: treat what a cached function returns as immutable;
- single flight: sessions asking for the same key at once compute it once, the others wait for it;
- arguments whose name starts with "_" are not part of the key (as with st.cache_data); the others must be
  hashable (lists and dicts are frozen into tuples); exceptions are not cached;
- `fn.clear()` forgets one function's entries, `clear_all()` every entry (tests); `fn.remember(value, *args)`
  keeps a value computed elsewhere as `fn(*args)`'s (the results a preview worker computed for its family).
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

DEFAULT_MB = 192
SHARES = {"results": 0.45, "charts": 0.25, "previews": 0.25, "small": 0.05}
UNMEASURED = 4096          # bytes counted for a value that neither walks nor pickles


def budget_bytes() -> int:
    """The whole process's cache budget in bytes, from LCSM_CACHE_MB (a bad value: the default)."""
    try:
        mb = float(os.environ.get("LCSM_CACHE_MB", DEFAULT_MB))
    except ValueError:
        mb = DEFAULT_MB
    return int(max(mb, 1.0) * 2**20)


def measured_size(value: Any, _depth: int = 0) -> int:
    """About how many bytes `value` holds: exact for strings, bytes and arrays, summed through containers and
    dataclasses, a pickle's length for anything else."""
    if isinstance(value, str | bytes | bytearray):
        return len(value) + 50
    if isinstance(value, np.ndarray):
        return value.nbytes + 100
    if value is None or isinstance(value, bool | int | float | complex | np.generic):
        return 32
    if _depth < 6:
        if isinstance(value, dict):
            return 64 + sum(measured_size(k, _depth + 1) + measured_size(v, _depth + 1) for k, v in value.items())
        if isinstance(value, list | tuple | set | frozenset):
            return 56 + sum(measured_size(v, _depth + 1) for v in value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return 64 + sum(measured_size(getattr(value, f.name), _depth + 1) for f in dataclasses.fields(value))
    try:
        return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:                                      # noqa: BLE001 - anything that does not pickle
        return UNMEASURED


class ByteLRU:
    """A thread-safe LRU of (key → value) holding at most `budget` measured bytes, with single-flight fills."""

    def __init__(self, name: str, budget: int):
        self.name, self.budget = name, budget
        self.size = 0
        self._entries: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._filling: dict[Any, threading.Event] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, key, default=None):
        """The value at `key` (now the most recently used), else `default`; never computes."""
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return default
            self._entries.move_to_end(key)
            return found[0]

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._entries

    def get_or_compute(self, key, compute: Callable[[], Any]):
        """The value at `key`, computed by `compute()` when missing; a second caller asking for a key being
        computed waits for that computation instead of repeating it."""
        while True:
            with self._lock:
                found = self._entries.get(key)
                if found is not None:
                    self._entries.move_to_end(key)
                    return found[0]
                waiting = self._filling.get(key)
                if waiting is None:
                    done = self._filling[key] = threading.Event()
                    break
            waiting.wait()                                 # another session computes it: take theirs (or retry)
        try:
            value = compute()
            self.put(key, value)
            return value
        finally:
            with self._lock:
                del self._filling[key]
            done.set()

    def put(self, key, value, size: int | None = None) -> None:
        """Store `value` (its size measured now unless given), evicting the least recently used past the budget.
        A value larger than the whole budget is not kept."""
        size = measured_size(value) if size is None else size
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= old[1]
            if size > self.budget:
                return
            self._entries[key] = (value, size)
            self.size += size
            while self.size > self.budget:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.size -= dropped

    def forget(self, keep: Callable[[Any], bool] = lambda key: False) -> None:
        """Drop every entry whose key `keep` refuses (default: all)."""
        with self._lock:
            for key in [k for k in self._entries if not keep(k)]:
                self.size -= self._entries.pop(key)[1]


STORES: dict[str, ByteLRU] = {name: ByteLRU(name, int(budget_bytes() * share)) for name, share in SHARES.items()}


def clear_all() -> None:
    for store in STORES.values():
        store.forget()


def frozen(value):
    """A hashable stand-in for an argument: lists and tuples as tuples, dicts and sets as sorted tuples."""
    if isinstance(value, list | tuple):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, frozen(v)) for k, v in value.items())))
    if isinstance(value, set | frozenset):
        return ("set", tuple(sorted(frozen(v) for v in value)))
    return value


def cached(fn=None, *, store: str = "results", max_entries: int | None = None):
    """Decorate `fn` to keep its results in the byte-bounded store `store` (see `SHARES`).

    `max_entries` is accepted for older call sites and ignored: the bound is the store's bytes."""
    del max_entries

    def decorate(function):
        signature = inspect.signature(function)
        keyed = [name for name in signature.parameters if not name.startswith("_")]
        lru = STORES[store]
        tag = f"{function.__module__}.{function.__qualname__}"

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            key = (tag, tuple(frozen(bound.arguments[name]) for name in keyed))
            return lru.get_or_compute(key, lambda: function(*args, **kwargs))

        def remember(value, *args, size: int | None = None, **kwargs) -> None:
            """Keep `value` as what `fn(*args, **kwargs)` returns, made elsewhere (a preview worker computed it),
            unless that is known already."""
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            key = (tag, tuple(frozen(bound.arguments[name]) for name in keyed))
            if key not in lru:
                lru.put(key, value, size)

        wrapper.clear = lambda: lru.forget(keep=lambda key: key[0] != tag)
        wrapper.remember = remember
        wrapper.store = lru
        return wrapper

    return decorate if fn is None else decorate(fn)

"""The byte-bounded shared cache (`app/kit/cache.py`): its budget holds, it evicts the least recently used, two
threads asking for one key compute it once, and `@cached` keys on the arguments not named with "_"."""
from __future__ import annotations

import threading
import time

import numpy as np

from lcsm_explorer.app.kit.cache import ByteLRU, cached, measured_size


def test_sizes_are_measured_from_what_a_value_holds():
    assert measured_size("x" * 10_000) >= 10_000
    assert measured_size(np.zeros(1000)) >= 8000
    assert measured_size({"a": np.zeros(1000), "b": ["y" * 500]}) >= 8500
    assert measured_size(object()) > 0                      # neither walks nor pickles cleanly: a stated guess


def test_the_cache_never_holds_more_than_its_budget_and_drops_the_least_recently_used():
    lru = ByteLRU("test", budget=10_000)
    for n in range(5):
        lru.put(n, "x" * 2_900)
        assert lru.size <= lru.budget
    assert 0 not in lru and 1 not in lru and 4 in lru      # three of ~2950 bytes fit
    lru.lookup(2)                                           # 2 is now the most recent: 3 goes first
    lru.put(5, "x" * 2_900)
    assert 2 in lru and 3 not in lru and 5 in lru and lru.size <= lru.budget
    lru.put(6, "x" * 20_000)                                # larger than the whole budget: not kept
    assert 6 not in lru and lru.size <= lru.budget


def test_two_threads_asking_for_one_key_compute_it_once():
    lru = ByteLRU("test", budget=1 << 20)
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.3)
        return "value"

    got = []
    threads = [threading.Thread(target=lambda: got.append(lru.get_or_compute("k", slow))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == ["value"] * 4 and len(calls) == 1


def test_a_failed_computation_is_not_cached_and_a_waiter_tries_again():
    lru = ByteLRU("test", budget=1 << 20)
    outcomes = iter([ValueError("no"), "fine"])

    def flaky():
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    try:
        lru.get_or_compute("k", flaky)
    except ValueError:
        pass
    assert "k" not in lru and lru.get_or_compute("k", flaky) == "fine"


def test_cached_keys_on_the_arguments_and_shares_the_value():
    calls = []

    @cached(store="small")
    def doubled(values: tuple, _unkeyed=None):
        calls.append(values)
        return [2 * v for v in values]

    first = doubled((1, 2), _unkeyed=object())
    assert doubled((1, 2), _unkeyed=object()) is first      # no copy on a hit: the value is shared
    assert doubled((1, 3)) == [2, 6] and len(calls) == 2
    doubled.clear()
    doubled((1, 2))
    assert len(calls) == 3

"""A preview family brings its members' compute results back from the worker: the page at a member's value (where
a drag's release lands) is then computed already, in every session of the process."""
from __future__ import annotations

import dataclasses

import pytest

from app.kit.cache import clear_all
from app.kit.preview import FAMILIES, family_key, store_family
from app.kit.preview_pool import RESULTS_BYTES, compute_family
from app.kit.render import computed, freeze
from app.lessons import lesson


def refusing(page: str):
    def compute(values):
        raise AssertionError(f"{page} computed again at {values}")
    return dataclasses.replace(lesson(page), compute=compute)


@pytest.mark.parametrize("page", ["spring", "rings"])
def test_a_release_on_a_member_finds_its_page_computed(page):
    clear_all()
    spec = lesson(page)
    key = family_key(spec, freeze(spec.settings.defaults))
    members, results, size, members_size = compute_family(*key)
    assert 0 < size <= RESULTS_BYTES and set(results) == {m["value"] for m in members} and members_size > 0
    store_family(key, members, results, size, members_size)
    assert key in FAMILIES
    for member in members:
        values = {**dict(key[1]), spec.sweep.setting: member["value"]}
        assert computed(page, freeze(values), refusing(page)) is results[member["value"]]
    clear_all()


def test_results_too_large_to_copy_stay_in_the_worker(monkeypatch):
    from app.kit import preview_pool
    monkeypatch.setattr(preview_pool, "RESULTS_BYTES", 10)
    spec = lesson("spring")
    members, results, size, _ = compute_family(*family_key(spec, freeze(spec.settings.defaults)))
    assert members and results == {} and size == 0

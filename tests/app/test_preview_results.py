"""A preview family brings its members' compute results back from the worker: the page at a member's value (where
a drag's release lands) is then computed already, in every session of the process."""
from __future__ import annotations

import dataclasses
import pickle

import pytest

from lcsm_explorer.app.kit.cache import clear_all
from lcsm_explorer.app.kit.preview import FAMILIES, family_key, store_pickled
from lcsm_explorer.app.kit.preview_pool import RESULTS_BYTES, compute_family
from lcsm_explorer.app.kit.render import computed, freeze
from lcsm_explorer.app.lessons import lesson


def refusing(page: str):
    def compute(values):
        raise AssertionError(f"{page} computed again at {values}")
    return dataclasses.replace(lesson(page), compute=compute)


@pytest.mark.parametrize("page", ["spring", "rings"])
def test_a_release_on_a_member_finds_its_page_computed(page):
    clear_all()
    spec = lesson(page)
    key = family_key(spec, freeze(spec.settings.defaults))
    family, sent = compute_family(*key)                    # each pickled once, in the worker
    results, members = pickle.loads(sent), pickle.loads(family).members
    assert 0 < len(sent) <= RESULTS_BYTES and set(results) == {m["value"] for m in members}
    store_pickled(key, family, sent)
    assert key in FAMILIES and FAMILIES.lookup(key).members == members
    for member in members:                                 # kept as computed: refusing() is never called
        values = {**dict(key[1]), spec.sweep.setting: member["value"]}
        found = computed(page, freeze(values), refusing(page))
        assert pickle.dumps(found) == pickle.dumps(results[member["value"]])
    clear_all()


def test_results_too_large_to_copy_stay_in_the_worker(monkeypatch):
    from lcsm_explorer.app.kit import preview_pool
    monkeypatch.setattr(preview_pool, "RESULTS_BYTES", 10)
    spec = lesson("spring")
    family, sent = compute_family(*family_key(spec, freeze(spec.settings.defaults)))
    assert pickle.loads(family).members and sent == b""


def test_a_held_move_waits_for_its_family_and_is_not_computed_again(monkeypatch):
    """`preview.family_first` (before the page computes): the family's results make the page's own where the
    current value is a member, so a held move computes the page once, in the worker."""
    from lcsm_explorer.app.kit import preview, preview_pool
    clear_all()
    monkeypatch.setenv("LCSM_PREVIEW_MAX_LOAD", "1e9")
    monkeypatch.setattr(preview_pool, "MAX_QUEUED", 10**6)   # families earlier tests left queued in the process's
    #                                                           pool (AppTest moves) must not shed this one
    monkeypatch.setenv("LCSM_FAMILY_WAIT_MS", "180000")     # a worker starting on a loaded test machine
    spec = lesson("rings")
    values = {**spec.settings.defaults, "r_min": 0.25, "r_max": 0.9}   # 0.9: a member of the sweep
    frozen = freeze(values)
    preview.family_first(spec, frozen)
    assert family_key(spec, frozen) in FAMILIES
    computed("rings", frozen, refusing("rings"))             # kept from the family: not computed here
    assert preview.waited_preview(spec, frozen, False) is not None
    clear_all()


def test_without_a_pool_the_family_computed_in_the_session_keeps_its_results_too(monkeypatch):
    """LCSM_PREVIEW_WORKERS=0 (a laptop): `preview.inline_family` computes the family after the page is drawn and
    keeps its members' results as the pool's are kept, so a release on a member is not computed again."""
    from lcsm_explorer.app.kit import preview
    from lcsm_explorer.app.kit.classroom import ClassroomView
    clear_all()
    monkeypatch.setenv("LCSM_PREVIEW_WORKERS", "0")
    spec = lesson("spring")
    frozen = freeze(spec.settings.defaults)
    from lcsm_explorer.app.kit import instrument
    monkeypatch.setattr(instrument, "mount", lambda *args: None)       # what is drawn is not this test's business
    preview.inline_family(spec, frozen, ClassroomView(), _Slot(), dict(frozen), {})()
    members = FAMILIES.lookup(family_key(spec, frozen)).members
    for member in members:
        values = {**spec.settings.defaults, spec.sweep.setting: member["value"]}
        computed("spring", freeze(values), refusing("spring"))
    clear_all()


class _Slot:
    """A stand-in for the st.empty() the instrument is drawn in."""
    def container(self):
        import contextlib
        return contextlib.nullcontext()


def test_a_committed_move_to_a_family_member_reruns_the_instrument_alone_in_twelve_files():
    """benchmarks/move_trace.py, through the app as the README starts it: a move of spring's c to the family's next
    member, committed as the instrument commits it once the family is in, reruns the instrument's fragment alone;
    that run draws no chart and computes nothing (the browser moves its charts to the member, whose numbers the
    family brought), and it and the component's JS are at most 12 of the project's files."""
    from benchmarks.move_trace import COMPONENT_JS, traced_move
    value, fragment, files = traced_move("spring", "c")
    assert fragment, "the move reran the whole page"
    assert set(COMPONENT_JS) <= files and "app/kit/instrument_page.py" in files
    drawing = {"app/kit/chart_element.py", "app/kit/sweep_figure.py", "app/kit/figure_style.py",
               "app/kit/chart_text.py", "app/kit/page_charts.py", "app/kit/page_text.py"}
    assert not drawing & files and not any(f.startswith(("lcsm_core/", "lcsm_serving/")) for f in files), sorted(files)
    assert len(files) <= 12, sorted(files)

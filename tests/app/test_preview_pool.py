"""The preview pool (`app/kit/preview_pool.py`): a family is computed once however many ask, lands in the shared
cache, new families are shed when the machine is busy, and the worker never outlives the web process."""
from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

from lcsm_explorer.app.kit import preview
from lcsm_explorer.app.kit.preview_pool import PreviewPool
from lcsm_explorer.app.kit.sweep import sweep_family
from lcsm_explorer.app.lessons import lesson
from tests.app.test_sweep import held

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_family_is_computed_once_off_the_request_path_and_shared(monkeypatch):
    monkeypatch.setenv("LCSM_PREVIEW_MAX_LOAD", "1e9")
    done = []
    pool = PreviewPool(1, lambda key, members, *results: done.append((key, members)))
    key = ("spring", tuple(sorted(held("spring", k=3.0).items())))
    assert pool.request(key) and pool.request(key) and pool.pending(key)     # the second ask joins the first
    deadline = time.monotonic() + 180
    while not done and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(done) == 1 and not pool.pending(key)
    family = pickle.loads(done[0][1])                                          # pickled once, in the worker
    assert [m["value"] for m in family.members] == [m["value"] for m in sweep_family(lesson("spring"), dict(key[1]))]


def test_a_busy_machine_sheds_new_families(monkeypatch):
    monkeypatch.setenv("LCSM_PREVIEW_MAX_LOAD", "-1")                       # any load is "busy"
    pool = PreviewPool(1, lambda key, members, *results: None)
    assert pool.request(("spring", (("k", 9.0),))) is None and pool.backlog() == 0
    assert pool._executor is None                                           # nothing was started for it


def test_a_worker_keeps_a_quarter_of_the_cache_budget(monkeypatch):
    from lcsm_explorer.app.kit.cache import budget_bytes
    monkeypatch.setenv("LCSM_CACHE_MB", "160")
    pool = PreviewPool(1, lambda key, members, *results: None)
    try:
        assert pool._pool().submit(budget_bytes).result(timeout=120) == 40 * 2**20
    finally:
        pool._executor.shutdown(cancel_futures=True)


def test_a_worker_freezes_its_heap_at_its_first_family_and_the_test_process_does_not(monkeypatch):
    """A full collection in the worker walks every object of torch, plotly and the lessons (~190 ms) unless they
    are frozen once imported; only a worker does it (a web process freezes in `web_process.prepare`)."""
    import gc

    from lcsm_explorer.app.kit.preview_pool import compute_family
    monkeypatch.setenv("LCSM_PREVIEW_MAX_LOAD", "1e9")
    pool = PreviewPool(1, lambda key, members, *results: None)
    try:
        assert pool._pool().submit(gc.get_freeze_count).result(timeout=180) == 0      # started: nothing yet
        key = ("spring", tuple(sorted(held("spring", k=4.0).items())))
        pool._pool().submit(compute_family, *key).result(timeout=180)
        assert pool._pool().submit(gc.get_freeze_count).result(timeout=180) > 100_000
    finally:
        pool._executor.shutdown(cancel_futures=True)
    frozen = gc.get_freeze_count()
    compute_family("spring", tuple(sorted(held("spring", k=4.5).items())))        # in this process: no freeze
    assert gc.get_freeze_count() == frozen


def test_the_family_store_is_the_byte_bounded_cache():
    assert preview.FAMILIES.budget > 0 and preview.FAMILIES.name == "previews"


def test_the_worker_exits_when_the_web_process_is_killed():
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {ROOT!r})
        from lcsm_explorer.app.kit.preview_pool import PreviewPool
        pool = PreviewPool(1, lambda key, members, *results: None)
        executor = pool._pool()
        print(*executor._processes, flush=True)
        time.sleep(600)
    """)
    web = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        workers = [int(pid) for pid in web.stdout.readline().split()]
        assert workers and all(alive(pid) for pid in workers)
        os.kill(web.pid, signal.SIGKILL)
        web.wait()
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(alive(pid) for pid in workers), "a preview worker outlived its web process"
    finally:
        if web.poll() is None:
            web.kill()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:                                                                     # a zombie child of someone else
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_waiter_wakes_when_its_family_is_stored_not_after_its_timeout(monkeypatch):
    monkeypatch.setenv("LCSM_PREVIEW_MAX_LOAD", "1e9")
    stored = []
    pool = PreviewPool(1, lambda key, members, *results: stored.append(key))
    key = ("spring", tuple(sorted(held("spring", k=2.5).items())))
    assert pool.request(key)
    assert pool.wait(key, 180) and stored == [key]          # on_done ran before the waiter was woken
    assert not pool.pending(key)
    assert pool.wait(key, 0)                                # nothing queued: true with no time to wait at all


def test_one_visitors_burst_waits_behind_one_family_of_each_learner(monkeypatch):
    """The lines are served in turn, the newest of each first; a visitor keeps `PER_VISITOR` families waiting, a newer
    one replacing their oldest (whoever waited for it wakes); warm-up families come last."""
    from lcsm_explorer.app.kit.preview_pool import MAX_QUEUED, PER_VISITOR, WARM
    monkeypatch.setenv("LCSM_PREVIEW_MAX_LOAD", "1e9")
    pool = PreviewPool(1, lambda key, members, *results: None)
    pool._running = 1                                              # the worker is busy: everything waits
    burst = [("spring", (("k", float(k)),)) for k in range(10)]
    assert pool.request(("spring", (("warm", 1.0),)), priority=WARM)
    assert all(pool.request(key, visitor="address:hostile") for key in burst)   # coalesced, never refused
    assert pool.backlog() == PER_VISITOR and not pool.pending(burst[0]) and pool.pending(burst[-1])
    assert pool.wait(burst[0], timeout=0)                          # a replaced family's waiter is not kept waiting
    learners = [("rings", (("r", float(n)),)) for n in range(3)]
    for n, key in enumerate(learners):
        assert pool.request(key, visitor=f"browser:{n}")
    with pool._lock:
        order = [pool._next() for _ in range(PER_VISITOR + len(learners) + 1)]
    assert order == [burst[-1], *learners, burst[-2], ("spring", (("warm", 1.0),))]
    crowd = PreviewPool(1, lambda key, members, *results: None)
    crowd._running = 1
    answers = [crowd.request(("spring", (("n", float(n)),)), visitor=f"browser:{n}") for n in range(MAX_QUEUED + 1)]
    assert answers == [True] * MAX_QUEUED + [None]                 # past the queue's length: shed, the page says so

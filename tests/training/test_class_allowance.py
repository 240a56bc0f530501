"""A class behind one address (a school's NAT) has its own allowance (issue 24 with 19): a learner who joined a class
is counted per (class, learner token) within the class's budget, so 30 learners on one address can each press
▶ Play; a visitor with no class keeps the per-address quota; the class's own cap holds across processes."""
import subprocess
import sys
import textwrap

import pytest

from lcsm_serving import RunStore
from lcsm_serving.admission import (
    AdmissionPolicy,
    AdmissionRefused,
    class_visitor_key,
    visitor_address,
    visitor_class,
    visitor_hash,
)
from lcsm_serving.class_store import ClassStore
from lcsm_serving.store import PlaceTaken
from tests.training.conftest import ROOT
from tests.training.tiny import tiny_config

SCHOOL = "203.0.113.50"                         # one NAT address for the whole class
CLASS = "ABCDEF"


def submit(store, owner, visitor, policy, cost_s=60.0, max_queue=100):
    return store.submit_job(tiny_config().to_dict(), "run", owner, False, 1, max_queue, visitor=visitor, cost_s=cost_s,
                            admission=policy)


def test_a_class_learner_is_keyed_by_class_and_learner_and_keeps_the_address_it_was_seen_at():
    alice, bob = class_visitor_key(SCHOOL, CLASS, "token-a"), class_visitor_key(SCHOOL, CLASS, "token-b")
    assert visitor_class(alice) == CLASS and visitor_address(alice) == SCHOOL and "token-a" not in alice
    assert visitor_hash(alice) != visitor_hash(bob) != visitor_hash(SCHOOL)
    assert visitor_hash(alice) == visitor_hash(class_visitor_key("198.51.100.1", CLASS, "token-a"))   # roams
    assert visitor_class(SCHOOL) is None and visitor_address(SCHOOL) == SCHOOL
    assert class_visitor_key("127.0.0.1", CLASS, "token-a") == "127.0.0.1"                # the operator stays one
    assert visitor_hash(class_visitor_key("local", CLASS, "t")) is None
    assert visitor_class("class:ABCDEF:not-hex@1.2.3.4") is None                         # only the server's shape


def test_thirty_learners_of_a_class_on_one_address_each_play_a_visitor_without_a_class_cannot(tmp_path):
    store, policy = RunStore(tmp_path / "runs.sqlite"), AdmissionPolicy()
    learners = [submit(store, f"tab-{i}", class_visitor_key(SCHOOL, CLASS, f"learner-{i}"), policy, max_queue=200)
                for i in range(30)]                      # (a queue of 200: the class's share of it is 50)
    assert len(set(learners)) == 30
    with pytest.raises(PlaceTaken):                                                      # still one place a tab
        submit(store, "tab-0", class_visitor_key(SCHOOL, CLASS, "learner-0"), policy, max_queue=200)
    submit(store, "solo-1", SCHOOL, policy)
    submit(store, "solo-2", SCHOOL, policy)
    with pytest.raises(AdmissionRefused, match="your address already has 2"):            # the address's own quota
        submit(store, "solo-3", SCHOOL, policy)
    with store._lock:
        classes = {r[0] for r in store._db.execute("SELECT class_code FROM runs WHERE id IN (%s)"
                                                   % ",".join(map(str, learners)))}
    assert classes == {CLASS}


def test_a_class_is_bounded_by_its_own_cap_and_budget_and_a_learner_by_the_visitor_quota(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    capped = AdmissionPolicy(class_max_active=3, visitor_max_active=1)
    for i in range(3):
        submit(store, f"tab-{i}", class_visitor_key(SCHOOL, CLASS, f"learner-{i}"), capped)
    with pytest.raises(AdmissionRefused, match="your class already has 3"):
        submit(store, "tab-3", class_visitor_key(SCHOOL, CLASS, "learner-3"), capped)
    submit(store, "other-class", class_visitor_key(SCHOOL, "GHJKLM", "learner-3"), capped)   # another class
    with pytest.raises(AdmissionRefused, match="your address already has 1"):            # one learner, two tabs
        submit(store, "tab-0-again", class_visitor_key(SCHOOL, CLASS, "learner-0"), capped)

    budget = AdmissionPolicy(class_budget_s=1000, class_max_active=100)
    fresh = RunStore(tmp_path / "other.sqlite")
    for i in range(3):
        submit(fresh, f"tab-{i}", class_visitor_key(SCHOOL, CLASS, f"learner-{i}"), budget, cost_s=300)
    with pytest.raises(AdmissionRefused, match="your class has used 15 min of its 17 min"):
        submit(fresh, "tab-3", class_visitor_key(SCHOOL, CLASS, "learner-3"), budget, cost_s=300)


def test_a_class_learners_grid_counts_in_the_class(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    policy = AdmissionPolicy(class_max_active=1)
    cells = [(tiny_config().to_dict(), "cell", 10.0)] * 3
    store.admit_grid("g1", cells, "grid:g1", class_visitor_key(SCHOOL, CLASS, "learner-0"), policy)
    with pytest.raises(AdmissionRefused, match="your class already has 1"):
        submit(store, "tab-1", class_visitor_key(SCHOOL, CLASS, "learner-1"), policy)


def test_fresh_learner_tokens_make_no_new_class_quota_for_an_address(tmp_path):
    classes = ClassStore(tmp_path / "runs.sqlite")
    policy = AdmissionPolicy(visitor_max_classes=1)
    classes.create_class(visitor=class_visitor_key(SCHOOL, CLASS, "learner-0"), policy=policy)
    with pytest.raises(ValueError, match="this address has created 1 classes"):
        classes.create_class(visitor=class_visitor_key(SCHOOL, CLASS, "learner-1"), policy=policy)


RACER = textwrap.dedent("""
    import os, sys, time
    from lcsm_serving import RunStore
    from lcsm_serving.admission import AdmissionPolicy, AdmissionRefused, class_visitor_key
    from tests.training.tiny import tiny_config
    store = RunStore(sys.argv[1])
    visitor = class_visitor_key("203.0.113.50", "ABCDEF", sys.argv[2])
    print("ready", flush=True)
    while not os.path.exists(sys.argv[3]):           # both racers ready: go together
        time.sleep(0.001)
    try:
        store.submit_job(tiny_config().to_dict(), "run", sys.argv[2], False, 1, 100, visitor=visitor, cost_s=60.0,
                         admission=AdmissionPolicy(class_max_active=2))
        print("admitted")
    except AdmissionRefused as err:
        print("refused:", err)
""")


def test_two_web_processes_cannot_both_take_the_classs_last_place(tmp_path, subprocess_env):
    db, go = tmp_path / "runs.sqlite", tmp_path / "go"
    submit(RunStore(db), "tab-0", class_visitor_key(SCHOOL, CLASS, "learner-0"), AdmissionPolicy(class_max_active=2))
    racers = [subprocess.Popen([sys.executable, "-c", RACER, str(db), f"learner-{i}", str(go)], env=subprocess_env,
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
              for i in (1, 2)]
    assert [p.stdout.readline().strip() for p in racers] == ["ready", "ready"]
    go.touch()
    outcomes = sorted(p.communicate(timeout=300)[0].strip() for p in racers)
    assert outcomes[0] == "admitted" and outcomes[1].startswith("refused: your class already has 2"), outcomes


def test_the_visitor_key_reads_the_learner_token_where_progress_keeps_it():
    from lcsm_explorer.app.kit import progress, visitor
    assert visitor.LEARNER_KEY == progress.LEARNER_KEY

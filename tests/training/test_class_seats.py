"""A class has seats, fixed when it is made (lcsm_serving.class_store): joining takes one, a full class takes no one
more until the teacher frees a seat, and one address cannot churn a class's seats without end. The seats bound
what the class may hold on the training server, the class waits in its share of the queue, and the queue is fair
between classes and visitors (a class is one party there, not one per fresh learner)."""
import pytest

from lcsm_serving import RunStore
from lcsm_serving.admission import AdmissionPolicy, AdmissionRefused, class_visitor_key, queue_share
from lcsm_serving.class_store import JOINS_PER_SEAT, ClassFull, ClassStore, JoinsLimited
from lcsm_serving.manager import RunManager
from lcsm_serving.progress_store import ProgressStore
from lcsm_serving.store import owner_hash
from tests.training.tiny import tiny_config

SCHOOL, HOME = "203.0.113.50", "198.51.100.7"


def test_a_class_seats_as_many_learners_as_it_has_seats_until_one_is_freed(tmp_path):
    classes = ClassStore(tmp_path / "runs.sqlite")
    code, _ = classes.create_class(visitor=HOME, seats=3)
    assert classes.seat_count(code) == 3
    for n in range(3):
        classes.join(f"learner-{n}", code, SCHOOL)
    classes.join("learner-0", code, SCHOOL)                         # a seated learner keeps their seat
    with pytest.raises(ClassFull, match="full \\(3 of 3 seats taken\\)"):
        classes.join("learner-3", code, SCHOOL)
    ProgressStore(classes.file).record_solved("learner-1", "spring", "exercise", "Half-life")
    seats = classes.seats(code)
    assert [s.learner for s in seats] == [owner_hash(f"learner-{n}") for n in range(3)]
    assert [s.solved for s in seats] == [0, 1, 0]
    assert classes.free_seat(code, seats[2].learner) and not classes.free_seat(code, seats[2].learner)
    classes.join("learner-3", code, SCHOOL)
    assert classes.results(code).learners == 3
    with pytest.raises(ValueError, match="1 to"):
        classes.create_class(visitor=HOME, seats=0)


def test_one_address_cannot_churn_a_classs_seats_without_end(tmp_path):
    classes = ClassStore(tmp_path / "runs.sqlite")
    code, _ = classes.create_class(visitor=HOME, seats=2)
    for n in range(JOINS_PER_SEAT * 2):                              # join, free, join again: counted per join
        classes.join(f"fresh-{n}", code, HOME)
        classes.free_seat(code, owner_hash(f"fresh-{n}"))
    with pytest.raises(JoinsLimited, match="joined the class"):
        classes.join("fresh-again", code, HOME)
    classes.join("another-address", code, SCHOOL)                   # the limit is per address
    classes.join("the-operator", code, None)                        # the operator's own joins are not counted


def test_a_classs_seats_bound_the_work_it_may_hold(tmp_path):
    store, classes = RunStore(tmp_path / "runs.sqlite"), ClassStore(tmp_path / "runs.sqlite")
    code, _ = classes.create_class(visitor=HOME, seats=2)
    policy = AdmissionPolicy(visitor_max_active=2, class_max_active=40)      # 2 seats × 2 runs = 4
    for n in range(4):
        store.submit_job(tiny_config().to_dict(), "run", f"tab-{n}", False, 1, 200,
                         visitor=class_visitor_key(SCHOOL, code, f"learner-{n % 2}"), cost_s=60, admission=policy)
    with pytest.raises(AdmissionRefused, match="your class already has 4"):
        store.submit_job(tiny_config().to_dict(), "run", "tab-4", False, 1, 200,
                         visitor=class_visitor_key(SCHOOL, code, "learner-9"), cost_s=60, admission=policy)


def test_a_class_waits_in_its_share_of_the_queue_and_leaves_the_rest_to_others(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    policy, max_queue = AdmissionPolicy(class_max_active=100), 8
    share = queue_share(max_queue)
    assert share == 2

    def submit(owner, visitor):
        return store.submit_job(tiny_config().to_dict(), "run", owner, False, 1, max_queue, visitor=visitor,
                                cost_s=60, admission=policy)
    for n in range(share):                         # (no service places them: each waits)
        submit(f"tab-{n}", class_visitor_key(SCHOOL, "ABCDEF", f"learner-{n}"))
    with pytest.raises(AdmissionRefused, match=f"your class already has {share} run\\(s\\) waiting"):
        submit("tab-x", class_visitor_key(SCHOOL, "ABCDEF", "learner-x"))
    submit("other-class", class_visitor_key(SCHOOL, "GHJKLM", "learner-0"))     # another class still may
    submit("alone", HOME)                                                          # and a visitor without one
    submit("operator", None)                                                       # and the operator


def test_a_classs_learners_are_one_party_of_the_fair_queue(tmp_path):
    """Fresh learners of one class each ranked as never served went ahead of another visitor's earlier run: as one
    party, the class's second run waits behind the other visitor's first."""
    store = RunStore(tmp_path / "runs.sqlite")
    policy = AdmissionPolicy(class_max_active=100)
    ids = []
    def learner(name):
        return class_visitor_key(SCHOOL, "ABCDEF", name)
    for owner, visitor in (("c1", learner("l1")), ("c2", learner("l2")), ("v1", HOME), ("c3", learner("l3"))):
        ids.append(store.submit_job(tiny_config(max_steps=5000).to_dict(), "run", owner, True, 1, 20, visitor=visitor,
                                    cost_s=60, admission=policy))
    parties = {run_id: party for run_id, _, _, _, party in store.queued_jobs()}
    assert parties[ids[0]] == parties[ids[1]] == parties[ids[3]] == "class:ABCDEF" != parties[ids[2]]
    m = RunManager(tmp_path / "fair.sqlite", max_concurrent=1, max_queue=10, workers="thread", pause_hold_s=600)
    try:
        runs = [m.submit(tiny_config(max_steps=5000), f"s{n}", start_paused=True, visitor=parties[run_id])
                for n, run_id in enumerate(ids)]
        c1, c2, v1, c3 = runs
        assert [m.queue_position(r) for r in (c1, v1, c2, c3)] == [0, 1, 2, 3]
    finally:
        m.shutdown()

"""Issue 24 item 2 through the real trainer service (a subprocess, as scripts/app.sh runs it): one address
opening 22 fresh-token sessions that each press ⏭ Step cannot keep another visitor's ▶ Play out for more than
one pause-hold period. Before: 1 paused run + 20 queued, and the learner was told "the server queue is full"."""
import json
import time

import pytest

from lcsm_serving import TrainerClient
from lcsm_serving.admission import AdmissionPolicy
from tests.training.test_manager import wait_for
from tests.training.test_service import end, start_service
from tests.training.tiny import tiny_config

HOLD_S = 3.0
ATTACKER, LEARNER = "203.0.113.66", "198.51.100.9"
LATENCY_S = 6.0          # the service's poll, the monitor's tick, a worker taking a run, on a busy 2-core machine


@pytest.fixture
def service(tmp_path, subprocess_env):
    """One slot, a 20-run queue (the defaults of a class server), a short pause hold."""
    db = tmp_path / "runs.sqlite"
    proc = start_service(db, subprocess_env, "--max-concurrent", "1", "--max-queue", "20",
                         "--pause-hold-s", str(HOLD_S), "--max-pause-s", "60",
                         "--limits", json.dumps({"max_d_model": 16}))
    warm_up = TrainerClient(db, start_service=False)          # a worker process up: the holds below are holds,
    assert warm_up.wait(warm_up.submit(tiny_config(max_steps=5), "operator"), 120)   # not a worker booting
    yield db
    end(proc)


def press_step_from_fresh_tabs(client, count: int) -> tuple[list[int], list[str]]:
    """`count` sessions from one address, each with a fresh owner token, each pressing ⏭ Step."""
    admitted, refused = [], []
    for i in range(count):
        token = f"fresh-token-{i:02d}"
        try:
            run_id = client.submit(tiny_config(max_steps=5000), token, start_paused=True, visitor=ATTACKER)
        except ValueError as err:
            refused.append(str(err))
            continue
        client.command(run_id, token, "step", 1)
        admitted.append(run_id)
    return admitted, refused


def learner_presses_play(client, attacker_runs: list[int]) -> tuple[int, float, list[int]]:
    """The learner's ▶ Play once the attacker holds the slot with a paused run; returns the learner's run, how
    long it waited for a slot, and the attacker's runs that were waiting when it pressed."""
    assert wait_for(lambda: any(client.store.get_run(r).status == "paused" for r in attacker_runs), 60)
    waiting = [r for r in attacker_runs if client.queue_position(r)]          # the service's word: 1.. waiting
    started = time.monotonic()
    run_id = client.submit(tiny_config(max_steps=40), "learner", visitor=LEARNER)
    assert wait_for(lambda: client.store.get_run(run_id).status != "queued", HOLD_S + 60)
    return run_id, time.monotonic() - started, waiting


def started_at(client, run_id):
    return client.store.get_run(run_id).started_at or float("inf")


def test_22_fresh_tokens_from_one_address_hold_its_quota_not_the_queue(service):
    client = TrainerClient(service, start_service=False, admission=AdmissionPolicy())
    admitted, refused = press_step_from_fresh_tabs(client, 22)
    assert len(admitted) == AdmissionPolicy().visitor_max_active == 2 and len(refused) == 20
    assert all("your address already has 2 run(s)" in message for message in refused)
    learner, waited, _ = learner_presses_play(client, admitted)
    assert waited <= HOLD_S + LATENCY_S, f"the learner waited {waited:.1f} s for a slot"
    assert client.wait(learner, 120) and client.store.get_run(learner).status == "completed"


def test_with_a_larger_quota_the_queue_is_fair_and_no_chain_of_paused_runs_holds_the_slot(service):
    """Five runs of one address (four waiting, each to hold the slot paused for a full hold; five wait at most: the
    address's share of the queue) against one learner: the learner's run goes next, one hold at most, instead of
    after four holds."""
    client = TrainerClient(service, start_service=False, admission=AdmissionPolicy(visitor_max_active=6))
    admitted, _ = press_step_from_fresh_tabs(client, 5)
    assert len(admitted) == 5
    learner, waited, waiting = learner_presses_play(client, admitted)
    assert len(waiting) >= 3                                                  # a chain was ready to go first
    assert waited <= HOLD_S + LATENCY_S, f"the learner waited {waited:.1f} s for a slot"
    assert all(started_at(client, learner) < started_at(client, r) for r in waiting)
    assert client.wait(learner, 120) and client.store.get_run(learner).status == "completed"

"""Train live and the server's sharing policy: the issue's link (code 1-9-1-0 at every cap) is refused with
the cost and what to lower before any run exists; a run that waits for the slot shows the policy in words, and a
run waiting for its next turn says from which step it resumes."""
import dataclasses

import pytest

from lcsm_core.training import run_config
from lcsm_core.training.loop import preempted_reason
from lcsm_explorer.app.lessons.train_live import sharing_policy, status_words
from lcsm_serving import RunRow, RunStore, shared_client
from lcsm_serving.manager import SharingPolicy
from tests.app.pages import assert_clean, open_page
from tests.app.test_page_train_live import TINY, rerun_until

ISSUE_LINK = dict(layer="code", code="1-9-1-0", seq_len="256", d_model="128", k="128", layers="4", vocab="512",
                  batch="128")


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return RunStore(tmp_path / "runs.sqlite")


def test_the_issue_link_is_refused_with_its_cost_before_a_run_exists(store):
    at = open_page("train_live", query=ISSUE_LINK, timeout=60)
    assert_clean(at, "load")
    at.button(key="play").click().run()
    errors = " ".join(e.value for e in at.error)
    assert "per training step" in errors and "lower the batch size" in errors   # the core's cost, in words
    assert not at.exception and store.list_runs() == [] and at.session_state["train_live_run"] is None


def test_a_waiting_run_shows_how_the_server_shares_training(store):
    client = shared_client()                  # the page's client: its trainer service runs in this process
    slots = client.policy.max_concurrent
    others = [client.submit(run_config(d_model=8, expand_dim=8, seq_len=16, vocab_size=16, kv_pairs=2,
                                        batch_size=8, layers=1, device="cpu"), f"other-{j}", start_paused=True)
              for j in range(slots)]
    try:
        at = open_page("train_live", timeout=60)
        for key, value in TINY.items():
            at.number_input(key=f"train_live.{key}").set_value(value)
        at.button(key="play").click().run()
        assert not at.exception and not at.error
        assert rerun_until(at, lambda: "waiting, position 1" in " ".join(m.value for m in at.markdown))
        policy = " ".join(c.value for c in at.caption)
        assert "one run per browser tab" in policy and "Step does not reset that clock" in policy
        assert f"{client.policy.pause_hold_s:g} s paused in total" in policy and "of memory per step" in policy
        at.button(key="reset").click().run()
    finally:
        for j, run_id in enumerate(others):
            client.stop(run_id, f"other-{j}")


def test_the_page_drives_a_run_of_a_separate_trainer_service(store, monkeypatch):
    """Several web processes (scripts/app.sh): LCSM_TRAINER=external, the service is another process."""
    import os

    from lcsm_serving.store import process_owner
    from tests.training.conftest import ROOT
    from tests.training.test_service import end, start_service
    monkeypatch.setenv("LCSM_TRAINER", "external")
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    service = start_service(store.path, env)
    try:
        at = open_page("train_live", timeout=60)
        for key, value in TINY.items():
            at.number_input(key=f"train_live.{key}").set_value(value)
        at.button(key="step").click().run()
        run_id = at.session_state["train_live_run"]
        assert not at.exception and not at.error and run_id is not None
        assert rerun_until(at, lambda: store.get_run(run_id).steps == 1)
        assert store.live_service()["pid"] == service.pid                 # trained there, not here
        assert store._db.execute("SELECT owner FROM runs WHERE id=?", (run_id,)).fetchone()[0] != process_owner()
        at.button(key="reset").click().run()
        assert rerun_until(at, lambda: store.get_run(run_id).status == "stopped")
    finally:
        end(service)


def test_a_run_between_two_turns_reads_as_waiting_for_its_turn_and_the_policy_says_how_turns_go():
    run = RunRow(id=7, label="gla", config={}, status="queued", reason=preempted_reason(1234), session=None,
                 device="cpu", created_at=0.0, started_at=1.0, ended_at=None, steps=1234, wall_s=60.2, test_acc=0.5,
                 best_test_acc=0.5)
    assert status_words(run, 2) == " — waiting, position 2 in the server queue: others' turn, resumes from step 1234"
    assert status_words(run, 0) == " — waiting: others' turn, resumes from step 1234"      # before the service says
    fresh = dataclasses.replace(run, reason=None, steps=0)
    assert status_words(fresh, 1) == " — waiting, position 1 in the server queue"
    stopped = dataclasses.replace(run, status="stopped", reason="reset by the user")
    assert status_words(stopped, None) == " · reset by the user"
    policy = SharingPolicy(1, 20, 120.0, 600.0, None, slice_s=60.0)
    assert "after 60 s of training it gives its slot to the next in line" in sharing_policy(policy)
    assert "takes turns" not in sharing_policy(dataclasses.replace(policy, slice_s=0.0))

"""AppTest of the Train live page with a tiny config: start, pause, step, the run in the table,
comparison overlay, reset, and a clear message for bad input."""
import json
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lcsm_core.training import RunStore

PAGE = str(Path(__file__).resolve().parents[2] / "app" / "app_pages" / "train_live.py")


@pytest.fixture
def page(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception
    for key, value in {"d_model": 8, "k": 8, "seq_len": 16, "vocab": 16, "kv_pairs": 2, "batch": 8,
                       "layers": 1}.items():
        at.number_input(key=f"train_live.{key}").set_value(value)
    yield at, RunStore(tmp_path / "runs.sqlite")
    if at.session_state["train_live_run"] is not None:
        at.button(key="reset").click().run()


def rerun_until(at, predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        at.run()
        assert not at.exception
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_start_pause_step_and_the_run_appears_in_the_table(page):
    at, store = page
    at.button(key="play").click().run()
    assert not at.exception and not at.error
    run_id = at.session_state["train_live_run"]
    assert rerun_until(at, lambda: store.get_run(run_id).steps > 0)

    at.button(key="pause").click().run()
    # wait on what the page shows: the store can turn "paused" just after a rerun drew "running"
    assert rerun_until(at, lambda: "status **paused**" in " ".join(m.value for m in at.markdown))
    assert store.get_run(run_id).status == "paused"
    paused_at = store.get_run(run_id).steps

    at.select_slider(key="train_live.lr").set_value(1e-3).run()  # learning rate changed while the run lives
    at.button(key="step").click().run()
    assert rerun_until(at, lambda: store.get_run(run_id).steps == paused_at + 1)
    time.sleep(0.3)
    assert store.get_run(run_id).steps == paused_at + 1          # one step, then paused again
    assert store.metrics(run_id)["lr"][-1] == 1e-3

    at.run()
    table = at.dataframe[0].value
    assert run_id in table["run"].tolist() and "paused" in table["status"].tolist()
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    animated = [spec for spec in specs if spec.get("frames")]
    assert len(specs) == 2 and len(animated) == 1                  # live curves + eigenvalues on the disk
    assert len(animated[0]["frames"]) == len(store.snapshots(run_id)) >= 1
    at.multiselect(key="compare").set_value([run_id]).run()
    assert not at.exception and len(at.get("plotly_chart")) >= 2  # + the overlay

    at.button(key="reset").click().run()
    assert at.session_state["train_live_run"] is None
    assert rerun_until(at, lambda: store.get_run(run_id).status == "stopped")


def test_bad_input_gets_a_clear_message(page):
    at, _ = page
    at.number_input(key="train_live.d_model").set_value(1024)
    at.button(key="play").click().run()
    assert not at.exception
    assert any("over this server's cap" in e.value for e in at.error)
    at.number_input(key="train_live.d_model").set_value(8)
    at.radio(key="train_live.layer").set_value("code").run()
    at.text_input(key="train_live.code").set_value("1-99-1-0")
    at.button(key="play").click().run()
    assert not at.exception and any("Cannot start" in e.value and "99" in e.value for e in at.error)


def test_a_link_restores_settings_and_the_shown_run(page, tmp_path):
    at, store = page
    run_id = store.create_run({}, label="from a link", status="completed")
    linked = AppTest.from_file(PAGE, default_timeout=60)
    linked.query_params.update({"variant": "mamba", "d_model": "32", "run": str(run_id), "layers": "oops"})
    linked.run()
    assert not linked.exception
    assert linked.selectbox(key="train_live.variant").value == "mamba"
    assert linked.number_input(key="train_live.d_model").value == 32
    assert any("layers=oops" in w.value for w in linked.warning)
    assert f"**Run {run_id}**" in " ".join(m.value for m in linked.markdown)

"""Train live (lesson 8) in AppTest with a tiny config: start, pause, step, the learning rate reaching a running
run, the run in the table, comparison overlay, reset, a clear message for bad input, links, exercises."""
import json
import time

import pytest

from lcsm_core.training import SizeLimits, run_config
from lcsm_serving import RunStore
from tests.app.pages import assert_clean, open_page, url_value

TINY = {"d_model": 8, "k": 8, "seq_len": 16, "vocab": 16, "kv_pairs": 2, "batch": 8, "layers": 1,
        "steps": 5000}   # the server's cap: a tiny run stays alive while the test drives it


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return RunStore(tmp_path / "runs.sqlite")


@pytest.fixture
def page(store):
    at = open_page("train_live", timeout=60)
    assert_clean(at, "load")
    for key, value in TINY.items():
        at.number_input(key=f"train_live.{key}").set_value(value)
    yield at, store
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
    assert url_value(at, "run") == str(run_id)
    assert store.get_run(run_id).config["model"]["d_model"] == 8          # the settings made the run
    optim = store.get_run(run_id).config["optim"]
    assert optim["max_steps"] == 5000 and optim["max_seconds"] == SizeLimits().max_seconds   # budgeted in steps
    assert rerun_until(at, lambda: store.get_run(run_id).steps > 0)
    assert rerun_until(at, lambda: any("of 5000" in (b.proto.text or "") for b in at.get("progress")))
    [bar] = at.get("progress")                                    # steps done of the budget, and the time left
    assert 0 <= bar.proto.value <= 100 and ("left at" in bar.proto.text or "waiting" in bar.proto.text)

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
    assert not at.exception and len(at.get("plotly_chart")) == 4   # + the overlay and the last eigenvalues

    at.button(key="reset").click().run()
    assert at.session_state["train_live_run"] is None
    assert rerun_until(at, lambda: store.get_run(run_id).status == "stopped")


def test_the_defaults_and_the_recall_preset_train_what_the_benchmark_measures():
    """benchmarks/train_speed.py measures the defaults; the "GLA learns recall" preset is the same run, budgeted
    in steps (the server's time cap is only a safety net)."""
    from lcsm_explorer.app.lessons.train_live import PRESETS, SETTINGS, config_of
    [recall] = [p for p in PRESETS if "GLA learns recall" in p.label]
    defaults = config_of(SETTINGS.defaults)
    assert config_of(recall.state(SETTINGS)).to_dict() == defaults.to_dict()
    assert defaults.optim.max_steps == SETTINGS.defaults["steps"] <= SizeLimits().max_steps
    assert defaults.optim.max_seconds == SizeLimits().max_seconds
    assert (defaults.task.seq_len, defaults.task.num_kv_pairs, defaults.model.variant) == (64, 4, "gla")


def test_the_readme_cli_example_trains_the_pages_default_run():
    """The README's command-line example is the run whose steps to 99 % the benchmark measures."""
    from pathlib import Path

    from lcsm_explorer.app.lessons.train_live import SETTINGS, config_of
    from lcsm_serving.train import config_from_args, parse_args
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    [line] = [line for line in readme.splitlines() if line.strip().startswith("python -m lcsm_serving.train ")]
    args = parse_args(line.split()[3:])
    assert config_from_args(args).to_dict() == config_of(SETTINGS.defaults).to_dict()


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
    assert at.session_state["train_live_run"] is None


def test_the_model_code_is_a_setting_shown_only_for_a_code_layer(store):
    at = open_page("train_live")
    assert not [t for t in at.text_input if t.key == "train_live.code"]
    linked = open_page("train_live", {"layer": "code", "code": "1-9-1-0", "tau": "4"})
    assert_clean(linked, "code link")
    assert linked.text_input(key="train_live.code").value == "1-9-1-0"
    assert linked.number_input(key="train_live.tau").value == 4.0
    assert not [s for s in linked.selectbox if s.key == "train_live.variant"]
    assert url_value(linked, "code") == "1-9-1-0"


def test_a_link_restores_settings_and_the_shown_run(store):
    run_id = store.create_run({}, label="from a link", status="completed")
    linked = open_page("train_live", {"variant": "mamba", "d_model": "32", "run": str(run_id), "layers": "oops"})
    assert not linked.exception
    assert linked.selectbox(key="train_live.variant").value == "mamba"
    assert linked.number_input(key="train_live.d_model").value == 32
    assert any("layers=oops" in w.value for w in linked.warning)
    assert f"**Run {run_id}**" in " ".join(m.value for m in linked.markdown)


def test_exercises_grade_the_shown_run(store):
    config = run_config(variant="linear_attention", seq_len=16, kv_pairs=2, vocab_size=16)
    run_id = store.create_run(config.to_dict(), label="linear attention", status="running")
    store.write(run_id, [(40, 1.2, 0.4, 0.45, 5e-3, 9.0)], [], status="completed", steps=40, wall_s=9.0,
                test_acc=0.45, reason="reached max seconds")
    at = open_page("train_live", {"run": str(run_id)})
    assert_clean(at, "shown run")
    stall, recall = "train_live.exercise.1.check", "train_live.exercise.0.check"
    at.button(key=stall).click().run()
    assert at.success and not at.error                             # linear attention, finished, best 0.45
    at.button(key=recall).click().run()
    assert [e.value for e in at.error if "Not yet" in e.value]     # but it did not reach 0.99
    assert len(at.success) == 1                                    # the first verdict stays: its run did not change


def test_another_browser_sees_a_run_read_only_and_cannot_stop_it(page):
    at, store = page
    at.button(key="play").click().run()
    run_id = at.session_state["train_live_run"]
    owner = url_value(at, "owner")
    assert len(owner) >= 32                                        # the server-signed token (app/kit/owner.py)
    assert any("Your run" in c.value for c in at.caption)

    other = open_page("train_live", {"run": str(run_id)})           # a shared link: no owner token
    assert_clean(other, "shared link")
    assert url_value(other, "owner") != owner
    assert other.button(key="pause").disabled and any("read-only" in c.value for c in other.caption)
    assert [r for r in other.dataframe[0].value["run"].tolist()] == [run_id]   # only the linked run is listed
    other.button(key="reset").click().run()                           # clears its own view, nothing more
    assert other.session_state["train_live_run"] is None
    time.sleep(0.5)
    assert store.get_run(run_id).active

    reloaded = open_page("train_live", {"run": str(run_id), "owner": owner})   # the owner's tab, reloaded
    assert_clean(reloaded, "reload")
    assert not reloaded.button(key="pause").disabled
    reloaded.button(key="reset").click().run()
    assert rerun_until(reloaded, lambda: store.get_run(run_id).status == "stopped")
    at.session_state["train_live_run"] = None


@pytest.mark.parametrize("value", ["²", "9" * 19, "9" * 5000, "-1", "1e3", " 1"])
def test_a_run_link_that_is_not_an_id_is_ignored(store, value):
    at = open_page("train_live", {"run": value})
    assert_clean(at, value[:20])
    assert at.session_state["train_live_run"] is None


def test_two_runs_compare_side_by_side_with_their_differences_and_exports(page):
    at, store = page
    for lr in (1e-2, 1e-3):
        at.select_slider(key="train_live.lr").set_value(lr)
        at.button(key="step").click().run()
        run_id = at.session_state["train_live_run"]
        assert rerun_until(at, lambda run_id=run_id: store.get_run(run_id).steps == 1)
        at.button(key="reset").click().run()
        assert rerun_until(at, lambda run_id=run_id: not store.get_run(run_id).active)
    first, second = [r.id for r in store.list_runs()][::-1]
    at.multiselect(key="compare").set_value([first, second]).run()
    assert not at.exception
    [diff] = [d.value for d in at.dataframe if "setting" in d.value.columns]
    assert "optim.lr" in diff["setting"].tolist() and len(diff) == 1            # only the learning rate differs
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert "compared runs" in titles and "last eigenvalues of each run" in titles
    labels = [b.label for b in at.get("download_button")]
    assert any("CSV" in label for label in labels) and any("JSON" in label for label in labels)


def test_the_eigenvalue_replay_steps_without_gliding():
    """No tween between snapshots (plotly's default eases each over 500 ms): nothing glides for a learner who asked
    for reduced motion, which the server cannot see."""
    import numpy as np

    from lcsm_explorer.app.lessons.train_live import eigen_figure

    layout = eigen_figure([(0, [np.array([0.5 + 0.1j])]), (10, [np.array([0.6 + 0.2j])])]).to_plotly_json()["layout"]
    [slider], [replay] = layout["sliders"], layout["updatemenus"]
    moves = [step["args"][1] for step in slider["steps"]] + [button["args"][1] for button in replay["buttons"]]
    assert slider["transition"]["duration"] == 0 and all(move["transition"]["duration"] == 0 for move in moves)

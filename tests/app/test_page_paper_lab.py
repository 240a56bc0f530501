"""Paper lab (lesson 9) in AppTest: a grid in the store is shown (chart, runs, exercises graded on it), the
launch button runs a grid on the server's runner to the end, the key–value pairs follow the sequence length."""
import json
import time

import pytest

from lcsm_core.paper_lab import GridSpec, grid_configs, shared_grid_runner
from lcsm_core.training import RunStore
from tests.app.pages import assert_clean, open_page


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return RunStore(tmp_path / "runs.sqlite")


def stored_grid(store: RunStore, spec: GridSpec, grid_id: str, status: str = "completed") -> list[int]:
    """The runs of a grid as the runner leaves them, without training (best accuracy 0.5 + 0.01 · seed)."""
    ids = []
    for label, config in grid_configs(spec):
        run_id = store.create_run(config.to_dict(), label=f"{spec.ablation}: {label}", session=f"grid:{grid_id}")
        acc = 0.5 + 0.01 * config.optim.seed
        store.write(run_id, [(10, 1.0, acc, acc, spec.lr, 2.0)], [], status=status, steps=10, wall_s=2.0,
                    test_acc=acc)
        ids.append(run_id)
    return ids


def check(at, n: int) -> bool:
    at.button(key=f"paper_lab.exercise.{n}.check").click().run()
    assert not at.exception
    return bool(at.success) and not [e for e in at.error if "Not yet" in e.value or "does not" in e.value]


def test_a_finished_grid_is_shown_and_graded(store):
    ids = stored_grid(store, GridSpec(ablation="tau", seeds=2), "tau-20250101-120000")
    at = open_page("paper_lab")
    assert_clean(at, "load")
    assert at.selectbox(key="paper_lab.shown").value == "tau-20250101-120000"
    [chart] = at.get("plotly_chart")
    [bar] = json.loads(chart.proto.spec)["data"]
    assert len(bar["x"]) == 7 and bar["y"] == pytest.approx([0.505] * 7)       # mean over the two seeds
    runs = at.dataframe[-1].value
    assert runs["run"].tolist() == ids and set(runs["status"]) == {"completed"}
    assert check(at, 0)                                                        # every run finished
    assert check(at, 1)                                                        # τ, two seeds, finished


def test_a_running_grid_is_not_finished(store):
    stored_grid(store, GridSpec(ablation="parameterization"), "parameterization-20250101-120000", status="running")
    at = open_page("paper_lab")
    assert_clean(at, "running grid")
    assert not check(at, 0)


def test_the_launch_button_runs_a_grid_to_the_end(store):
    at = open_page("paper_lab", {"ablation": "parameterization", "budget": "5", "d_model": "16"})
    assert_clean(at, "load")
    assert any("No grid has run yet" in c.value for c in at.caption)
    at.button(key="paper_lab.launch").click().run()
    assert_clean(at, "launched")
    lab = shared_grid_runner()
    grid = at.selectbox(key="paper_lab.shown").value
    assert grid == lab.active_grid and grid.startswith("parameterization-")
    assert at.button(key="paper_lab.launch").disabled and any(grid in i.value for i in at.info)
    with pytest.raises(ValueError, match="still running"):
        lab.launch(GridSpec(ablation="tau"))
    deadline = time.monotonic() + 240
    while lab.active_grid and time.monotonic() < deadline:
        time.sleep(0.5)
    at.run()
    assert_clean(at, "finished")
    assert not at.button(key="paper_lab.launch").disabled
    assert {r.status for r in store.list_runs()} == {"completed"}
    assert check(at, 0)


def test_key_value_pairs_stay_within_a_quarter_of_the_sequence(store):
    at = open_page("paper_lab", {"seq_len": "32", "kv_pairs": "16"})
    assert_clean(at, "link")
    assert at.slider(key="paper_lab.kv_pairs").value == 8 and at.slider(key="paper_lab.kv_pairs").max == 8

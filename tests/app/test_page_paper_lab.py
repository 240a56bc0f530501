"""Paper lab (lesson 9) in AppTest: the page opens with the shipped results and their verdict; "Run missing
cells" runs only what is missing, to the end, into the same heatmap; one cell can be rerun; the key–value pairs
stay within a quarter of the shortest sequence length (a link asking for more falls back with a note)."""
import json
import time

import pytest

from lcsm_core.paper_lab import DEFAULT_SPECS, load_shipped, shared_grid_runner
from lcsm_core.training import RunStore
from tests.app.pages import assert_clean, click, open_page

SMALL = {"ablation": "parameterization", "lengths": "32", "lrs": "0.01", "d_model": "16", "steps": "100",
         "seeds": "1"}


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    return RunStore(tmp_path / "runs.sqlite")


def heatmap(at) -> dict:
    [chart] = at.get("plotly_chart")
    [heat] = json.loads(chart.proto.spec)["data"]
    return heat


def wait_for_the_grid(seconds: float = 240) -> None:
    lab = shared_grid_runner()
    deadline = time.monotonic() + seconds
    while lab.active_grid and time.monotonic() < deadline:
        time.sleep(0.5)
    assert lab.active_grid is None


def test_the_page_opens_with_the_shipped_results_and_their_verdict(store):
    at = open_page("paper_lab")
    assert_clean(at, "load")
    spec, shipped = DEFAULT_SPECS["data_dependence"], load_shipped("data_dependence")
    heat = heatmap(at)
    assert len(heat["y"]) == 8 and len(heat["x"]) == len(spec.seq_lens)
    assert all(cell != "" for row in heat["text"] for cell in row)            # every cell has a number
    assert any("Shipped results" in c.value and shipped.measured_on in c.value for c in at.caption)
    assert [s.value for s in at.success] or [e.value for e in at.error if "did not hold" in e.value]
    assert store.list_runs() == []                                            # nothing ran to show it

    click(at, "paper_lab.launch")                                             # nothing is missing
    assert any("nothing to run" in w.value for w in at.warning)
    assert store.list_runs() == [] and shared_grid_runner().active_grid is None


def test_run_missing_cells_fills_the_heatmap_then_one_cell_reruns(store):
    at = open_page("paper_lab", SMALL)
    assert_clean(at, "load")
    assert any("No results for this grid yet" in c.value for c in at.caption)
    assert heatmap(at)["text"] == [[""], [""]]
    click(at, "paper_lab.launch")
    assert at.button(key="paper_lab.launch").disabled and any("is running" in i.value for i in at.info)
    wait_for_the_grid()
    at.run()
    assert_clean(at, "finished")
    assert not at.button(key="paper_lab.launch").disabled
    assert all(cell != "" for row in heatmap(at)["text"] for cell in row)
    assert {r.status for r in store.list_runs()} == {"completed"} and len(store.list_runs()) == 2
    assert [s.value for s in at.success] or [e.value for e in at.error if "did not hold" in e.value]

    at.selectbox(key="paper_lab.cell").set_value("1-1-1-0 · T=32").run()
    click(at, "paper_lab.rerun_cell")
    wait_for_the_grid()
    runs = store.list_runs()
    assert len(runs) == 3 and runs[0].config["model"]["code"] == "1-1-1-0"    # newest first


def test_key_value_pairs_stay_within_a_quarter_of_the_shortest_sequence(store):
    at = open_page("paper_lab", {"lengths": "32", "kv_pairs": "16"})
    assert_clean(at, "link")
    assert at.slider(key="paper_lab.kv_pairs").value == 4 and at.slider(key="paper_lab.kv_pairs").max == 8
    assert any("kv_pairs" in w.value for w in at.warning)

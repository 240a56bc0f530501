"""Paper lab (lesson 9) in AppTest: the page opens with the shipped results and their verdict; "Run missing
cells" runs only what is missing, to the end, into the same heatmap; one cell can be rerun; the key–value pairs
stay within a quarter of the shortest sequence length (a link asking for more falls back with a note)."""
import dataclasses
import json
import time

import pytest

from lcsm_core.paper_lab import ABLATIONS, DEFAULT_SPECS, load_shipped
from lcsm_serving import RunStore
from lcsm_serving.paper_lab import shared_grid_runner
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
    assert all("[" in cell and "–" in cell for row in heat["text"] for cell in row)   # …and its seeds' range
    assert any("Shipped results" in c.value and shipped.measured_on in c.value and "core-minutes" in c.value
               for c in at.caption)
    assert any(c.value.startswith("**The default grid**") and "3 seeds per cell" in c.value for c in at.caption)
    boxes = [s.value for s in at.success] + [e.value for e in at.error] + [w.value for w in at.warning]
    assert len(boxes) == 1 and "Checked on the evidence grid" in boxes[0]        # the verdict: the evidence's
    assert any("a demo, not the evidence" in i.value and "seed ranges alone read" in i.value for i in at.info)
    assert any("cannot show that the best rate lies inside it" in c.value for c in at.caption)
    assert store.list_runs() == []                                            # nothing ran to show it

    click(at, "paper_lab.launch")                                             # nothing is missing
    assert any("nothing to run" in w.value for w in at.warning)
    assert store.list_runs() == [] and shared_grid_runner().active_grid is None


def test_run_missing_cells_fills_the_heatmap_then_one_cell_reruns(store):
    at = open_page("paper_lab", SMALL)
    assert_clean(at, "load")
    assert any("No results for this grid yet" in c.value for c in at.caption)
    entries = len(ABLATIONS["parameterization"].labels)                      # one row each, one length
    assert heatmap(at)["text"] == [[""]] * entries
    click(at, "paper_lab.launch")
    assert at.button(key="paper_lab.launch").disabled and any("is running" in i.value for i in at.info)
    wait_for_the_grid()
    at.run()
    assert_clean(at, "finished")
    assert not at.button(key="paper_lab.launch").disabled
    assert all(cell != "" for row in heatmap(at)["text"] for cell in row)
    assert {r.status for r in store.list_runs()} == {"completed"} and len(store.list_runs()) == entries
    assert any("read “inconclusive”" in i.value for i in at.info)            # one seed decides nothing

    at.selectbox(key="paper_lab.cell").set_value("1-1-1-0 · T=32").run()
    click(at, "paper_lab.rerun_cell")
    wait_for_the_grid()
    runs = store.list_runs()
    assert len(runs) == entries + 1 and runs[0].config["model"]["code"] == "1-1-1-0"    # newest first


def test_key_value_pairs_stay_within_a_quarter_of_the_shortest_sequence(store):
    at = open_page("paper_lab", {"lengths": "32", "kv_pairs": "16"})
    assert_clean(at, "link")
    assert at.slider(key="paper_lab.kv_pairs").value == 4 and at.slider(key="paper_lab.kv_pairs").max == 8
    assert any("kv_pairs" in w.value for w in at.warning)


def all_text(at) -> list[str]:
    return [e.value for kind in ("markdown", "caption", "info", "success", "error", "warning")
            for e in getattr(at, kind)]


@pytest.mark.parametrize("ablation", list(ABLATIONS))
def test_one_verdict_from_one_source(store, ablation):
    """The claim is said once, in the one box that gives its verdict, and that verdict is the evidence grid's
    (report.evidence_words); the demo grid's ranges are said beside it, never signed as the verdict."""
    from lcsm_core.paper_lab import ABLATIONS, DEFAULT_SPECS, verdict
    from lcsm_core.paper_lab.report import evidence_words

    at = open_page("paper_lab", {"ablation": ablation})
    assert_clean(at, ablation)
    claim = ABLATIONS[ablation].claim
    saying = [t for t in all_text(at) if claim in t or "Checked here" in t]
    assert len(saying) == 1, saying
    found = verdict(DEFAULT_SPECS[ablation], load_shipped(ablation).results)
    boxes = [s.value for s in at.success] + [e.value for e in at.error] + [w.value for w in at.warning]
    assert boxes == saying
    outcome, _, ran = evidence_words(ablation)
    assert f"**{outcome}**" in saying[0] and ran in saying[0]
    assert any(found.detail in i.value and "a demo, not the evidence" in i.value for i in at.info)


def test_the_page_says_which_grid_it_shows():
    from lcsm_explorer.app.lessons.paper_lab import differences, grid_said
    default = DEFAULT_SPECS["tau"]
    assert grid_said(default).startswith("**The default grid**") and "the best of 1 learning rate (0.01)" in \
        grid_said(default)
    other = dataclasses.replace(default, lrs=(3e-3, 1e-2), seeds=(0,))
    assert grid_said(other) == ("**Not the default grid** (its results are not shipped; run it here): 1 seed per "
                                "cell, the best of 2 learning rates (0.003, 0.01).")
    said = differences(other)
    assert "(the paper: the best of 7, 1e-05 … 0.01)" in said and "too few for a verdict" in said and "ALiBi" in said


def test_the_verdict_message_says_the_claim_with_its_state():
    from lcsm_core.paper_lab.ablations import Verdict
    from lcsm_explorer.app.lessons.paper_lab import verdict_message

    assert verdict_message("c", None, 3, 24) == ("info", "🔎 Checked here: “c” — once every cell has a result "
                                                         "(3 of 24 runs have finished).")
    assert verdict_message("c", Verdict(True, "a 0.9"), 24, 24)[0] == "success"
    kind, text = verdict_message("c", Verdict(False, "best other 1-0-1-0 0.87"), 24, 24)
    assert kind == "error" and "did not hold" in text and "1-0-1-0 0.87" in text
    kind, text = verdict_message("c", Verdict("inconclusive", "ranges overlap", seeds=2,
                                              readings=(("T = 64", "held", "a 0.9 > b 0.5"),)), 24, 24)
    assert kind == "warning" and "**inconclusive**: ranges overlap." in text
    assert "T = 64: **held** — a 0.9 > b 0.5" in text                     # every reading the core gave


# --- the grid line: a second visitor queues behind the running grid --------------------------------------------
def infos(at) -> list[str]:
    return [i.value for i in at.info]


def clock(t: float) -> str:
    return time.strftime("%H:%M", time.localtime(t))


def test_a_second_visitor_queues_behind_the_running_grid_is_told_when_it_starts_then_that_it_started(
        store, monkeypatch):
    """Alice's grid holds the lab; Bob's run button queues his (his place and when it starts at the latest), he
    leaves the line and queues again; Carol queues behind him. When Alice's grid ends the service starts Bob's and
    his page says so; Carol, who meanwhile started a live run past her quota, is told why hers could not start.
    (No grid worker: cells wait, so nothing here trains.)"""
    from lcsm_serving.admission import AdmissionPolicy
    from lcsm_serving.store import GRID_JOB
    from tests.training.test_manager import wait_for
    from tests.training.tiny import tiny_config

    monkeypatch.setenv("LCSM_GRID_WORKERS", "0")
    monkeypatch.setenv("LCSM_VISITOR_MAX_ACTIVE", "1")
    alice, bob, carol = "203.0.113.1", "203.0.113.2", "203.0.113.3"
    visitor = {"key": bob}
    monkeypatch.setattr("lcsm_explorer.app.kit.live_lesson.visitor_key", lambda: visitor["key"])
    store.admit_grid("g-alice", [(tiny_config().to_dict(), "cell", 10.0)], "grid:g-alice", alice,
                     AdmissionPolicy(), job=GRID_JOB)
    free_by = store.grid_admitted_at("g-alice") + AdmissionPolicy().grid_ceiling_s

    at = open_page("paper_lab", SMALL)
    assert_clean(at, "bob")
    assert not at.button(key="paper_lab.launch").disabled and at.button(key="paper_lab.leave").disabled
    assert any("Grid **g-alice** is running" in i and f"free again by {clock(free_by)}" in i and
               f"A run button puts your grid in line behind it: it would start by {clock(free_by)}" in i
               for i in infos(at)), infos(at)
    click(at, "paper_lab.launch")
    [entry] = store.grid_line()
    assert any(f"Your grid **{entry.grid}** is number 1 in line: it starts by {clock(free_by)} at the latest" in i
               for i in infos(at)), infos(at)
    assert at.button(key="paper_lab.launch").disabled and not at.button(key="paper_lab.leave").disabled
    click(at, "paper_lab.leave")
    assert store.grid_line() == [] and not at.button(key="paper_lab.launch").disabled
    click(at, "paper_lab.launch")                                            # back in line
    assert [e.grid for e in store.grid_line()] == [entry.grid]

    visitor["key"] = carol
    other = open_page("paper_lab", {**SMALL, "ablation": "tau"})
    assert any("behind it and the 1 grid(s) waiting: it would start by "
               f"{clock(free_by + AdmissionPolicy().grid_ceiling_s)}" in i for i in infos(other)), infos(other)
    click(other, "paper_lab.launch")
    assert any("is number 2 in line: it starts by "
               f"{clock(free_by + AdmissionPolicy().grid_ceiling_s)}" in i for i in infos(other)), infos(other)
    store.submit_job(tiny_config().to_dict(), "run", "carol-tab", True, 1, 20, visitor=carol, cost_s=1.0)

    store.request_grid_stop("g-alice", "stopped from the page", alice)      # Alice's grid ends
    assert wait_for(lambda: store.grid_line_entry(bob, since=0).state == "started", 30)
    started = store.grid_line_entry(bob, since=0)
    visitor["key"] = bob
    at.run()
    assert_clean(at, "started")
    assert any(f"Your grid **{entry.grid}** started at {clock(started.ended_at)}." in s.value for s in at.success)
    assert any(f"Your grid **{entry.grid}** is running" in i for i in infos(at)), infos(at)

    store.request_grid_stop(entry.grid, "stopped from the page", bob)       # Bob's grid ends: Carol's turn
    assert wait_for(lambda: store.grid_line_entry(carol, since=0).state == "refused", 30)
    visitor["key"] = carol
    other.run()
    assert any("could not start when its turn came: your address already has 1 run(s) or grid(s)" in w.value
               for w in other.warning), [w.value for w in other.warning]


def test_the_evidence_table_shows_every_cell_whole_in_a_region_the_keyboard_reaches(store):
    """A static HTML table (cells wrap: a grid cut "τ = 16 + τ = 32 + τ = 64" short at 1280 px), every word escaped,
    in a box that scrolls sideways on a phone and that the keyboard can reach and a screen reader names."""
    at = open_page("paper_lab", {"ablation": "tau"})
    assert_clean(at, "tau")
    [table] = [m.value for m in at.markdown if 'aria-label="The evidence grid, entry by entry"' in m.value]
    assert table.startswith('<div role="region" tabindex="0"') and "overflow-x: auto" in table
    assert '<th scope="row">τ = 16 + τ = 32 + τ = 64</th><td>confirmation</td>' in table
    assert table.count("<tr>") == 1 + 7 + 2                         # the header, seven τ, the confirmation's sides

"""A visitor's grid holds the paper lab for the ceiling at most, on the clock (admission.grid_ceiling_s): the trainer
service stops what is left of it past that, in words; the operator's grids run on. (A grid estimated under the CPU
budget ran for hours on a loaded server: the estimate cannot be the limit.)"""
from lcsm_serving import RunStore
from lcsm_serving.admission import AdmissionPolicy
from lcsm_serving.service import TrainerService
from lcsm_serving.store import GRID_JOB
from tests.training.tiny import tiny_config

VISITOR = "203.0.113.20"
ANY_COST = dict(visitor_budget_s=1e12, server_budget_s=1e12, large_grid_s=1e12)


def admitted_long_ago(store: RunStore, grid: str, visitor: str | None, seconds_ago: float) -> list[int]:
    cells = [(tiny_config().to_dict(), f"cell {n}", 10.0) for n in range(3)]
    ids = store.admit_grid(grid, cells, f"grid:{grid}", visitor, AdmissionPolicy(**ANY_COST), job=GRID_JOB)
    with store._lock:
        store._db.execute("UPDATE runs SET created_at=created_at-? WHERE grid=?", (seconds_ago, grid))
    return ids


def stops(store: RunStore, ids: list[int]) -> list[str | None]:
    with store._lock:
        return [store._db.execute("SELECT stop_requested FROM runs WHERE id=?", (i,)).fetchone()[0] for i in ids]


def test_a_visitors_grid_past_the_ceiling_is_stopped_in_words(tmp_path):
    service = TrainerService(tmp_path / "runs.sqlite", admission=AdmissionPolicy(grid_ceiling_s=60, **ANY_COST))
    ids = admitted_long_ago(service.store, "g1", VISITOR, seconds_ago=30)
    service._end_grid_past_ceiling()
    assert stops(service.store, ids) == [None] * 3                     # within the ceiling: it runs on
    with service.store._lock:
        service.store._db.execute("UPDATE runs SET created_at=created_at-60 WHERE grid='g1'")
    service._end_grid_past_ceiling()
    said = stops(service.store, ids)
    assert all(s and "limit for one visitor's grid (60 s on the clock)" in s for s in said), said
    assert service.store.active_grid() is None                          # the lab is free for the next visitor


def test_a_grid_run_again_holds_the_lab_from_its_new_admission_not_its_first(tmp_path):
    service = TrainerService(tmp_path / "runs.sqlite", admission=AdmissionPolicy(grid_ceiling_s=60, **ANY_COST))
    first = admitted_long_ago(service.store, "g1", VISITOR, seconds_ago=3600)       # yesterday's run of the grid
    for run_id in first:
        service.store.set_status(run_id, "completed")
    again = service.store.admit_grid("g1", [(tiny_config().to_dict(), "cell 0", 10.0)], "grid:g1", VISITOR,
                                     AdmissionPolicy(**ANY_COST), job=GRID_JOB)      # one cell rerun now
    service._end_grid_past_ceiling()
    assert stops(service.store, again) == [None] and service.store.active_grid() == "g1"


def test_the_operators_grid_is_not_held_to_the_ceiling(tmp_path):
    service = TrainerService(tmp_path / "runs.sqlite", admission=AdmissionPolicy(grid_ceiling_s=60, **ANY_COST))
    ids = admitted_long_ago(service.store, "cli", None, seconds_ago=3600)
    service._end_grid_past_ceiling()
    assert stops(service.store, ids) == [None] * 3


def test_the_ceiling_is_the_operators_setting():
    assert AdmissionPolicy().grid_ceiling_s == 1800
    assert AdmissionPolicy.from_env({"LCSM_GRID_CEILING_S": "600"}).grid_ceiling_s == 600

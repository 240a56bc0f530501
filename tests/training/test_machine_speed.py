"""This machine's speed against the cost model's: one measured factor that turns model CPU-seconds into this
machine's, while budgets stay in the model's units."""
import math

from lcsm_core.training import machine_speed
from lcsm_core.training.cost import step_seconds_of


def test_the_factor_is_the_reference_steps_measured_seconds_over_the_models(monkeypatch):
    model = step_seconds_of(machine_speed.reference_config())
    monkeypatch.setattr(machine_speed, "measured_reference_step", lambda: 2.5 * model)
    machine_speed.machine_factor.cache_clear()
    try:
        assert math.isclose(machine_speed.machine_factor(), 2.5)
    finally:
        machine_speed.machine_factor.cache_clear()


def test_the_reference_step_is_measured_on_one_thread_and_leaves_the_thread_count_as_it_was():
    import torch
    before = torch.get_num_threads()
    seconds = machine_speed.measured_reference_step(steps=2, blocks=3)
    assert 0 < seconds < 5 and torch.get_num_threads() == before


def test_here_says_this_machines_amount_and_that_budgets_stay_in_the_models_units():
    said = machine_speed.here(8 * 3600, 2.4)
    assert said.startswith("≈ 19.2 CPU-hours on this machine") and "×2.4" in said and "same on every machine" in said
    assert machine_speed.here(30, 0.5).startswith("≈ 15 CPU-seconds")

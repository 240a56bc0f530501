"""A run's progress bar: the larger of its step and time budgets used, and the time left at its pace."""
import pytest

from lcsm_core.training.progress import duration_words, run_progress


def test_progress_follows_the_budget_that_ends_the_run_first():
    p = run_progress(steps=100, wall_s=10.0, max_steps=1000, max_seconds=120.0)
    assert p.fraction == pytest.approx(0.1) and p.steps_per_s == pytest.approx(10.0)
    assert p.seconds_left == pytest.approx(90.0)                 # 900 steps at 10/s, within 110 s
    slow = run_progress(steps=100, wall_s=60.0, max_steps=1000, max_seconds=120.0)
    assert slow.fraction == pytest.approx(0.5) and slow.seconds_left == pytest.approx(60.0)   # the clock ends it


def test_a_run_not_yet_timed_has_no_time_left_and_a_finished_one_stops_at_one():
    assert run_progress(0, 0.0, 1000, 120.0).seconds_left is None
    done = run_progress(1200, 50.0, 1000, 120.0)
    assert done.fraction == 1.0 and done.seconds_left == 0.0
    assert run_progress(10, 1.0, 1000, None).seconds_left == pytest.approx(99.0)


def test_duration_words():
    assert duration_words(0.2) == "about 1 s" and duration_words(40) == "about 40 s"
    assert duration_words(200) == "about 3 min" and duration_words(2 * 3600) == "about 2.0 h"

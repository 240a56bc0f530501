"""The Train live page's settings → run_config translation lives in the core (scripts use it without the page),
and the learning rate of a running run has one source: its RunControl, seeded from the config."""
import pytest

from lcsm_core.training import SizeLimits, Trainer, run_config
from lcsm_core.training.config import PAGE_DEFAULTS, check_learning_rate, run_settings
from lcsm_core.training.control import RunControl
from tests.training.tiny import tiny_config


def test_the_page_defaults_are_the_pages():
    """app/lessons/train_live.py declares its widgets with these defaults and translates them with run_settings."""
    page = pytest.importorskip("lcsm_explorer.app.lessons.train_live")
    assert page.SETTINGS.defaults == PAGE_DEFAULTS
    assert page.run_settings is run_settings


def test_run_settings_at_the_defaults_is_a_valid_step_budgeted_run():
    config = run_config(**run_settings({})).validate()
    assert (config.model.variant, config.model.code, config.model.d_model, config.model.expand_dim) == \
        ("gla", None, 64, 64)
    assert (config.optim.lr, config.optim.batch_size, config.optim.max_steps) == (5e-3, 32, 1000)
    assert config.optim.max_seconds == SizeLimits().max_seconds
    coded = run_config(**run_settings({"layer": "code", "code": "1-9-1-0", "seed": 3}, max_seconds=5.0))
    assert (coded.model.code, coded.optim.seed, coded.optim.max_seconds) == ("1-9-1-0", 3, 5.0)


@pytest.mark.parametrize("bad", [0, -1e-3, 10, float("nan")])
def test_one_learning_rate_check_everywhere(bad):
    with pytest.raises(ValueError, match="learning rate"):
        check_learning_rate(bad)
    with pytest.raises(ValueError, match="learning rate"):
        RunControl(lr=1e-3).set_lr(bad)
    with pytest.raises(ValueError, match="learning rate"):
        run_config(lr=bad).validate()


def test_the_optimiser_trains_with_the_controls_learning_rate():
    config = tiny_config(max_steps=2)
    trainer = Trainer(config, RunControl(lr=2e-3))
    assert trainer.optimizer.param_groups[0]["lr"] == 2e-3 and config.optim.lr != 2e-3
    trainer.control.set_lr(1e-3)
    trainer.train_step()
    assert trainer.optimizer.param_groups[0]["lr"] == 1e-3
    assert Trainer(config).control.lr == config.optim.lr

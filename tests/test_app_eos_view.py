"""The EOS view page: loads for every variant, preset and a model code; bad links fall back."""
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app.ui.settings.eos_view import PRESETS
from lcsm_core import VARIANTS
from lcsm_core.eos_view import inspect_layer

PAGE = str(Path(__file__).resolve().parent.parent / "app" / "app_pages" / "eos_view.py")


def page(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    for name, value in query.items():
        at.query_params[name] = value
    return at.run()


def test_every_variant_and_preset_renders():
    at = page(T="16", k="4", d="4")
    assert not at.exception
    for name in VARIANTS:
        at.selectbox(key="eos_view.variant").set_value(name).run()
        assert not at.exception, name
        assert len(at.get("plotly_chart")) == 6
    for n, _ in enumerate(PRESETS):
        at.button(key=f"eos_view.preset.{n}").click().run()
        assert not at.exception


def test_model_code_and_extremes():
    at = page(source="model code", code="1-11-0-3", T="128", k="16", d="16", scale="50")
    assert not at.exception
    assert "LCSM 1-11-0-3" in [m.value for m in at.markdown][0] or any("1-11-0-3" in m.value for m in at.markdown)
    at = page(T="4", k="1", d="1", channel="15")
    assert not at.exception


def test_bad_link_falls_back_with_a_note():
    at = page(variant="transformer", T="-3", scale="nan")
    assert not at.exception
    assert at.warning and "could not be used" in at.warning[0].value
    assert at.selectbox(key="eos_view.variant").value == "gla"


def test_exploding_memory_is_reported_not_plotted_as_nan():
    view = inspect_layer("variant", "deltanet", scale=20.0)
    assert view.diverged_at is not None
    for array in (view.memory, view.memory_norm, view.weights, view.y):
        assert np.isfinite(array).all()


@pytest.mark.parametrize("name", VARIANTS)
def test_parallel_weights_reproduce_the_output(name):
    """y_t[c] = Σ_s W[t, s] i_s[c]: the parallel form and the recurrence agree."""
    view = inspect_layer("variant", name, T=24, d_model=5, expand_dim=3, channel=1)
    i_c = view.i[:, view.channel] if view.layout == "sequence" else view.i[:, 0]
    np.testing.assert_allclose(view.weights @ i_c, view.y[:, view.channel], atol=1e-9)

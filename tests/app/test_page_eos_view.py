"""The EOS view page (lesson 6): every variant, preset and a model code load; bad links fall back; the step t
round-trips; a layer that cannot be built is reported; the presets show what their captions say."""
import numpy as np
import pytest
import streamlit as st

import lcsm_explorer.app.lessons.eos_view as page
from lcsm_core import VARIANTS
from lcsm_core.eos_view import inspect_layer
from lcsm_explorer.app.lessons.eos_view import PRESETS, SETTINGS, compute, quantities
from tests.app.pages import assert_clean, link_notes, open_page, url_value


def preset(label: str) -> dict:
    """The settings a preset click gives (its values over the defaults)."""
    return {**SETTINGS.defaults, **next(p for p in PRESETS if label in p.label).values}


def test_every_variant_and_preset_renders():
    at = open_page("eos_view", dict(T="16", k="4", d="4"))
    assert_clean(at)
    for name in VARIANTS:
        at.selectbox(key="eos_view.variant").set_value(name).run()
        assert not at.exception, name
        assert len(at.get("plotly_chart")) == 6
    for n, _ in enumerate(PRESETS):
        at.button(key=f"eos_view.preset.{n}").click().run()
        assert_clean(at, PRESETS[n].label)


def test_model_code_and_extremes():
    at = open_page("eos_view", dict(source="model code", code="1-11-0-3", T="128", k="16", d="16", scale="50"))
    assert_clean(at)
    assert any("1-11-0-3" in m.value for m in at.markdown)
    at = open_page("eos_view", dict(T="4", k="1", d="1", channel="15"))
    assert_clean(at)


def test_bad_link_falls_back_with_a_note():
    at = open_page("eos_view", dict(variant="transformer", T="-3", scale="nan"))
    assert not at.exception
    assert link_notes(at) and "could not be used" in link_notes(at)[0]
    assert at.selectbox(key="eos_view.variant").value == "gla"


def test_step_t_is_drawn_in_the_page_and_round_trips_through_the_url():
    at = open_page("eos_view", dict(T="16", t="5"))
    assert_clean(at)
    assert "eos_view.t" not in [s.key for s in at.sidebar.slider]
    step = at.main.slider(key="eos_view.t")
    assert step.value == 5 and step.max == 15 and url_value(at, "t") == "5"
    step.set_value(9).run()
    assert url_value(at, "t") == "9"
    assert any("at t = 9" in str(c.proto.spec) for c in at.get("plotly_chart"))
    at.slider(key="eos_view.T").set_value(8).run()           # a shorter sequence holds t inside it
    assert at.main.slider(key="eos_view.t").value == 7 and url_value(at, "t") == "7"
    at = open_page("eos_view", dict(T="16", t="100"))          # inside t's range, past this T: clamped
    assert at.main.slider(key="eos_view.t").value == 15 and not link_notes(at)


def test_a_layer_that_cannot_be_built_is_reported(monkeypatch):
    with pytest.raises(ValueError):
        compute({**SETTINGS.defaults, "source": "neither"})

    def refuse(*args, **kwargs):
        raise ValueError("this layer cannot be built")

    monkeypatch.setattr(page, "inspect_layer", refuse)
    st.cache_data.clear()                                      # not a cached result of an earlier test
    at = open_page("eos_view", dict(seed="97"))
    assert not at.exception
    assert any("cannot be computed" in e.value and "this layer cannot be built" in e.value for e in at.error)
    assert not at.get("plotly_chart")
    st.cache_data.clear()


def test_exploding_memory_is_reported_not_plotted_as_nan():
    view = inspect_layer("variant", "deltanet", scale=20.0)
    assert view.diverged_at is not None
    for array in (view.memory, view.memory_norm, view.weights, view.y):
        assert np.isfinite(array).all()
    at = open_page("eos_view", dict(variant="deltanet", scale="20"))
    assert any("diverged" in w.value for w in at.warning)
    assert [m.value for m in at.metric if m.label == "largest |eigenvalue|"]


def test_the_deltanet_preset_shows_one_largest_eigenvalue():
    """Metric, banner, spectrum title and quantity give the same |λ|: over the steps up to the divergence (the
    metric once took all T steps: 2847 beside the banner's 1782)."""
    at = open_page("eos_view")
    at.button(key=f"eos_view.preset.{next(n for n, p in enumerate(PRESETS) if 'DeltaNet' in p.label)}").click().run()
    assert_clean(at)
    [shown] = [m.value for m in at.metric if m.label == "largest |eigenvalue|"]
    [banner] = [w.value for w in at.warning if "diverged" in w.value]
    assert f"|λ| up to {shown})" in banner
    v = preset("DeltaNet")
    view = compute(v)
    assert float(shown) == pytest.approx(quantities(v, view)["spectral_radius"], rel=1e-3)
    assert f"largest |λ| = {shown}," in page.figures(v, view)["spectrum"].layout.title.text
    assert quantities(v, view)["spectral_radius"] < float(view.spectral_radius.max())   # later steps reach further


@pytest.mark.parametrize("name", VARIANTS)
def test_parallel_weights_reproduce_the_output(name):
    """y_t[c] = Σ_s W[t, s] i_s[c]: the parallel form and the recurrence agree."""
    view = inspect_layer("variant", name, T=24, d_model=5, expand_dim=3, channel=1)
    i_c = view.i[:, view.channel] if view.layout == "sequence" else view.i[:, 0]
    np.testing.assert_allclose(view.weights @ i_c, view.y[:, view.channel], atol=1e-9)


def cosine_weights(view, thetas: np.ndarray) -> np.ndarray:
    """W[t, s] = Σ_j cos((t − s)θ_j) q_t[j] k_s[j] (s ≤ t): what a rotating oscillation gives."""
    lag = np.subtract.outer(np.arange(len(view.s)), np.arange(len(view.s)))
    return np.tril(np.einsum("tj,sj,tsj->ts", view.s, view.e, np.cos(lag[..., None] * thetas)))


def test_lrpe_preset_rotates_and_w_holds_cosines_of_the_lag():
    v = preset("LRPE rotates")
    view = compute(v)
    thetas = np.angle(view.eigenvalues[0].reshape(v["k"], -1)[:, 0])     # one phase per memory row
    assert thetas[0] == pytest.approx(1.0)                                # row 0 turns a radian a step
    W = np.tril(view.weights)
    np.testing.assert_allclose(W, cosine_weights(view, thetas), atol=1e-9)
    plain = cosine_weights(view, np.zeros(v["k"]))                         # linear attention's masked QKᵀ
    moved = np.linalg.norm(W - plain) / np.linalg.norm(plain)
    assert 0.35 < moved < 0.7                                             # "about half of QKᵀ's size"
    assert quantities(v, view)["weights_vs_linear"] == pytest.approx(moved)
    row0 = view.memory[:, 0, :]                                           # Re of the fastest-turning row
    assert (np.sign(row0[1:]) != np.sign(row0[:-1])).mean() > 0.3          # flips sign every few steps
    assert quantities(v, view)["max_phase"] == pytest.approx(1.0)


def test_cosformer_preset_turns_by_22_degrees_in_128_steps():
    v = preset("Cosformer")
    view = compute(v)
    theta = np.pi / 1024
    np.testing.assert_allclose(np.angle(view.eigenvalues), theta, atol=1e-12)
    W = np.tril(view.weights)
    np.testing.assert_allclose(W, cosine_weights(view, np.full(v["k"], theta)), atol=1e-9)
    plain = cosine_weights(view, np.zeros(v["k"]))                         # linear attention's masked QKᵀ
    ratio = W[plain > 1e-9] / plain[plain > 1e-9]
    assert ratio.min() == pytest.approx(np.cos(127 * theta)) and ratio.min() > 0.92   # "within 8 %"
    assert np.degrees(128 * theta) == pytest.approx(22.5)


def test_the_other_presets_show_their_insight():
    view = compute(preset("Linear attention"))
    np.testing.assert_allclose(view.memory, view.memory[:1].repeat(len(view.memory), 0), atol=1e-12)
    assert compute(preset("DeltaNet explodes")).diverged_at is not None
    longhorn = compute(preset("Longhorn holds"))
    assert longhorn.diverged_at is None and longhorn.spectral_radius.max() <= 1 + 1e-9
    assert compute(preset("LCSM code")).title == "LCSM 1-9-1-0"
    for p in PRESETS:
        assert {"seed", "T", "k", "d", "signal", "scale"} <= set(p.values), p.label    # the picture is pinned

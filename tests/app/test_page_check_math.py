"""The Check-the-math page (lesson 10) loads, marks exactly the three wrong formulas, its live check passes,
every erratum in the sources gets a card with its verdict, its settings travel in the URL and its exercises
grade what the page shows."""
from collections import Counter

from lcsm_core.backward_check import compare_backward
from lcsm_core.errata import BY_ID, ERRATA, NAMING, NO_NUMERIC_CHECK, NOTATION, UNDEFINED, WRONG, check_errata
from lcsm_explorer.app.kit.page_text import stacked
from lcsm_explorer.app.lessons.check_math import PRESETS, SETTINGS, compute, quantities
from tests.app.pages import assert_clean, link_notes, open_page, url_value


def wrong_cards(at) -> int:
    return sum(e.value.startswith("wrong ·") for e in at.error)


def verdict_counts(at) -> dict[str, int]:
    """How many cards carry each kind of verdict box."""
    boxes = [e.value for e in at.error] + [w.value for w in at.warning] + [s.value for s in at.success] + [
        i.value for i in at.info]
    starts = dict(failing="printed form fails ·", naming="printed formula holds · a naming inconsistency",
                  ambiguous="printed form is ambiguous ·", notation=f"printed notation is wrong · {NO_NUMERIC_CHECK}",
                  holding="corrected form holds ·", unchecked=f"corrected form · {NO_NUMERIC_CHECK}")
    return {name: sum(box.startswith(start) for box in boxes) for name, start in starts.items()}


def test_every_erratum_has_a_card_with_its_quote_and_verdict():
    at = open_page("check_math")
    assert_clean(at)
    assert any(h.value == "Errata in the sources" for h in at.header)
    headers = [m.value for m in at.markdown]
    for erratum in ERRATA:
        assert f"**{erratum.source} · {erratum.location}**" in headers, erratum.id
    assert all(e.quote in [c.value for c in at.code] for e in ERRATA)      # each card quotes its seed
    latex = [x.value.strip("$\n") for x in at.latex]                       # st.latex wraps the source in $$
    assert all(stacked(e.printed) in latex and stacked(e.corrected) in latex for e in ERRATA)   # terms stacked
    assert stacked(BY_ID["lcsm-table7-m2"].detail) in latex                 # M2's stability region
    kinds = Counter(e.kind for e in ERRATA)
    expected = dict(failing=kinds[WRONG], naming=kinds[NAMING], ambiguous=kinds[UNDEFINED],
                    notation=kinds[NOTATION], holding=len(ERRATA) - kinds[NOTATION], unchecked=kinds[NOTATION])
    assert verdict_counts(at) == expected
    failing = [e.value for e in at.error if e.value.startswith("printed form fails ·")]
    unformable = sum(row["unformable"] for row in check_errata(seed=0))     # the shape errata
    assert unformable == 8 and sum("cannot be formed" in text for text in failing) == unformable
    checked = len(ERRATA) - kinds[NOTATION]
    assert any(m.label == "errata in the sources confirmed" and m.value == f"{checked} of {checked}"
               for m in at.metric)
    at.number_input(key="check_math.seed").set_value(123).run()             # a new draw: the same verdicts
    assert verdict_counts(at) == expected
    assert any("reading of k̄" in t.value.columns for t in at.dataframe)   # M2's readings, one row each


def test_page_marks_the_wrong_formulas_and_live_check_passes():
    at = open_page("check_math")
    assert_clean(at)
    assert wrong_cards(at) == 3
    assert any("gradcheck passes" in s.value for s in at.success)
    at.selectbox(key="check_math.psi").set_value("matrix").run()
    at.toggle(key="check_math.complex").set_value(True).run()
    at.slider(key="check_math.T").set_value(64).run()
    assert_clean(at)
    assert any("gradcheck passes" in s.value for s in at.success)
    assert url_value(at, "psi") == "matrix" and url_value(at, "complex") == "1" and url_value(at, "T") == "64"


def test_compare_backward_is_exact_in_fp64():
    for psi in ("elementwise", "matrix"):
        for complex_o in (False, True):
            result = compare_backward(psi, 9, 3, 5, complex_o)
            assert max(result["errors"].values()) < 1e-9 * max(1.0, result["scale"])
            assert result["gradcheck"]


def test_settings_sit_in_the_sidebar_and_come_from_the_link():
    at = open_page("check_math", dict(seed="7", psi="matrix", T="5", k="2", d="6", complex="1"))
    assert_clean(at)
    assert {"check_math.psi", "check_math.T", "check_math.k", "check_math.d"} <= {s.key for s in at.sidebar.slider} | {
        s.key for s in at.sidebar.selectbox}
    assert at.sidebar.number_input(key="check_math.seed").value == 7
    assert at.selectbox(key="check_math.psi").value == "matrix" and at.toggle(key="check_math.complex").value
    assert (at.slider(key="check_math.T").value, at.slider(key="check_math.k").value,
            at.slider(key="check_math.d").value) == (5, 2, 6)
    assert wrong_cards(at) == 3                                   # wrong on any random problem


def test_bad_link_falls_back_with_a_note():
    at = open_page("check_math", dict(psi="tensor", T="65", seed="-1"))
    assert not at.exception
    assert link_notes(at)
    assert at.selectbox(key="check_math.psi").value == "elementwise" and at.slider(key="check_math.T").value == 8


def test_every_preset_keeps_three_wrong_formulas_and_an_exact_backward():
    for p in PRESETS:
        v = {**SETTINGS.defaults, **p.values}
        assert set(p.values) == set(SETTINGS.defaults), p.label  # the seed included
        q = quantities(v, compute(v))
        assert q["n_wrong"] == 3 and q["n_wrong_matrix"] == 2 and q["worst_corrected_error"] < 1e-12, p.label
        assert q["gradcheck_passed"] == 1 and q["relative_error"] < 1e-12, p.label
        assert q["worst_printed_error"] > 1, p.label              # wrong by far more than rounding
        assert q["errata_confirmed"] == q["errata_checked"] == len(ERRATA) - 4, p.label   # 4 notation errors
        assert q["n_errata"] == len(ERRATA), p.label
    at = open_page("check_math")
    at.button(key="check_math.preset.0").click().run()          # Type 2, complex
    assert_clean(at)
    assert at.selectbox(key="check_math.psi").value == "matrix" and at.toggle(key="check_math.complex").value


def test_exercises_grade_the_page():
    at = open_page("check_math")
    for n, answer in ((0, 3), (1, 2), (3, 8), (4, 1.105), (5, -1)):   # …, eight unformable errata, e^0.1, −1
        at.number_input(key=f"check_math.exercise.{n}.answer").set_value(answer).run()
        at.button(key=f"check_math.exercise.{n}.check").click().run()
        assert any("Correct" in s.value for s in at.success), n
    at.button(key="check_math.exercise.2.check").click().run()
    assert any("Not yet" in e.value for e in at.error)         # defaults: ψ = ⊙, real, T = 8
    at = open_page("check_math", dict(psi="matrix", complex="1", T="32"))
    at.button(key="check_math.exercise.2.check").click().run()
    assert any("Correct" in s.value for s in at.success)
    at = open_page("check_math")
    at.number_input(key="check_math.exercise.3.answer").set_value(7).run()   # the count of an older list
    at.button(key="check_math.exercise.3.check").click().run()
    assert any("Not yet" in e.value for e in at.error) and not any("Correct" in s.value for s in at.success)


def test_preset_insights_typeset_their_math_and_name_no_variables():
    """Issue 21 item 4: the caption a preset leaves says f_t, dm_t as typeset math, never as ASCII source."""
    from tests.app.test_lesson_words import SNAKE, prose, tex_left

    for preset in PRESETS:
        assert not tex_left(preset.insight) and not SNAKE.findall(prose(preset.insight)), preset.insight

"""The Check-the-math page loads, marks exactly the three wrong formulas, and its live check passes."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

from lcsm_core.backward_check import compare_backward

PAGE = str(Path(__file__).resolve().parent.parent / "app" / "app_pages" / "check_math.py")


def test_page_marks_the_wrong_formulas_and_live_check_passes():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception
    assert sum("wrong" in e.value for e in at.error) == 3
    at.selectbox(key="psi").set_value("matrix").run()
    at.toggle(key="complex").set_value(True).run()
    at.slider(key="T").set_value(64).run()
    assert not at.exception
    assert any("gradcheck passes" in s.value for s in at.success)


def test_compare_backward_is_exact_in_fp64():
    for psi in ("elementwise", "matrix"):
        for complex_o in (False, True):
            result = compare_backward(psi, 9, 3, 5, complex_o)
            assert max(result["errors"].values()) < 1e-9 * max(1.0, result["scale"])
            assert result["gradcheck"]

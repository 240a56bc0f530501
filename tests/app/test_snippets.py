"""Every page's exported script runs on its own (a fresh python, lcsm_core only) and prints the numbers the
page computes at the same settings (a preset's, where the page has presets: every setting off its default
somewhere)."""
import math
import subprocess
import sys
from pathlib import Path

import pytest

from lcsm_explorer.app.kit.snippet import snippet_script
from lcsm_explorer.app.lessons import PAGES, lesson

ROOT = Path(__file__).resolve().parents[2]
COMPUTED = [page for page in PAGES if lesson(page).compute is not None]


def printed(script: str, where: Path = ROOT) -> dict[str, float]:
    """Run the script as a file, the way a learner who downloaded it would; its `name = value` lines."""
    path = where / "snippet.py"
    path.write_text(script)
    try:
        out = subprocess.run([sys.executable, str(path)], cwd=where, capture_output=True, text=True, timeout=240,
                             env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})
    finally:
        path.unlink()
    assert out.returncode == 0, out.stderr
    values = {}
    for line in out.stdout.splitlines():
        name, sep, value = line.partition(" = ")
        if sep:
            values[name] = float(value)
    return values


def test_every_page_exports_a_script():
    assert all(lesson(page).snippet is not None for page in PAGES)


@pytest.mark.parametrize("page", COMPUTED)
def test_the_script_prints_the_pages_numbers(page, tmp_path):
    spec = lesson(page)
    values = spec.presets[-1].state(spec.settings) if spec.presets else spec.settings.defaults
    script = snippet_script(spec, values)
    assert "import streamlit" not in script and "lcsm_explorer" not in script     # lcsm_core alone
    got = printed(script, tmp_path)
    page_numbers = page_quantities(spec, values)
    assert set(got) == set(spec.snippet.prints) and set(got) <= set(page_numbers)
    for name, value in got.items():
        expected = page_numbers[name]
        assert math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12) or (
            math.isinf(value) and math.isinf(expected)), (page, name, value, expected)


def page_quantities(spec, values) -> dict[str, float]:
    return {k: float(v) for k, v in spec.quantities(values, spec.compute(values)).items()}


def test_the_train_live_script_trains_the_pages_run(tmp_path):
    spec = lesson("train_live")
    values = {**spec.settings.defaults, "d_model": 8, "k": 8, "seq_len": 16, "vocab": 16, "kv_pairs": 2, "batch": 8,
              "layers": 1, "steps": 20}
    got = printed(snippet_script(spec, values), tmp_path)
    assert 1 <= got["steps"] <= 20 and 0 <= got["test_acc"] <= 1      # the step budget bounds the run


def test_the_paper_lab_script_runs_the_pages_grid(tmp_path):
    from lcsm_explorer.app.lessons.paper_lab import grid_spec
    spec = lesson("paper_lab")
    values = {**spec.settings.defaults, "ablation": "parameterization", "lengths": "32", "lrs": "0.01",
              "d_model": 16, "steps": 100, "seeds": 1}
    cells = float(grid_spec(values).cell_count)          # every reading of "0" the grid names, at one length/lr/seed
    assert printed(snippet_script(spec, values), tmp_path) == {"cells": cells, "ran_now": cells}
    assert (tmp_path / "paper_lab.sqlite").exists()


def test_the_page_shows_its_script_at_its_current_settings():
    from tests.app.pages import assert_clean, open_page
    at = open_page("spring", {"c": "0.7"})
    assert_clean(at, "spring")
    assert not [c for c in at.code if "simulate_spring(" in c.value]     # written once its expander is open
    at.session_state["spring.snippet.open"] = True
    at.run()
    [script] = [c.value for c in at.code if "simulate_spring(" in c.value]
    assert "simulate_spring(1.0, 0.7, 1.0, 'impulse'" in script
    assert any("Download the script" in b.label for b in at.get("download_button"))

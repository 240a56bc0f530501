"""Rules of the codebase that a test can hold: lint is clean, the core never imports UI libraries."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UI_LIBRARIES = {"streamlit", "plotly"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", ["lcsm_core", "kernels"])
def test_core_never_imports_ui_libraries(package):
    offenders = {str(p.relative_to(ROOT)): sorted(imported_modules(p) & UI_LIBRARIES)
                 for p in (ROOT / package).rglob("*.py") if imported_modules(p) & UI_LIBRARIES}
    assert not offenders, f"UI imports in {package}: {offenders}"


def test_ruff_is_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_app_has_one_cache_convention_and_one_figure_style():
    """st.cache_data only behind app/kit/cache.py's `cached`; figures built in one go by figure_style.build."""
    offenders = {}
    for path in (ROOT / "app").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found = [word for word in ("st.cache_data", "make_subplots", ".update_layout(", ".add_trace(")
                 if word in text and not (word == "st.cache_data" and path.name == "cache.py")]
        if found:
            offenders[str(path.relative_to(ROOT))] = found
    assert not offenders, offenders


def test_pages_are_declarations_not_scripts():
    """Every page is a Lesson in app/lessons/ drawn by the one renderer; no page scripts elsewhere."""
    assert not (ROOT / "app" / "app_pages").exists() and not (ROOT / "app" / "ui").exists()
    for path in (ROOT / "app" / "lessons").glob("*.py"):
        assert "sys.path" not in path.read_text(encoding="utf-8"), path.name

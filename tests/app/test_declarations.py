"""Every page in app/lessons/ is a declaration (issue 20). The rule, held over each page's `ast`:

- a page never imports streamlit, so it calls no `st.` anywhere: what it shows is data — figures, metrics and
  notices, a panel's blocks (`app/kit/blocks.py`), a live part (`app/kit/live.py:Live`) — drawn by `render_lesson`;
- from a kit module that draws (one that imports streamlit) it takes only the pure helpers named in PURE_HELPERS,
  never a drawing function (`show_chart`, `draw_blocks`, `render_live`, …);
- it ends in `LESSON = Lesson(...)`, and a page that starts work on the server declares it as a `Live`.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lcsm_explorer.app.kit.lesson import Lesson
from lcsm_explorer.app.kit.live import Live
from lcsm_explorer.app.lessons import PAGES, lesson

ROOT = Path(__file__).resolve().parents[2]
LESSONS, KIT = ROOT / "app" / "lessons", ROOT / "app" / "kit"
PURE_HELPERS = {"chart_spec", "ChartSpec", "presenter_figure"}     # pure functions kept beside drawing code


def imports_streamlit(tree: ast.AST) -> bool:
    return any(isinstance(node, ast.Import) and any(a.name.split(".")[0] == "streamlit" for a in node.names)
               or isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "streamlit"
               for node in ast.walk(tree))


def kit_module_draws(name: str) -> bool:
    path = KIT / f"{name}.py"
    return path.exists() and imports_streamlit(ast.parse(path.read_text(encoding="utf-8")))


def drawing_imports(tree: ast.AST) -> list[str]:
    """`module.name` for every name a page imports from a kit module that draws, other than the pure helpers."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lcsm_explorer.app.kit."):
            module = node.module.split(".")[3]
            if kit_module_draws(module):
                found += [f"{module}.{a.name}" for a in node.names if a.name not in PURE_HELPERS]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("lcsm_explorer.app.kit.")]  # a module: all of it
    return found


def names_st(tree: ast.AST) -> list[int]:
    """Lines that read a name `st` (a call of streamlit however it came in)."""
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "st"]


PAGE_FILES = sorted(p for p in LESSONS.glob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", PAGE_FILES, ids=[p.stem for p in PAGE_FILES])
def test_a_page_draws_nothing_itself(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    assert not imports_streamlit(tree), f"{path.name} imports streamlit: declare blocks or a Live instead"
    assert not names_st(tree), f"{path.name} names `st` on lines {names_st(tree)}"
    assert not drawing_imports(tree), f"{path.name} imports drawing code from the kit: {drawing_imports(tree)}"


def test_every_page_file_is_a_lesson_and_the_live_ones_are_declared():
    assert {p.stem for p in PAGE_FILES} == set(PAGES)
    for page in PAGES:
        declared = lesson(page)
        assert isinstance(declared, Lesson) and declared.page == page
        assert declared.live is None or isinstance(declared.live, Live), page
    assert isinstance(lesson("train_live").live, Live) and lesson("train_live").live.owned_run
    assert isinstance(lesson("paper_lab").live, Live) and not lesson("paper_lab").live.owned_run


def test_the_rule_catches_a_page_that_draws(tmp_path):
    """The checks above fail on the patterns they exist for."""
    script = ast.parse("import streamlit as st\nfrom lcsm_explorer.app.kit.widgets import show_chart\nst.write(1)\n")
    assert imports_streamlit(script) and names_st(script) == [3] and drawing_imports(script) == ["widgets.show_chart"]
    pure = ast.parse("from lcsm_explorer.app.kit.chart_element import chart_spec\n"
                     "from lcsm_explorer.app.kit.blocks import Text\n")
    assert not imports_streamlit(pure) and not drawing_imports(pure)

"""One door to private internals: outside app/kit/internals/ the app uses Streamlit's, plotly's and tornado's public
API only, and names no element of Streamlit's page markup.

Held by reading the source (ast): no import of a private module (`PRIVATE_MODULES`); no `_`-prefixed attribute
that the project does not define itself (`own_names`: its own `_helpers` are not this rule's business; what is
left is a private attribute of a library object, `fig._layout`, `st._main`, `AppSession._on_…`); no data-testid,
data-baseweb or st… class selector in a Python string, nor a data-testid selector in a script or style sheet.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOOR = ROOT / "app" / "kit" / "internals"
PRIVATE_MODULES = ("streamlit.runtime", "streamlit.elements.lib", "streamlit.web", "streamlit.proto",
                   "streamlit.delta_generator", "_plotly_utils", "plotly.validator_cache", "tornado")
# the standard library's documented names that start with "_" (namedtuple's API, os._exit)
PUBLIC_UNDERSCORED = frozenset(("_exit", "_replace", "_asdict", "_fields", "_field_defaults", "_make"))
MARKUP = re.compile(r"data-testid|data-baseweb|(?<![\w-])\.st[A-Z]\w*|\.block-container")
MARKUP_SELECTOR = re.compile(r"\[data-testid|\[data-baseweb|(?<![\w-])\.st[A-Z]\w*")


def outside_the_door(suffix: str = "*.py") -> list[Path]:
    return [path for path in (ROOT / "app").rglob(suffix) if DOOR not in path.parents]


def own_names(paths) -> set[str]:
    """Every name the project defines that an attribute can reach: functions, classes, module and class variables,
    and attributes it sets on `self` or `cls`."""
    found = set()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        scopes = [tree.body] + [node.body for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
        for body in scopes:
            for node in body:
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign) else []
                found.update(t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                found.add(node.attr)
    return found


def project_names() -> set[str]:
    return own_names([path for folder in ("app", "lcsm_core", "lcsm_serving") for path in (ROOT / folder).rglob("*.py")
                      if DOOR not in path.parents])


def private_reaches(path: Path, own: set[str]) -> list[str]:
    """Each private import, library `_attribute` and markup selector in the Python file `path`, as "line: what"."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else []
        found += [f"{node.lineno}: import {name}" for name in modules
                  if any(name == private or name.startswith(private + ".") for private in PRIVATE_MODULES)]
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.endswith("__") \
                and node.attr not in own and node.attr not in PUBLIC_UNDERSCORED:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and MARKUP.search(node.value):
            found.append(f"{node.lineno}: markup {MARKUP.search(node.value).group()!r}")
    return sorted(found, key=lambda item: int(item.split(":")[0]))


def test_private_internals_are_reached_only_through_the_door():
    own = project_names()
    offenders = {str(path.relative_to(ROOT)): found for path in outside_the_door()
                 if (found := private_reaches(path, own))}
    offenders.update({str(path.relative_to(ROOT)): MARKUP_SELECTOR.findall(path.read_text(encoding="utf-8"))
                      for suffix in ("*.js", "*.css") for path in outside_the_door(suffix)
                      if MARKUP_SELECTOR.search(path.read_text(encoding="utf-8"))})
    assert not offenders, f"private internals outside app/kit/internals/: {offenders}"


def test_the_door_rule_sees_each_kind_of_reach(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('"""A page."""\nimport streamlit as st\nfrom streamlit.runtime.state import get_session_state\n'
                    "import tornado.web\n\n\ndef _mine(fig):\n    return fig._layout, st._main, _mine, os._exit\n\n\n"
                    'STYLE = \'[data-testid="stMetric"] { } .stButton { } .st-key-mine { }\'\n')
    found = private_reaches(path, own_names([path]))
    assert found == ["3: import streamlit.runtime.state", "4: import tornado.web", "8: fig._layout", "8: st._main",
                     "11: markup 'data-testid'"], found
    assert MARKUP.findall('.st-key-mine .stButton') == [".stButton"] and not MARKUP.search("first.Stop st.App")

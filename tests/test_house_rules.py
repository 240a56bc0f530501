"""Rules of the codebase that a test can hold: lint is clean, the core never imports UI libraries."""
import ast
import io
import re
import subprocess
import sys
import tokenize
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


@pytest.mark.parametrize("package", ["lcsm_core", "kernels", "lcsm_serving"])
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


# --- the structure the README draws: kernels a leaf, serving above the core, no cycle between packages -----
PACKAGES = ("lcsm_core", "kernels", "lcsm_serving")


def package_node(module: str) -> str | None:
    """The node a module belongs to in the package graph: `kernels`, a subpackage or top-level module of the
    core or of serving (`lcsm_core.scan`, `lcsm_serving.store`), or a facade (`lcsm_core`); None outside them."""
    parts = module.removeprefix("lcsm_explorer.").split(".")
    if parts[0] == "kernels":
        return "kernels"
    if parts[0] not in ("lcsm_core", "lcsm_serving"):
        return None
    return parts[0] if len(parts) == 1 else f"{parts[0]}.{parts[1]}"


def is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.removeprefix("lcsm_explorer.").split("."))
    return path.is_dir() or path.with_suffix(".py").exists()


def import_edges() -> dict[str, dict[str, str]]:
    """{node: {imported node: a file that imports it}}, every import counted (function-level ones too: a lazy
    import still ties the packages together)."""
    edges: dict[str, dict[str, str]] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            here = parts[:-1]                                        # the package a relative import starts from
            if parts[-1] == "__init__":
                parts = parts[:-1]
            source = package_node(".".join(parts))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
                targets = []
                if isinstance(node, ast.Import):
                    targets = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = ".".join(here[:len(here) - node.level + 1] + [node.module or ""]).strip(".") \
                        if node.level else node.module
                    targets = [f"{base}.{alias.name}" if is_module(f"{base}.{alias.name}") else base
                               for alias in node.names]
                for target in targets:
                    dest = package_node(target)
                    if dest and dest != source:
                        edges.setdefault(source, {}).setdefault(dest, str(path.relative_to(ROOT)))
    return edges


def test_app_and_kernels_are_imported_by_their_one_name():
    """app/ and kernels/ are `lcsm_explorer.app` and `lcsm_explorer.kernels` (the names a wheel installs); an import
    of a bare `app` or `kernels` would load a second copy of every module with its own state."""
    offenders = sorted(f"{path.relative_to(ROOT)}: {name}" for folder in ("app", "kernels", "lcsm_core", "lcsm_serving",
                                                                             "lcsm_explorer", "tests", "benchmarks",
                                                                             "scripts")
                       for path in (ROOT / folder).rglob("*.py")
                       for name in imported_modules(path) if name in ("app", "kernels", "lessons"))
    assert not offenders, offenders


def test_kernels_import_nothing_of_the_core():
    """kernels/ takes plain tensors of validated shapes; validation lives in lcsm_core.scan.kernel."""
    offenders = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "kernels").rglob("*.py")
                       if "lcsm_core" in imported_modules(p))
    assert not offenders, f"kernels/ must not import lcsm_core: {offenders}"


def test_the_core_never_imports_serving():
    """Serving (the run store, trainer service, admission, classes, the grid runner) is built on the core; the core
    is math and a training loop, and imports none of it, not even inside a function."""
    offenders = sorted(f"{source} -> {dest} ({path})" for source, targets in import_edges().items()
                       if not source.startswith("lcsm_serving")
                       for dest, path in targets.items() if dest.startswith("lcsm_serving"))
    assert not offenders, offenders


def test_no_package_cycle():
    """The core's subpackages, top-level modules and kernels/ import each other without a cycle."""
    edges = import_edges()
    state: dict[str, str] = {}

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        state[node] = "open"
        for dest in sorted(edges.get(node, {})):
            if state.get(dest) == "open":
                return path[path.index(dest):] + [dest] if dest in path else [node, dest]
            if dest not in state and (found := cycle_from(dest, path + [dest])):
                return found
        state[node] = "done"
        return None

    for start in sorted(edges):
        if start not in state and (cycle := cycle_from(start, [start])):
            where = [f"{a} -> {b} ({edges[a][b]})" for a, b in zip(cycle, cycle[1:])]
            pytest.fail("package cycle: " + "; ".join(where))


def test_the_import_graph_sees_the_edges_it_should():
    """A guard on the walker itself: known imports of the core are found."""
    edges = import_edges()
    assert "lcsm_core.scan" in edges["lcsm_core.variants"]
    assert "kernels" in edges["lcsm_core.scan"]                           # as lcsm_explorer.kernels
    assert "lcsm_core.scan" in edges["lcsm_core.training"]
    assert {"lcsm_core.training", "lcsm_serving.store"} <= set(edges["lcsm_serving.manager"])


def test_test_modules_have_unique_names():
    """The tests/ folders are not packages (only tests/core is), so pytest imports each test module by its bare
    name: two `test_x.py` in different folders stop the whole collection in a fresh clone."""
    seen: dict[str, Path] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if (path.parent / "__init__.py").exists():
            continue
        assert path.name not in seen, f"{path.relative_to(ROOT)} and {seen[path.name].relative_to(ROOT)}: rename one"
        seen[path.name] = path


# --- docstrings and comments say what and why; history lives in commit messages and benchmarks/results/ -----
ISSUE_REFERENCE = re.compile(r"\bissues? ?#?\d+", re.IGNORECASE)


def docstrings_and_comments(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every docstring (module, class, function) and every comment of a Python file."""
    source = path.read_text(encoding="utf-8")
    found = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
             if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=False)
            if text:
                found.append((node.body[0].lineno, text))
    return found


def test_no_docstring_or_comment_tells_an_issues_history():
    """'issue 24, item 6' points at a tracker a reader of the code does not have: say what and why instead."""
    offenders = [f"{path.relative_to(ROOT)}:{line}" for folder in ("app", "lcsm_core", "lcsm_serving")
                 for path in (ROOT / folder).rglob("*.py")
                 for line, text in docstrings_and_comments(path) if ISSUE_REFERENCE.search(text)]
    offenders += [str(path.relative_to(ROOT)) for suffix in ("*.js", "*.css") for path in (ROOT / "app").rglob(suffix)
                  if ISSUE_REFERENCE.search(path.read_text(encoding="utf-8"))]
    assert not offenders, offenders


def test_the_history_rule_sees_a_docstring_and_a_comment(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('"""A module (issue 24, item 6)."""\nx = 1  # see issue 19\ny = "issue 3 in a string is data"\n')
    assert [line for line, text in docstrings_and_comments(path) if ISSUE_REFERENCE.search(text)] == [2, 1]


# --- no circle inside the app: a module graph of app/ (function-level imports included) ------------------------
# No circle inside the app: a page's declaration (lesson, live, blocks) never imports what draws it.
def app_module_edges() -> dict[str, set[str]]:
    modules = {".".join(p.relative_to(ROOT / "app").with_suffix("").parts).removesuffix(".__init__").removesuffix(
        "__init__"): p for p in (ROOT / "app").rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".") if package else []
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                elif (node.module or "").startswith("lcsm_explorer.app"):
                    base = node.module.removeprefix("lcsm_explorer.app").lstrip(".")
                else:
                    continue
                for alias in node.names:
                    target = f"{base}.{alias.name}".lstrip(".")
                    target = target if target in modules else base
                    if target in modules and target != name:
                        edges.setdefault(name, set()).add(target)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    target = alias.name.removeprefix("lcsm_explorer.app.")
                    if alias.name.startswith("lcsm_explorer.app.") and target in modules and target != name:
                        edges.setdefault(name, set()).add(target)
    return edges


def circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module."""
    order, low, stack, found, counter = {}, {}, [], [], [0]

    def visit(node):
        order[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        for dest in edges.get(node, ()):
            if dest not in order:
                visit(dest)
                low[node] = min(low[node], low[dest])
            elif dest in stack:
                low[node] = min(low[node], order[dest])
        if low[node] == order[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(edges):
        if node not in order:
            visit(node)
    return found


def test_no_circle_inside_the_app():
    found = circles(app_module_edges())
    assert not found, [sorted(c) for c in found]


def test_the_circle_finder_sees_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert {"kit.preview", "kit.render"} & set(app_module_edges()) and circles({"a": {"b"}}) == []

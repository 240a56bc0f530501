"""One source per fact: the spring's matrices, what a sweep frame replaces, Train live's default learning rate."""
import ast
import io
import re
import tokenize
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def code_without_text(path: Path) -> str:
    """The file's code tokens, comments and strings (docstrings too) left out."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return " ".join(t.string for t in tokens if t.type not in (tokenize.COMMENT, tokenize.STRING))


def python_files(*folders: str):
    for folder in folders:
        yield from (ROOT / folder).rglob("*.py")


def test_the_springs_matrices_are_written_once():
    """A = [[0, 1], [-k/m, -c/m]] and B = [0, 1/m]ᵀ live in `spring_matrices`; everything else calls it."""
    written = re.compile(r"-\s*(k|c|ks|cs|kappa|stiffness|damping)\w*\s*/\s*(m|ms|mass)\b")
    places = sorted(str(p.relative_to(ROOT)) for p in python_files("app", "lcsm_core", "lcsm_serving")
                    if written.search(code_without_text(p)))
    assert places == ["lcsm_core/dynamics/spring.py"]


def test_spring_matrices_are_the_state_space_and_broadcast():
    from lcsm_core.dynamics.spring import spring_mass_damper, spring_matrices
    A, B = spring_matrices([1.0, 0.5], 0.2, [1.0, 3.0])
    assert A.shape == (2, 2, 2) and B.shape == (2, 2, 1)
    for j, (m, k) in enumerate([(1.0, 1.0), (0.5, 3.0)]):
        sys = spring_mass_damper(m, 0.2, k)
        np.testing.assert_array_equal(A[j], sys.A)
        np.testing.assert_array_equal(B[j], sys.B)


def test_what_a_frame_replaces_is_named_in_python_only():
    """instrument.js gets sweep_figure.MOVING_DATA and MOVING_LAYOUT in the page's payload."""
    script = (ROOT / "app" / "kit" / "instrument.js").read_text(encoding="utf-8")
    assert "MOVING_DATA =" not in script and "MOVING_LAYOUT =" not in script
    assert "payload.moving" in script
    written = [p.name for p in python_files("app") if re.search(r"\bMOVING_(DATA|LAYOUT)\s*=", p.read_text())]
    assert written == ["sweep_figure.py"]
    assert '"customdata"' not in (ROOT / "app" / "kit" / "instrument.py").read_text(encoding="utf-8")


def learning_rates_written(tree: ast.AST):
    """Numbers a file writes as a learning rate: `lr=0.1`, `lr: float = 0.1`, `{"lr": 0.1}`, `Setting.x("lr", label,
    0.1)`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "lr":
            yield node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "lr":
            yield node.value
        elif isinstance(node, ast.Dict):
            yield from (value for key, value in zip(node.keys, node.values)
                        if isinstance(key, ast.Constant) and key.value == "lr")
        elif isinstance(node, ast.Call) and len(node.args) >= 3 and isinstance(node.args[0], ast.Constant) \
                and node.args[0].value == "lr":
            yield node.args[2]


def test_train_lives_default_learning_rate_is_written_once():
    """OptimConfig.lr is the default; the page's defaults and presets, PAGE_DEFAULTS and the CLI refer to it."""
    files = [ROOT / "app" / "lessons" / "train_live.py",
             *(ROOT / "lcsm_core" / "training").rglob("*.py"), *ROOT.joinpath("lcsm_serving").rglob("*.py")]
    found = [f"{path.relative_to(ROOT)}:{value.lineno}" for path in files
             for value in learning_rates_written(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(value, ast.Constant)]
    assert found == ["lcsm_core/training/config.py:79"], found

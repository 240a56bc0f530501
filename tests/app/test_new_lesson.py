"""`python -m app/kit/new_lesson.py NAME` writes a lesson the lesson tests accept, touching at most four files.

On a copy of the working tree (tracked and untracked files, what git does not ignore): the scaffold runs there,
git status counts what it wrote or changed, and the lesson tests run there on the new page (the tests
parametrized by page, filtered to it; the others, which walk every lesson, whole, but for the two that train
another page's model and the general link checks of test_widget_sweep and test_url_fuzz).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lcsm_explorer.app.kit.new_lesson import _registry

ROOT = Path(__file__).resolve().parents[2]
PAGE = "memory_decay"
LESSON_TESTS = ("test_lessons", "test_challenges", "test_declarations", "test_lesson_files", "test_reading_order",
                "test_snippets", "test_lesson_words", "test_figure_hygiene", "test_figure_validation",
                "test_chart_text", "test_figure_colour", "test_chart_controls", "test_classroom", "test_page_home",
                "test_lesson_isolation", "test_progress_store", "test_widget_sweep", "test_url_fuzz")
OTHER_PAGES_TRAINING = ("paper_lab", "train_live")      # their own slow tests (a minute of training) say nothing here
PAGE_ONLY = ("test_widget_sweep", "test_url_fuzz")      # only their tests of each page: the rest check links in general


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=where, check=True,
                          capture_output=True, text=True).stdout


def copy_of_the_tree(to: Path) -> Path:
    """The working tree's files (browser tests left out) in a fresh git repository at `to`."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the repository as a git checkout (its file list) and git")
    names = git(ROOT, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    for name in filter(None, names):
        source = ROOT / name
        if not source.is_file() or (name.startswith("tests/browser/test_")):
            continue
        (to / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, to / name)
    git(to, "init", "-q")
    git(to, "add", "-A")
    git(to, "commit", "-q", "-m", "the tree")
    return to


def python(where: Path, *args: str, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("LCSM_DATA_DIR", None)                         # the copy's tests make their own store
    return subprocess.run([sys.executable, *args], cwd=where, capture_output=True, text=True, timeout=timeout, env=env)


def test_the_registry_edit_keeps_the_tuple_and_its_lines():
    text = 'X = 1\nPAGES = ("a", "b",\n         "c")\n\n\ndef f():\n    pass\n'
    assert _registry(text, "d") == 'X = 1\nPAGES = ("a", "b",\n         "c", "d")\n\n\ndef f():\n    pass\n'
    long = f'PAGES = ({", ".join(repr("p" * 10) for _ in range(9))})\n'
    assert _registry(long, "new").endswith(',\n         "new")\n')


@pytest.mark.slow
def test_a_new_lesson_is_four_files_and_passes_the_lesson_tests(tmp_path):
    copy = copy_of_the_tree(tmp_path / "tree")
    made = python(copy, "-m", "lcsm_explorer.app.kit.new_lesson", PAGE, "--title", "A memory that decays", timeout=60)
    assert made.returncode == 0, made.stderr
    changed = sorted(line[3:] for line in git(copy, "status", "--porcelain", "-uall").splitlines())
    assert changed == sorted(["app/lessons/__init__.py", f"app/lessons/{PAGE}.py", "lessons/README.md",
                              f"lessons/11-{PAGE.replace('_', '-')}.md"]), changed
    again = python(copy, "-m", "lcsm_explorer.app.kit.new_lesson", PAGE, timeout=60)
    assert again.returncode != 0 and "a lesson already" in again.stderr

    files = [f"tests/app/{name}.py" for name in LESSON_TESTS]
    collected = python(copy, "-m", "pytest", "--collect-only", "-q", "-m", "not browser", "-p", "no:cacheprovider",
                       *files, timeout=300)
    assert collected.returncode == 0, collected.stdout[-3000:]
    ids = [line for line in collected.stdout.splitlines() if "::" in line
           and (PAGE in line or PAGE.replace("_", "-") in line
                or "[" not in line and not any(f"/{name}.py" in line for name in PAGE_ONLY))
           and not any(other in line for other in OTHER_PAGES_TRAINING)]
    assert sum(PAGE in i or PAGE.replace("_", "-") in i for i in ids) >= 20, ids   # the new page's own checks
    (tmp_path / "ids.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")
    run = python(copy, "-m", "pytest", "-q", "-x", "-m", "not browser", "-p", "no:cacheprovider",
                 f"@{tmp_path / 'ids.txt'}", timeout=300)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    ruff = python(copy, "-m", "ruff", "check", f"app/lessons/{PAGE}.py", "app/lessons/__init__.py", timeout=60)
    assert ruff.returncode == 0, ruff.stdout

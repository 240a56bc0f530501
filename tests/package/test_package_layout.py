"""The package a school installs: pyproject names every package folder under the import name it has in a checkout,
no generic top-level name is installed, the command line answers, and the data folder is never the package's."""
import subprocess
import sys
import tomllib
from pathlib import Path

from lcsm_serving.store import data_dir, default_data_dir

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
MAPPED = SETUPTOOLS["package-dir"]                       # import name -> folder in the repository


def folder_of(package: str) -> Path:
    for name, folder in sorted(MAPPED.items(), key=lambda kv: -len(kv[0])):
        if package == name or package.startswith(name + "."):
            return ROOT / folder / package[len(name):].lstrip(".").replace(".", "/")
    return ROOT / package.replace(".", "/")


def test_every_package_folder_is_listed_under_its_import_name():
    listed = set(SETUPTOOLS["packages"])
    on_disk = set()
    for top, name in (("lcsm_core", "lcsm_core"), ("lcsm_serving", "lcsm_serving"), ("lcsm_explorer", "lcsm_explorer"),
                      ("app", "lcsm_explorer.app"), ("kernels", "lcsm_explorer.kernels")):
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / top).parts
            on_disk.add(".".join([name, *rel]))
    assert on_disk | {"lcsm_explorer.lessons"} == listed
    assert all(folder_of(p).is_dir() for p in listed)
    assert {p.split(".")[0] for p in listed} == {"lcsm_core", "lcsm_serving", "lcsm_explorer"}     # nothing generic


def test_the_files_the_app_reads_are_package_data():
    data = SETUPTOOLS["package-data"]
    shipped = {path for package, patterns in data.items() for pattern in patterns
               for path in folder_of(package).glob(pattern)}
    needed = [*ROOT.joinpath("app").rglob("*.js"), *ROOT.joinpath("app").rglob("*.css"),
              ROOT / "app" / "haproxy.cfg.in", *ROOT.joinpath("lessons").glob("*.md"),
              *ROOT.joinpath("lcsm_core", "paper_lab", "results").rglob("*.json")]
    assert needed and not [str(p.relative_to(ROOT)) for p in needed if p not in shipped]


def test_the_pins_are_constraints_and_the_ranges_admit_them():
    pins = dict(line.split("==") for line in (ROOT / "constraints.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    declared = [*PYPROJECT["project"]["dependencies"],
                *(r for extra in PYPROJECT["project"]["optional-dependencies"].values() for r in extra)]
    from packaging.requirements import Requirement
    for text in declared:
        requirement = Requirement(text)
        name = requirement.name.lower()
        assert name in pins, f"{name} has no tested version in constraints.txt"
        assert requirement.specifier.contains(pins[name]), f"{text} excludes the tested {name}=={pins[name]}"
    assert not (ROOT / "requirements.txt").exists()


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "lcsm_explorer", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_the_command_names_its_commands_and_refuses_an_unknown_one():
    ok = run("--help")
    assert ok.returncode == 0 and all(f"  {c}" in ok.stdout for c in ("serve", "train", "paper-lab", "service",
                                                                      "check", "lessons"))
    unknown = run("teach")
    assert unknown.returncode == 2 and "unknown command 'teach'" in unknown.stderr
    train_help = run("train", "--help")
    assert train_help.returncode == 0 and train_help.stdout.startswith("usage: lcsm-explorer train")


def test_lessons_export_gives_an_editable_copy_and_never_overwrites(tmp_path):
    target = tmp_path / "lessons"
    assert run("lessons", "export", str(target)).returncode == 0
    assert sorted(p.name for p in target.glob("*.md")) == sorted(p.name for p in (ROOT / "lessons").glob("*.md"))
    again = run("lessons", "export", str(target))
    assert again.returncode == 2 and "not empty" in again.stderr


def test_state_lives_in_one_folder_never_the_packages(monkeypatch, tmp_path):
    monkeypatch.delenv("LCSM_DATA_DIR", raising=False)
    assert default_data_dir() == ROOT / "data" and data_dir() == ROOT / "data"        # a checkout
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    assert data_dir() == tmp_path and data_dir("elsewhere") == Path("elsewhere")

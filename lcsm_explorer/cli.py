"""`lcsm-explorer` (also `python -m lcsm_explorer`): one command for what a school or a researcher runs.

    lcsm-explorer serve [--processes N] [--port P] ...   the app (one web process, or several behind HAProxy)
    lcsm-explorer service [--db FILE]                     the trainer service of a run store
    lcsm-explorer train --task mqar --variant gla ...     one training run into the store
    lcsm-explorer paper-lab --grid NAME ...               the paper lab's grids
    lcsm-explorer check                                   the core's self-check (about a minute)
    lcsm-explorer backup DEST                             a copy of the data folder (while it runs)
    lcsm-explorer lessons export DIR                      an editable copy of the lesson texts

Each sub-command takes the options of the module it runs (`lcsm-explorer train --help`). The data directory
(the run store, classes, the token key) is $LCSM_DATA_DIR, else the user's data folder (lcsm_serving.data_dir)."""
from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path


def _serve(argv: list[str]) -> int:
    from lcsm_explorer.app import web_tier
    return web_tier.main(argv)


def _service(argv: list[str]) -> int:
    from lcsm_serving import service
    return service.main(argv)


def _train(argv: list[str]) -> int:
    from lcsm_serving import train
    return train.main(argv)


def _paper_lab(argv: list[str]) -> int:
    from lcsm_serving.paper_lab import cli
    return cli.main(argv)


def _check(argv: list[str]) -> int:
    from lcsm_core import self_check
    return self_check.main(argv)


def _backup(argv: list[str]) -> int:
    from lcsm_serving import backup
    return backup.main(argv)


def _lessons(argv: list[str]) -> int:
    from lcsm_explorer import lessons_dir
    if len(argv) != 2 or argv[0] != "export":
        print("usage: lcsm-explorer lessons export DIR   (an editable copy of the lesson texts; "
              "LCSM_LESSONS_DIR=DIR makes the app read them)", file=sys.stderr)
        return 2
    target = Path(argv[1])
    if target.exists() and any(target.iterdir()):
        print(f"lcsm-explorer: {target} is not empty; choose a new folder", file=sys.stderr)
        return 2
    shutil.copytree(lessons_dir(), target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    print(f"the lesson texts are in {target}; start the app with LCSM_LESSONS_DIR={target} to use them")
    return 0


COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "serve": (_serve, "start the app"),
    "service": (_service, "run the trainer service of a run store"),
    "train": (_train, "train one run into the store"),
    "paper-lab": (_paper_lab, "run the paper lab's grids"),
    "check": (_check, "the core's self-check (about a minute)"),
    "backup": (_backup, "backup DEST: a copy of the data folder, taken while the server runs"),
    "lessons": (_lessons, "lessons export DIR: an editable copy of the lesson texts"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:{width}s}  {what}" for name, (_, what) in COMMANDS.items()]
    return "usage: lcsm-explorer COMMAND [options]\n\ncommands:\n" + "\n".join(lines) + \
        "\n\n`lcsm-explorer COMMAND --help` for a command's options."


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"lcsm-explorer: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    return COMMANDS[name][0](rest) or 0


if __name__ == "__main__":
    sys.exit(main())

"""Write one `## heading` section of a shared results file, keeping every other section as it is (several
scripts write into benchmarks/results/reliability-cpu.md, each its own section)."""
from __future__ import annotations

import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
RELIABILITY = RESULTS / "reliability-cpu.md"
TITLE = "# Reliability on the project CPU\n"


def write_section(heading: str, body: str, path: Path = RELIABILITY) -> None:
    """Replace the section under `## heading` (up to the next `## `) with `body`, or append it."""
    text = path.read_text(encoding="utf-8") if path.exists() else TITLE
    section = f"## {heading}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(heading)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")

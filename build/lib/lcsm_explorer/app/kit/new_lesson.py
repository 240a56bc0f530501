"""Start a new lesson: `python -m lcsm_explorer.app.kit.new_lesson NAME [--title "Title"]` from the repository root.

It writes the minimal lesson the lesson tests accept, as a starting point to rewrite:

- `app/lessons/NAME.py`, the page's declaration (settings, presets, one call into lcsm_core, a chart, metrics,
  quantities, an equation, a snippet);
- `lessons/NN-NAME.md`, its text (objectives, story, 3 "try this" steps, 2 exercises, a challenge with its
  `solution:` line, the quantities' words);

and adds the page to the end of `PAGES` in `app/lessons/__init__.py` and a row to the quantities table of
`lessons/README.md`. README.md "Add a lesson" lists every rule the tests then hold the page to.
"""
from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = Path("app") / "lessons" / "__init__.py"
LESSON_README = Path("lessons") / "README.md"
NAME = re.compile(r"^[a-z][a-z0-9_]*[a-z0-9]$")
QUANTITIES = ("r", "steps", "last_value", "peak_value")

PAGE = '''"""Lesson {number} · {title}: one memory h_t = r h_t-1 + δ_t, read through the EOS scan.

Prose and exercises: lessons/{file}. Every number comes from `impulse_responses` (lcsm_core).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lcsm_explorer.app.kit.figure_style import BLUE, axis, build, scatter
from lcsm_explorer.app.kit.lesson import Lesson, Metric, Snippet
from lcsm_explorer.app.kit.settings import Preset, Setting, Settings
from lcsm_core.dynamics.eigen_responses import impulse_responses

SETTINGS = Settings("{page}", (
    Setting.slider("r", "decay r", 0.9, 0.5, 1.05, step=0.001, format="%.3f"),
    Setting.slider("steps", "steps", 50, 10, 200),
))

PRESETS = (
    Preset("🧊 Short memory", dict(r=0.5), "r = 0.5: the memory halves every step and is gone within 50.",
           claim=("last_value < 1e-6",)),
    Preset("🐘 Long memory", dict(r=0.999), "r = 0.999: after 50 steps most of the first input is still there.",
           claim=("last_value > 0.9",)),
    Preset("💥 Growing", dict(r=1.02), "r > 1: every step multiplies the memory, and it grows without bound.",
           claim=("last_value > 2",)),
)


def compute(v: dict) -> np.ndarray:
    """h_t for t = 0..steps−1 (complex), one call into the core."""
    return impulse_responses(np.array([v["r"]]), v["steps"])[0]


def metrics(v: dict, h: np.ndarray) -> list:
    return [Metric("value at the last step", f"{{abs(h[-1]):.3g}}"),
            Metric("largest value", f"{{np.abs(h).max():.3g}}")]


def quantities(v: dict, h: np.ndarray) -> dict[str, float]:
    return dict(r=v["r"], steps=v["steps"], last_value=float(abs(h[-1])), peak_value=float(np.abs(h).max()))


def equations(q: dict) -> list[str]:
    return [rf"h_t = {{q['r']:.4g}}\\,h_{{{{t-1}}}} + \\delta_t"
            rf"\\qquad |h_{{{{{{q['steps'] - 1}}}}}}| = {{q['last_value']:.4g}}"]


def figures(v: dict, h: np.ndarray) -> dict[str, go.Figure]:
    trace = scatter(x=np.arange(len(h)), y=h.real, mode="lines+markers", name="h(t)", line=dict(color=BLUE))
    return dict(response=build([trace], "Memory after one input", legend=False, xaxis=axis("step t"),
                               yaxis=axis("h(t)")))


LESSON = Lesson(
    page="{page}", number={number}, title="{title}", icon="🧩", section="Sequence models",
    summary="One decay r: how long a memory lasts.",
    settings=SETTINGS, presets=PRESETS, sidebar_title="🧩 {title}",
    compute=compute, figures=figures, charts=(("response",),),
    metrics=metrics, quantities=quantities, equations=equations,
    chart_readouts=(("response", ("value at the last step",)),),
    chart_controls=("r",),
    caption="The memory is computed by the EOS scan (o = r, e = 1, i = δ, s = 1).",
    snippet=Snippet(
        imports="import numpy as np\\nfrom lcsm_core.dynamics.eigen_responses import impulse_responses",
        call="impulse_responses(np.array([{{r}}]), {{steps}})[0]",
        prints=dict(last_value="abs(result[-1])", peak_value="np.abs(result).max()")),
)
'''

TEXT = '''---
page: {page}
title: 🧩 {number} · {title}
---
## Objectives
- see how one decay r decides how long a memory lasts
- find the r that keeps half of an input for a whole sequence

## Lesson
A linear sequence model keeps a memory and multiplies it by a decay at every step:
$$h_t = r\\,h_{{t-1}} + \\delta_t.$$
One input at the first step then leaves $h_t = r^t$ behind. Below 1 the memory fades, at 1 it stays, and
above 1 it grows at every step. The chart shows $h_t$ for the decay and the number of steps you choose.

## Try this
- [chart: response] Press 🧊 Short memory. Look for: the curve falling to zero within a few steps.
- [chart: response] Drag the decay r slider towards 1. Look for: the curve staying up for longer.
- [chart: response] Press 💥 Growing. Look for: the curve rising at every step.

## Exercise: Keep half
Move the decay so that at least half of the input is left at the last step.
check: last_value >= 0.5
hint: The value at the last step is $r^{{T-1}}$: move r close to 1.
explain: Half is left when $r^{{T-1}} = 1/2$: with 50 steps, r ≈ 0.986.

## Exercise: Let it grow
Make the memory larger at the last step than the input was.
check: last_value > 1
hint: A decay below 1 can only shrink the memory.
explain: With r above 1 every step multiplies the memory by more than 1.

## Challenge: A tenth is left
Keep between 9 % and 11 % of the input at the last step.
target: last_value between 0.09 and 0.11
hint: Try a decay between 0.95 and 0.96 at 50 steps.
explain: $0.954^{{49}} \\approx 0.0995$.
solution: r=0.954

## Quantities
- r: decay r
- steps: number of steps
- last_value: value at the last step
- peak_value: largest value
'''


def _registry(text: str, page: str) -> str:
    """app/lessons/__init__.py with `page` appended to its PAGES tuple (on its last line, or a new one)."""
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "PAGES" for t in n.targets))
    lines = text.splitlines(keepends=True)
    last = lines[node.end_lineno - 1]
    head, tail = last[:node.end_col_offset - 1], last[node.end_col_offset - 1:]      # tail: ")" and the rest
    added = f'{head}, "{page}"{tail}'
    if len(added.rstrip("\n")) > 120:
        added = f'{head},\n{" " * len("PAGES = (")}"{page}"{tail}'
    return "".join(lines[:node.end_lineno - 1] + [added] + lines[node.end_lineno:])


def _quantities_table(text: str, pages: list[str], page: str) -> str:
    """lessons/README.md with a row for `page` after the last page's row of the quantities table."""
    lines = text.splitlines(keepends=True)
    rows = [n for n, line in enumerate(lines) if line.startswith("| ") and line[2:].split(" |")[0] in pages]
    row = f"| {page} | {', '.join(QUANTITIES)} |\n"
    return "".join(lines[:rows[-1] + 1] + [row] + lines[rows[-1] + 1:])


def new_lesson(page: str, title: str, root: Path = ROOT) -> list[Path]:
    """Write the lesson `page` under `root`; the paths written or changed. ValueError for a bad or taken name."""
    if not NAME.match(page):
        raise ValueError(f"{page!r}: a lesson name is snake_case letters and digits, e.g. memory_decay")
    registry = (root / REGISTRY).read_text(encoding="utf-8")
    pages = [page_name for n in ast.parse(registry).body if isinstance(n, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == "PAGES" for t in n.targets)
             for page_name in ast.literal_eval(n.value)]
    number = len(pages) + 1
    module = root / "app" / "lessons" / f"{page}.py"
    text = root / "lessons" / f"{number:02d}-{page.replace('_', '-')}.md"
    if page in pages or module.exists() or text.exists():
        raise ValueError(f"{page!r} is a lesson already")
    module.write_text(PAGE.format(page=page, title=title, number=number, file=text.name), encoding="utf-8")
    text.write_text(TEXT.format(page=page, title=title, number=number), encoding="utf-8")
    (root / REGISTRY).write_text(_registry(registry, page), encoding="utf-8")
    readme = root / LESSON_README
    readme.write_text(_quantities_table(readme.read_text(encoding="utf-8"), pages, page), encoding="utf-8")
    return [module, text, root / REGISTRY, readme]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write a new lesson that passes the lesson tests.")
    parser.add_argument("name", help="the page's name, snake_case (its URL path and module name)")
    parser.add_argument("--title", help="the title shown on the page (default: from the name)")
    args = parser.parse_args(argv)
    title = args.title or args.name.replace("_", " ").capitalize()
    for path in new_lesson(args.name, title):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    main()

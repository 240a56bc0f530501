"""Median rerun time of each dynamics page (AppTest, this machine). Goal: about 100 ms.

    python3 benchmarks/page_rerun.py [--reruns 15] [--pages spring rings ...] [--no-sweep]
    python3 benchmarks/page_rerun.py --pages train_live paper_lab check_math eos_view     # the issue-20 pages

"rerun" is a plain rerun with unchanged settings (what a click elsewhere costs: cached
core results, figures rebuilt); "slider move" sets a slider to a new value each time, so
the core computation runs again (cache miss) — the worst case while a student drags. That
slider is the page's swept one (`Lesson.sweep`, drag to preview), whose family of frames stays
cached; "held move" moves another slider, which computes a new family (after the rest of the
page is drawn, but within the measured run). `--no-sweep` draws the pages without their previews,
for a before/after comparison on the same machine at the same time.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

# page → (slider key, values cycled through for the "slider move" measurement)
MOVES = {
    "spring": ("spring.c", [0.1 + 0.01 * n for n in range(40)]),
    "discretize": ("discretize.dt", [0.1 + 0.01 * n for n in range(40)]),
    "rings": ("rings.r_max", [0.90 + 0.001 * n for n in range(40)]),
    "lru_stability": ("lru_stability.steps", [20 + 5 * n for n in range(20)]),
    "propagation": ("propagation.nu", [0.01 + 0.001 * n for n in range(40)]),
    "eos_view": ("eos_view.t", [47 - n for n in range(40)]),
    "check_math": ("check_math.T", [9 + n for n in range(40)]),
    "paper_lab": ("paper_lab.steps", [200 + 100 * n for n in range(25)]),
}
# page → (another slider, values): a new family of preview frames each time (LRU stability trains for each seed)
HELD = {
    "spring": ("spring.k", [1.1 + 0.05 * n for n in range(40)]),
    "discretize": ("discretize.c", [0.3 + 0.01 * n for n in range(40)]),
    "rings": ("rings.r_min", [0.3 + 0.001 * n for n in range(40)]),
    "lru_stability": ("lru_stability.seed", [1, 2, 3]),
    "propagation": ("propagation.theta", [20 + 5 * n for n in range(30)]),
    "eos_view": ("eos_view.scale", [1.1 + 0.1 * n for n in range(40)]),
    "check_math": ("check_math.d", [4 + n % 12 for n in range(40)]),
}
# The live pages (issue 20): first run and rerun for all; a slider move where they have one (Train live has none:
# its settings only describe the next run). LIVE_PAGES are drawn in a run store of their own (a temporary folder).
LIVE_PAGES = ("train_live", "paper_lab", "check_math", "eos_view")
DYNAMICS = ("spring", "discretize", "rings", "lru_stability", "propagation")     # the default: the closed-form pages


def move(at: AppTest, key: str, value) -> AppTest:
    """Move the setting under `key` to `value` and rerun: its slider where the page draws one, else as the lesson
    instrument's commit leaves it (app/kit/instrument.py `commit`: the value in the setting's session key)."""
    sliders = [s for s in at.slider if s.key == key]
    if sliders:
        return sliders[0].set_value(value).run()
    at.session_state[key] = value
    return at.run()


def timed(action) -> float:
    t0 = time.perf_counter()
    action()
    return (time.perf_counter() - t0) * 1e3


# One lesson drawn by the renderer, exactly as the router draws it.
SCRIPT = ("from lcsm_explorer.app.kit.render import render_lesson\nfrom lcsm_explorer.app.lessons import lesson\n"
          "render_lesson(lesson({page!r}))\n")
PLAIN = ("import dataclasses\nfrom lcsm_explorer.app.kit.render import render_lesson\n"
         "from lcsm_explorer.app.lessons import lesson\n"
         "render_lesson(dataclasses.replace(lesson({page!r}), sweep=None))\n")


def bench(page: str, reruns: int, sweep: bool = True) -> dict:
    at = AppTest.from_string((SCRIPT if sweep else PLAIN).format(page=page), default_timeout=300)
    first = timed(at.run)
    assert not at.exception, at.exception
    plain = [timed(at.run) for _ in range(reruns)]
    moves = held = [float("nan")]
    if page in MOVES:
        key, values = MOVES[page]
        moves = [timed(lambda v=v: move(at, key, v)) for v in values[:reruns]]
        assert not at.exception, at.exception
    if page in HELD:
        key, values = HELD[page]
        held = [timed(lambda v=v: move(at, key, v)) for v in values[:reruns]]
        assert not at.exception, at.exception
    return dict(page=page, first=first, rerun=statistics.median(plain), move=statistics.median(moves),
                held=statistics.median(held))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reruns", type=int, default=15)
    parser.add_argument("--pages", nargs="*", default=list(DYNAMICS),
                        help=f"pages to draw (the live pages: {' '.join(LIVE_PAGES)})")
    parser.add_argument("--no-sweep", action="store_true", help="draw the pages without their preview charts")
    args = parser.parse_args()
    if any(page in LIVE_PAGES for page in args.pages):     # their runs and progress go to a throw-away store
        os.environ.setdefault("LCSM_DATA_DIR", tempfile.mkdtemp(prefix="page_rerun-"))
    print(f"{'page':<15}{'first run':>12}{'median rerun':>15}{'median slider move':>21}{'median held move':>19}")
    for page in args.pages:
        r = bench(page, args.reruns, sweep=not args.no_sweep)
        print(f"{r['page']:<15}{ms(r['first'], 12)}{ms(r['rerun'], 15)}{ms(r['move'], 21)}{ms(r['held'], 19)}",
              flush=True)


def ms(value: float, width: int) -> str:
    """A median in ms, right-aligned; "—" where the page has no such move (no slider of that kind)."""
    return f"{'—':>{width}}" if value != value else f"{value:>{width - 2}.0f}ms"


if __name__ == "__main__":
    main()

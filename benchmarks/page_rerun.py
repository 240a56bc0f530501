"""Median rerun time of each dynamics page (AppTest, this machine). Goal: about 100 ms.

    python3 benchmarks/page_rerun.py [--reruns 15] [--pages spring rings ...]

"rerun" is a plain rerun with unchanged settings (what a click elsewhere costs: cached
core results, figures rebuilt); "slider move" sets a slider to a new value each time, so
the core computation runs again (cache miss) — the worst case while a student drags.
"""
from __future__ import annotations

import argparse
import statistics
import sys
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
}


def timed(action) -> float:
    t0 = time.perf_counter()
    action()
    return (time.perf_counter() - t0) * 1e3


# One lesson drawn by the renderer, exactly as the router draws it.
SCRIPT = "from app.kit.render import render_lesson\nfrom app.lessons import lesson\nrender_lesson(lesson({page!r}))\n"


def bench(page: str, reruns: int) -> dict:
    at = AppTest.from_string(SCRIPT.format(page=page), default_timeout=300)
    first = timed(at.run)
    assert not at.exception, at.exception
    plain = [timed(at.run) for _ in range(reruns)]
    key, values = MOVES[page]
    moves = [timed(lambda v=v: at.slider(key=key).set_value(v).run()) for v in values[:reruns]]
    assert not at.exception, at.exception
    return dict(page=page, first=first, rerun=statistics.median(plain), move=statistics.median(moves))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reruns", type=int, default=15)
    parser.add_argument("--pages", nargs="*", default=list(MOVES))
    args = parser.parse_args()
    print(f"{'page':<15}{'first run':>12}{'median rerun':>15}{'median slider move':>21}")
    for page in args.pages:
        r = bench(page, args.reruns)
        print(f"{r['page']:<15}{r['first']:>10.0f}ms{r['rerun']:>13.0f}ms{r['move']:>19.0f}ms", flush=True)


if __name__ == "__main__":
    main()

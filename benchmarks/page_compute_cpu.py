"""Server CPU of one move per dynamics page, split into the page's own pieces (no Streamlit run).

    python benchmarks/page_compute_cpu.py [--moves 20] [--pages spring rings ...] [--threads N]

For each page, two kinds of move, each a new value every time (cache misses, as a learner's drag):
"swept" moves the page's swept setting (`Lesson.sweep`, or the setting a learner drags most on a page
without one), each "other" row another setting. Per move it times, in CPU milliseconds of this process
(`time.process_time`: every thread's CPU, so a torch op spinning two cores counts twice):

    compute    lesson.compute(values)
    figures    lesson.figures(values, result), each figure `.to_dict()` (what the renderer caches)
    text       lesson.metrics + lesson.quantities
    member     one preview member: compute + every chart and readout of the page at that value (sweep.page_at)

and prints the medians. "move" = compute + figures + text: the page's share of a move's CPU (the
renderer's own work, the script run and the websocket send come on top, H4's side). The preview family of
an "other" move costs about members × member (computed off the request path, but on the same cores).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# page → (swept setting, values), then other settings, values: a new value on every move
MOVES = {
    "spring": (("c", [0.1 + 0.01 * n for n in range(40)]), ("k", [1.1 + 0.05 * n for n in range(40)])),
    "discretize": (("dt", [0.1 + 0.01 * n for n in range(40)]), ("c", [0.3 + 0.01 * n for n in range(40)])),
    "rings": (("r_max", [0.90 + 0.001 * n for n in range(40)]), ("r_min", [0.3 + 0.001 * n for n in range(40)]),
              ("n", [1024 - 8 * n for n in range(40)])),
    "lru_stability": (("steps", [20 + 5 * n for n in range(27)]),
                      ("seed", [1, 2, 3, 4, 5, 6, 7, 8, 9, 0] + [(s, 0.003) for s in range(10)])),
    "propagation": (("nu", [0.01 + 0.001 * n for n in range(40)]), ("theta", [20 + 5 * n for n in range(30)]),
                    ("gap", [101 + n for n in range(40)]), ("length", [201 + n for n in range(40)])),
    "eos_view": (("t", [n for n in range(40)]), ("scale", [1.0 + 0.1 * n for n in range(40)]),
                 ("T", [49 + n for n in range(40)])),
    "online_learners": (("beta", [0.1 + 0.05 * n for n in range(38)]), ("seed", list(range(1, 41))),
                        ("n_keys", [9 + n for n in range(40)])),
}


def cpu_ms(action) -> tuple[float, object]:
    t0 = time.process_time()
    out = action()
    return (time.process_time() - t0) * 1e3, out


def with_value(values: dict, name: str, value) -> dict:
    """LRU stability's "other" list mixes seeds and (seed, lr) pairs: a new training every time."""
    if isinstance(value, tuple):
        seed, lr = value
        return {**values, name: seed, "lr": lr}
    return {**values, name: value}


def measure(page: str, which: int, moves: int) -> dict[str, float]:
    from lcsm_explorer.app.kit.sweep import page_at
    from lcsm_explorer.app.lessons import lesson
    les = lesson(page)
    name, values = MOVES[page][which]
    base = dict(les.settings.defaults)
    rows = {"compute": [], "figures": [], "text": [], "member": []}
    for value in values[:moves]:
        v = with_value(base, name, value)
        c, result = cpu_ms(lambda v=v: les.compute(v))
        f, _ = cpu_ms(lambda v=v, r=result: {k: fig.to_dict() for k, fig in les.figures(v, r).items()})
        t, _ = cpu_ms(lambda v=v, r=result: (les.metrics(v, r) if les.metrics else None,
                                            les.quantities(v, r) if les.quantities else None))
        rows["compute"].append(c)
        rows["figures"].append(f)
        rows["text"].append(t)
        if les.sweep is not None:
            m, _ = cpu_ms(lambda v=v: page_at(les, v, les.compute(v)))
            rows["member"].append(m)
    out = {k: statistics.median(x) if x else float("nan") for k, x in rows.items()}
    out["move"] = out["compute"] + out["figures"] + out["text"]
    out["setting"] = name
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--pages", nargs="*", default=list(MOVES))
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads(N) first (0: leave it)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import logging
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch threads: {torch.get_num_threads()}; CPU ms per move, median of {args.moves}")
    print(f"{'page':<16}{'move':<7}{'setting':<9}{'compute':>9}{'figures':>9}{'text':>7}{'= move':>9}{'member':>9}")
    for page in args.pages:
        from lcsm_explorer.app.lessons import lesson
        lesson(page)      # import (and torch's first call) outside the timings
        for which in range(len(MOVES[page])):
            label = "swept" if which == 0 else "other"
            r = measure(page, which, args.moves)
            print(f"{page:<16}{label:<7}{r['setting']:<9}{r['compute']:>9.1f}{r['figures']:>9.1f}{r['text']:>7.1f}"
                  f"{r['move']:>9.1f}{r['member']:>9.1f}", flush=True)


if __name__ == "__main__":
    main()

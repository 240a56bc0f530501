"""The compute part of a preview family, per swept page: `compute` once per value vs `Sweep.compute_many`.

    python benchmarks/family_cost.py [--repeats 7] [--pages spring rings ...] [--whole | --worker | --split]

A "held" move (any setting but the swept one) makes the preview worker compute the page's whole family: the
page's result at 15–25 values of the swept setting. This times that part alone, in CPU milliseconds of this
process (`time.process_time`), with one thread for torch and BLAS as the server's processes run
(lcsm_explorer.app.kit.web_process), for the defaults and one held move per page, the two ways side by side in one run:

    loop    [lesson.compute({**held, swept: v}) for v in the family's values]      (the readable reference)
    batch   lesson.sweep.compute_many(held, values)                                 (one core call)

Both start from the same caches: a page's own cached step that depends on the held settings (LRU stability's
training) is cleared before each timing, as a held move finds it missing; what depends on no setting
(propagation's single-token responses) is warm, as the server warms it at start. The two ways alternate,
and the table gives each one's median and best of --repeats. The figures and the page text of each member
are not in these numbers; --whole adds a second table with them: `lcsm_explorer.app.kit.sweep.sweep_family` (every chart
and readout of every member) with and without `compute_many`; --worker times the preview worker's whole job,
`app/kit/preview_pool.py:compute_family` (the members, the page link's text and the outline made from them, both
pickled: what a held move costs the helpers), beside its members alone; --split divides that job into its parts
(`split`: the core call, the members' charts, their readouts and notes, `page_member`, `prepared`, the
pickles), to say whose code a held move's helper CPU is.
"""
from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")            # before numpy loads: the server's processes run one thread

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAGES = ("spring", "discretize", "rings", "lru_stability", "propagation")
HELD_MOVE = {"spring": ("k", 2.0), "discretize": ("c", 0.5), "rings": ("r_min", 0.2), "lru_stability": ("seed", 1),
             "propagation": ("theta", 30)}      # the held moves tests/app/test_sweep.py makes


def cpu_ms(action) -> float:
    t0 = time.process_time()
    action()
    return (time.process_time() - t0) * 1e3


def page_caches(spec) -> list:
    """The page module's own cached steps that depend on held settings, and its memo of layouts by frame (cleared
    before each timing: a held move meets new frames)."""
    from lcsm_explorer.app.kit.chart_element import Refiller
    module = sys.modules[spec.compute.__module__]
    keep = {"single_token_responses"}          # depends on no setting: warmed at server start
    return [fn for name, fn in vars(module).items() if name not in keep and callable(getattr(fn, "clear", None))
            and (hasattr(fn, "__wrapped__") or isinstance(fn, Refiller))]


def loop(spec, held: dict, values: list) -> list:
    out = []
    for value in values:
        try:
            out.append(spec.compute({**held, spec.sweep.setting: value}))
        except ValueError:
            out.append(None)
    return out


def measure(page: str, changes: dict, repeats: int, whole: bool | str = False) -> dict:
    import dataclasses

    from lcsm_explorer.app.kit.sweep import sweep_family, sweep_values
    from lcsm_explorer.app.lessons import lesson
    spec = lesson(page)
    values_all = {**spec.settings.defaults, **changes}
    held = {k: v for k, v in values_all.items() if k != spec.sweep.setting}
    values = sweep_values(spec.settings[spec.sweep.setting], spec.sweep, held)
    caches = page_caches(spec)
    ways = {"loop": lambda: loop(spec, held, values), "batch": lambda: spec.sweep.compute_many(held, values)}
    if whole:                                  # the members as the preview worker makes them: charts and text too
        one_by_one = dataclasses.replace(spec, sweep=dataclasses.replace(spec.sweep, compute_many=None))
        ways = {"loop": lambda: sweep_family(one_by_one, held), "batch": lambda: sweep_family(spec, held)}
    if whole == "worker":                      # the worker's whole job (its members, link, outline, pickles)
        from lcsm_explorer.app.kit.preview_pool import compute_family
        frozen = tuple(sorted(held.items()))
        ways = {"loop": lambda: sweep_family(spec, held), "batch": lambda: compute_family(page, frozen)}
    for way in ways.values():                  # imports and first calls outside the timings
        way()
    times = {name: [] for name in ways}
    for _ in range(repeats):
        for name, way in ways.items():
            for fn in caches:
                fn.clear()
            times[name].append(cpu_ms(way))
    return dict(members=len(values), **{f"{name} median": statistics.median(t) for name, t in times.items()},
                **{f"{name} best": min(t) for name, t in times.items()})


SPLIT = ("compute", "charts", "readouts", "page_member", "prepared", "pickles")


def split(page: str, changes: dict, repeats: int) -> dict:
    """The preview worker's job (`preview_pool.compute_family`) step by step as `sweep.sweep_family` and `prepared`
    take it, each step's CPU ms summed over the family's members: the page's core call (`compute_many`, else
    `compute` per value), its charts (`Sweep.figures` or `figures`, made as plain as a member needs), readouts
    (`metrics` as text, and each chart's note: the browser words the charts), the members' frames
    (`sweep_figure.page_member`), the web process's form of the family (`family.prepared`: link text and outline)
    and the two pickles. Medians over `repeats` (after two unmeasured runs)."""
    import pickle

    from lcsm_explorer.app.kit.chart_element import plain_part
    from lcsm_explorer.app.kit.family import prepared
    from lcsm_explorer.app.kit.page_text import chart_notes, page_text
    from lcsm_explorer.app.kit.sweep import shared_values, sweep_values
    from lcsm_explorer.app.kit.sweep_figure import PART_TRACE_KEYS, page_member, part_layout_key
    from lcsm_explorer.app.lessons import lesson
    spec = lesson(page)
    setting = spec.settings[spec.sweep.setting]
    held = {k: v for k, v in {**spec.settings.defaults, **changes}.items() if k != setting.name}
    values = sweep_values(setting, spec.sweep, held)
    draw = spec.sweep.figures if spec.sweep.figures is not None else spec.figures
    caches = page_caches(spec)
    times: dict[str, list] = {part: [] for part in SPLIT}
    for run in range(repeats + 2):
        for fn in caches:
            fn.clear()
        took = dict.fromkeys(SPLIT, 0.0)
        t0 = time.process_time()
        computed = (spec.sweep.compute_many(held, values) if spec.sweep.compute_many is not None
                    else loop(spec, held, values))
        took["compute"] = time.process_time() - t0
        members, results = [], {}
        for value, result in zip(values, computed):
            if result is None:
                continue
            at = {**held, setting.name: value}
            results[value] = result
            t0 = time.process_time()
            figures = {name: plain_part(fig, PART_TRACE_KEYS, part_layout_key)
                       for name, fig in draw(at, result).items()}
            t1 = time.process_time()
            readouts = page_text(spec, at, result)
            notes = chart_notes(spec, at, result, readouts["metrics"])
            readouts["notes"] = {name: note for name, note in notes.items() if note}
            t2 = time.process_time()
            members.append(page_member(setting, value, figures, readouts))
            t3 = time.process_time()
            took["charts"] += t1 - t0
            took["readouts"] += t2 - t1
            took["page_member"] += t3 - t2
        t0 = time.process_time()
        family = prepared(spec, tuple(sorted(held.items())), shared_values(members))
        t1 = time.process_time()
        pickle.dumps(family, pickle.HIGHEST_PROTOCOL), pickle.dumps(results, pickle.HIGHEST_PROTOCOL)
        took["prepared"], took["pickles"] = t1 - t0, time.process_time() - t1
        if run >= 2:
            for part in SPLIT:
                times[part].append(took[part] * 1e3)
    return dict(members=len(values), **{part: statistics.median(t) for part, t in times.items()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--pages", nargs="*", default=list(PAGES))
    parser.add_argument("--whole", action="store_true", help="time whole members (compute + every chart + text)")
    parser.add_argument("--worker", action="store_true",
                        help="time the worker's whole job (compute_family) beside its members (sweep_family)")
    parser.add_argument("--split", action="store_true", help="the worker's job in parts (core call, charts, ...)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import logging
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    import torch
    torch.set_num_threads(1)
    if args.split:
        print(f"preview worker's job in parts, CPU ms (torch threads {torch.get_num_threads()}), median of "
              f"{args.repeats}")
        print(f"{'page':<15}{'held':<11}{'members':>8}" + "".join(f"{part:>12}" for part in SPLIT) + f"{'total':>8}")
        for page in args.pages:
            name, value = HELD_MOVE[page]
            for label, changes in (("defaults", {}), (f"{name}={value:g}", {name: value})):
                r = split(page, changes, args.repeats)
                print(f"{page:<15}{label:<11}{r['members']:>8}" + "".join(f"{r[part]:>12.1f}" for part in SPLIT)
                      + f"{sum(r[part] for part in SPLIT):>8.1f}", flush=True)
        return
    what = "whole family (compute + charts + text)" if args.whole else "family compute"
    if args.worker:
        what = "preview worker's job: 'loop' = its members (sweep_family), 'batch' = all of it (compute_family)"
        args.whole = "worker"
    print(f"{what}, CPU ms (torch threads {torch.get_num_threads()}), median / best of {args.repeats}, "
          "loop and batch alternating")
    print(f"{'page':<15}{'held':<11}{'members':>8}{'loop med':>10}{'loop best':>10}{'batch med':>10}"
          f"{'batch best':>11}{'ratio':>8}")
    for page in args.pages:
        name, value = HELD_MOVE[page]
        for label, changes in (("defaults", {}), (f"{name}={value:g}", {name: value})):
            r = measure(page, changes, args.repeats, args.whole)
            print(f"{page:<15}{label:<11}{r['members']:>8}{r['loop median']:>10.1f}{r['loop best']:>10.1f}"
                  f"{r['batch median']:>10.1f}{r['batch best']:>11.1f}"
                  f"{r['loop median'] / max(r['batch median'], 1e-9):>7.0f}×", flush=True)


if __name__ == "__main__":
    main()

"""A class with and without one hostile client, side by side in one run (issue 32's load target).

    python3 benchmarks/hostile_load.py [--sessions 30] [--hostile-sessions 12] [--duration-s 120] [--rounds 1]
                                       [--no-write]

Runs benchmarks/classroom_load.py on the two-process tier (HAProxy, app/web_tier.py) alternately without and
with `--hostile-sessions` sessions of one hostile client (moving with no pause, new seeds, ▶ Play and a paper-lab
grid now and then) from an address of its own: the tier's harness frontend (LCSM_HARNESS_PORT) tells the web
processes the address the client names, since loopback is the operator and never held back. The learners think
5–10 s and one of them trains; they sit behind one school address of their own (`--school-address`), each seated
in a class by the link of its first page, so their page runs take their fair share too (pace, turns, preview
lines), as a real class's do. Prints, per round, the learners' slider and page-open p95 and the trainings stored,
then the ratio of the medians: the targets are slider p95 with the hostile client ≤ 1.5× without it and ≤ 1 s,
and the class's training still stepping. Writes the table to benchmarks/results/hostile_load-cpu.md.
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "hostile_load-cpu.md"
ROW = re.compile(r"^\| (?P<what>[^|]+?) \| (?P<count>\d+) \| (?P<p50>[\d—]+) \| (?P<p95>[\d—]+) \| (?P<max>[\d—]+) \|$")


def one_run(args, hostile: int) -> dict:
    command = [sys.executable, str(ROOT / "benchmarks" / "classroom_load.py"), "--no-write", "--web-processes", "2",
               "--sessions", str(args.sessions), "--duration-s", str(args.duration_s), "--think-s", "5", "10",
               "--trainers", "1", "--browsers", "0", "--train-steps", "1000", "--hostile-sessions", str(hostile)]
    if args.school_address:
        command += ["--school-address", args.school_address]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=args.duration_s + 900).stdout
    rows = {m["what"]: m for line in out.splitlines() if (m := ROW.match(line.strip()))}
    slider, page = rows.get("slider move (protocol clients)"), rows.get("page open (protocol clients)")
    trained = re.search(r"\*\*Trainings: (\d+) of (\d+) completed", out)
    steps = re.findall(r"^\| 1 \| \d+ \| (\w+) \| (\d+) \|", out, flags=re.M)
    hostile_line = next((line for line in out.splitlines() if line.startswith("- **Hostile client**")), "")
    errors = re.search(r"\*\*Errors: (\d+)\*\*", out)
    return dict(hostile=hostile, slider_p95=float(slider["p95"]) if slider else None,
                slider_count=int(slider["count"]) if slider else 0,
                page_p95=float(page["p95"]) if page else None, trained=trained.group(0) if trained else "?",
                steps=steps[0] if steps else None, hostile_line=hostile_line,
                errors=int(errors.group(1)) if errors else None, output=out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--hostile-sessions", type=int, default=12)
    parser.add_argument("--duration-s", type=float, default=120.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--school-address", default="192.0.2.10",
                        help="the learners' one address (each seated in a class by its link); '' for loopback")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    runs = []
    for round_ in range(args.rounds):
        for hostile in (0, args.hostile_sessions):
            run = one_run(args, hostile)
            runs.append(run)
            print(f"round {round_ + 1}, hostile sessions {hostile}: slider p95 {run['slider_p95']} ms "
                  f"({run['slider_count']} moves), page p95 {run['page_p95']} ms, {run['trained']}, "
                  f"training {run['steps']}, errors {run['errors']}", flush=True)
            if run["slider_p95"] is None:
                print(run["output"][-3000:])
    quiet = [r["slider_p95"] for r in runs if r["hostile"] == 0 and r["slider_p95"] is not None]
    loud = [r["slider_p95"] for r in runs if r["hostile"] and r["slider_p95"] is not None]
    lines = [f"`python3 benchmarks/hostile_load.py --sessions {args.sessions} --hostile-sessions "
             f"{args.hostile_sessions} --duration-s {args.duration_s:g} --rounds {args.rounds}` · "
             f"{time.strftime('%Y-%m-%d %H:%M')} UTC · 2 web processes behind HAProxy, 1 training, thinking 5–10 s, "
             + (f"the learners behind one school address ({args.school_address}), each seated in the class"
                if args.school_address else "the learners on loopback (the operator: never held back)"),
             "", "| round | hostile sessions | learners' slider p95 (ms) | moves | page open p95 (ms) | trainings | "
             "the class's run | errors |", "|---|---|---|---|---|---|---|---|"]
    for n, r in enumerate(runs):
        lines.append(f"| {n // 2 + 1} | {r['hostile']} | {r['slider_p95']} | {r['slider_count']} | {r['page_p95']} | "
                     f"{r['trained'].strip('*')} | {' '.join(r['steps']) if r['steps'] else '—'} | {r['errors']} |")
    lines += ["", *[f"- round {n // 2 + 1}: {r['hostile_line'][2:]}" for n, r in enumerate(runs) if r["hostile"]]]
    if quiet and loud:
        ratio = statistics.median(loud) / statistics.median(quiet)
        worst = max(loud) / 1000
        lines += ["", f"Learners' slider p95 with the hostile client ÷ without: **×{ratio:.2f}** (target ≤ 1.5), "
                      f"worst {worst:.2f} s (target ≤ 1 s): "
                      + ("PASS" if ratio <= 1.5 and worst <= 1.0 else "FAIL")]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        RESULTS.write_text("# A class with and without one hostile client\n\n" + text + "\n", encoding="utf-8")
        print(f"(written to {RESULTS.relative_to(ROOT)})")


if __name__ == "__main__":
    main()

"""Bytes sent and server CPU of a move, two commits side by side (the family sent once; the instrument's commits
against the widgets they replaced), and each commit's family text per page.

    python benchmarks/swept_move_bytes.py BEFORE AFTER [--rounds 2] [--moves 10] [--pages spring rings ...]

Exports each commit's tree (`git archive`, nothing of the working tree) into a temporary folder and runs that
tree's own `benchmarks/move_cost.py --no-write` there, alternating BEFORE, AFTER, BEFORE, AFTER, … (`--rounds`
times each), with this Python. move_cost's protocol client keeps every cacheable message it receives and names
their hashes on each rerun, as the browser does, so its "KiB sent" column counts a message Streamlit sends as a
reference (ForwardMsg cache) as the reference only. Prints, per page, the swept move's KiB sent and server
CPU-ms (request + helpers, mean per move) of each commit: the median over the rounds, and every round's figure; the
same for a move of another setting (its new family included); and the KiB of each page's family at its defaults as
the browser receives it once (frames, readouts and, since the instrument, equations), computed in each tree.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.commit_tree import export  # noqa: E402

PAGES = ("spring", "discretize", "rings", "lru_stability", "propagation")


FAMILY_KIB = """
import sys; sys.path.insert(0, ".")
from lcsm_explorer.app.kit.family import prepared
from lcsm_explorer.app.kit.sweep import sweep_family
from lcsm_explorer.app.lessons import lesson
for page in sys.argv[1:]:
    spec = lesson(page)
    held = tuple(sorted((k, v) for k, v in spec.settings.defaults.items() if k != spec.sweep.setting))
    print(page, len(prepared(spec, held, sweep_family(spec, dict(held))).link["family"]) / 1024)
"""


def family_kib(tree: Path, pages: list[str]) -> dict[str, float]:
    """page → KiB of its family's text at the defaults, computed by `tree`'s own code."""
    done = subprocess.run([sys.executable, "-c", FAMILY_KIB, *pages], cwd=tree, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"family size failed in {tree}:\n{done.stderr[-2000:]}")
    return {line.split()[0]: float(line.split()[1]) for line in done.stdout.splitlines() if line.strip()}


def swept_rows(tree: Path, pages: list[str], moves: int) -> dict[tuple[str, str], tuple[float, float]]:
    """(page, "swept" | "other") → (KiB sent, server CPU-ms mean) per move, from one move_cost run in `tree`."""
    done = subprocess.run([sys.executable, str(tree / "benchmarks" / "move_cost.py"), "--no-write", "--moves",
                           str(moves), "--pages", *pages], cwd=tree, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"move_cost failed in {tree}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    found = {}
    for line in done.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 13 and cells[1].split(" ")[0] in ("swept", "other"):
            # | page | move | moves | req median | req mean | helpers mean | server mean | judged | target | wall median
            # | wall max | KiB | errors |
            found.setdefault((cells[0], cells[1].split(" ")[0]), (float(cells[11]), float(cells[6])))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--pages", nargs="+", default=list(PAGES))
    args = parser.parse_args()
    runs: dict[str, list[dict]] = {args.before: [], args.after: []}
    with tempfile.TemporaryDirectory(prefix="lcsm-swept-bytes-") as tmp:
        trees = {commit: export(commit, Path(tmp)) for commit in runs}
        for n in range(args.rounds):
            for commit, tree in trees.items():
                runs[commit].append(swept_rows(tree, args.pages, args.moves))
                print(f"round {n + 1} {commit[:12]}: {runs[commit][-1]}", flush=True)
        families = {commit: family_kib(tree, args.pages) for commit, tree in trees.items()}
    before, after = args.before[:9], args.after[:9]
    print(f"\n| page | move | KiB sent per move: {before} → {after} | server CPU-ms per move: {before} → {after} |")
    print("|---|---|---|---|")
    for page in args.pages:
        for kind in ("swept", "other"):
            cells = []
            for column in (0, 1):
                values = {c: [r[(page, kind)][column] for r in runs[c] if (page, kind) in r] for c in runs}
                medians = [statistics.median(v) if v else float("nan") for v in values.values()]
                rounds = " / ".join(",".join(f"{x:.0f}" for x in v) for v in values.values())
                ratio = medians[1] / medians[0] if medians[0] else float("nan")
                cells.append(f"{medians[0]:.0f} → {medians[1]:.0f} (×{ratio:.2f}; rounds {rounds})")
            print(f"| {page} | {kind} | {cells[0]} | {cells[1]} |")
    print(f"\n| page | family KiB at the defaults: {before} → {after} |")
    print("|---|---|")
    for page in args.pages:
        old_kib, new_kib = (families[c].get(page, float("nan")) for c in runs)
        print(f"| {page} | {old_kib:.0f} → {new_kib:.0f} (×{new_kib / old_kib:.2f}) |")


if __name__ == "__main__":
    main()

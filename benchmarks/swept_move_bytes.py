"""Bytes sent and server CPU of a swept move, two commits side by side (issue 19 item 2: the family sent once).

    python benchmarks/swept_move_bytes.py BEFORE AFTER [--rounds 2] [--moves 10] [--pages spring rings ...]

Exports each commit's tree (`git archive`, nothing of the working tree) into a temporary folder and runs that
tree's own `benchmarks/move_cost.py --no-write` there, alternating BEFORE, AFTER, BEFORE, AFTER, … (`--rounds`
times each), with this Python. move_cost's protocol client keeps every cacheable message it receives and names
their hashes on each rerun, as the browser does, so its "KiB sent" column counts a message Streamlit sends as a
reference (ForwardMsg cache) as the reference only. Prints, per page, the swept move's KiB sent and server
CPU-ms (request + helpers, mean per move) of each commit: the median over the rounds, and every round's figure.
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


def swept_rows(tree: Path, pages: list[str], moves: int) -> dict[str, tuple[float, float]]:
    """page → (KiB sent, server CPU-ms mean) of its swept moves, from one move_cost run in `tree`."""
    done = subprocess.run([sys.executable, str(tree / "benchmarks" / "move_cost.py"), "--no-write", "--moves",
                           str(moves), "--pages", *pages], cwd=tree, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"move_cost failed in {tree}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    found = {}
    for line in done.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 12 and cells[1].startswith("swept"):
            # | page | move | moves | req median | req mean | helpers mean | server mean | target | wall | max | KiB |
            found.setdefault(cells[0], (float(cells[10]), float(cells[6])))
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
    print(f"\n| page | KiB sent per swept move: {args.before[:9]} → {args.after[:9]} | "
          f"server CPU-ms per swept move: {args.before[:9]} → {args.after[:9]} |")
    print("|---|---|---|")
    for page in args.pages:
        cells = []
        for column in (0, 1):
            values = {c: [r[page][column] for r in runs[c] if page in r] for c in runs}
            medians = [statistics.median(v) if v else float("nan") for v in values.values()]
            rounds = " / ".join(",".join(f"{x:.0f}" for x in v) for v in values.values())
            cells.append(f"{medians[0]:.0f} → {medians[1]:.0f} (rounds {rounds})")
        print(f"| {page} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()

"""Training steps/s with structured oscillations, before and after, side by side in one run (issue 22 item 3).

    python benchmarks/structured_decay.py [--before COMMIT] [--batch 8] [--steps 3] [--layers 1]
                                          [--models 1-3-1-0 1-1-1-0 ...] [--against 1-1-1-0] [--device cpu]
                                          [--write | --append TITLE]

"before" is COMMIT's tree (`git archive`, default cb8b47b: the tree before the structured oscillations), where
codes 1, 8, 9 hand the scan a (B, T, k, d) gate, DeltaNet/M1/M2 a (B, T, k, k) matrix, and a k-vector whose rows
forget fast falls back to O(C²·k) decays; "after" is this working tree. Each (model, side) runs in a fresh
process with that tree on PYTHONPATH and one torch thread: a model of `--layers` blocks at d = k = 128,
T = 256 (the issue's shapes), AdamW, one warm-up step, then `--steps` timed steps (median reported) and the
process's peak RSS growth over the steps, and the CPU seconds of the same steps (what a busy machine moves
least). Sides alternate model by model, so load drifts hit both alike. `--against MODEL` adds, for each side,
every model's step time and peak growth as a multiple of MODEL's (a static k×d code against a k-vector one).
`--write` puts the table in benchmarks/results/structured_decay-<device>.md; `--append TITLE` adds it there as
a section.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.commit_tree import export  # noqa: E402

BEFORE = "cb8b47b"
MODELS = ("1-3-1-0", "1-2-1-0", "1-1-1-0", "1-9-1-0", "deltanet")

MEASURE = r"""
import json, os, resource, statistics, sys, time
import torch
torch.set_num_threads(1)
from lcsm_core.training.config import ModelConfig
from lcsm_core.training.model import SequenceModel
a = json.loads(sys.argv[1])
torch.manual_seed(0)
layer = dict(code=a["model"]) if a["model"][0].isdigit() else dict(variant=a["model"])
config = ModelConfig(**layer, d_model=a["d"], expand_dim=a["k"], n_layers=a["layers"])
device = torch.device(a["device"])
model = SequenceModel(config, 64).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
tokens = torch.randint(0, 64, (a["batch"], a["T"]), device=device)
targets = torch.randint(0, 64, (a["batch"], a["T"]), device=device)
sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
def step():
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(tokens).flatten(0, 1), targets.flatten())
    loss.backward()
    opt.step()
    sync()
with open("/proc/self/statm") as f:
    before = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
step()
times, cpu = [], []
for _ in range(a["steps"]):
    t0, c0 = time.perf_counter(), time.process_time()
    step()
    times.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
form = model.blocks[0].eos.form
from lcsm_core.scan import choose_form, prepare
st = model.blocks[0].eos.states(model.blocks[0].eos_input(model.embedding(tokens[:1])))
o = getattr(st, "scan_o", st.o)
picked = choose_form(prepare(st.i, st.e, o, st.s, st.psi)) if form == "auto" else form
print(json.dumps(dict(s=statistics.median(times), cpu_s=statistics.median(cpu), peak_mib=peak / 2 ** 20, form=picked,
                      o=type(o).__name__ if not isinstance(o, torch.Tensor) else "x".join(map(str, o.shape)))))
"""


def measure(tree: Path, settings: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1", LCSM_SCAN_FORM="")
    done = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(settings)], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        return dict(error=done.stderr.strip().splitlines()[-1][:120])
    return json.loads(done.stdout.strip().splitlines()[-1])


def row(model: str, before: dict, after: dict) -> str:
    if "error" in before or "error" in after:
        return f"| {model} | {before.get('error', '')} | {after.get('error', '')} | | | | | |"
    cpu = lambda r: f"{r['cpu_s']:.2f}" if "cpu_s" in r else "–"
    return (f"| {model} | {before['o']} → {after['o']} | {before['form']} → {after['form']} | {before['s']:.2f} | "
            f"{after['s']:.2f} | {cpu(before)} → {cpu(after)} | {before['s'] / after['s']:.1f}× | "
            f"{before['peak_mib']:.0f} → {after['peak_mib']:.0f} |")


def against(reference: str, results: dict) -> list[str]:
    """Each model's step (wall and CPU) and peak growth as a multiple of the reference model's, per side."""
    lines = [f"\nAs a multiple of {reference}'s step (wall / CPU) and peak growth, same side, same run:\n",
             "| model | before: step | before: peak | after: step | after: peak |", "|---|---|---|---|---|"]
    for model, sides in results.items():
        cells = []
        for side in ("before", "after"):
            r, ref = sides[side], results[reference][side]
            if "error" in r or "error" in ref:
                cells += ["–", "–"]
                continue
            cpu = f" / {r['cpu_s'] / ref['cpu_s']:.2f}×" if "cpu_s" in r and "cpu_s" in ref else ""
            cells += [f"{r['s'] / ref['s']:.2f}×{cpu}", f"{r['peak_mib'] / max(ref['peak_mib'], 1):.2f}×"]
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--d", type=int, default=128)
    parser.add_argument("--k", type=int, default=128)
    parser.add_argument("--T", type=int, default=256)
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--against", default=None, help="a model of --models to state every other one against")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--append", default=None, metavar="TITLE", help="add the table to the results file")
    args = parser.parse_args()
    header = (f"d = {args.d}, k = {args.k}, T = {args.T}, batch {args.batch}, {args.layers} layer(s), "
              f"{args.device}, one torch thread, median of {args.steps} steps after one warm-up; before = "
              f"{args.before}, after = this tree. load average at start: {os.getloadavg()[0]:.1f}")
    lines = [header, "",
             "| model | o the scan gets | form | before s/step | after s/step | CPU s/step | speedup | "
             "peak MiB growth |",
             "|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        before_tree = export(args.before, Path(tmp))
        for model in args.models:
            settings = dict(model=model, d=args.d, k=args.k, T=args.T, batch=args.batch, layers=args.layers,
                            steps=args.steps, device=args.device)
            results[model] = dict(before=measure(before_tree, settings), after=measure(ROOT, settings))
            line = row(model, results[model]["before"], results[model]["after"])
            print(line, flush=True)
            lines.append(line)
    if args.against in results:
        tail = against(args.against, results)
        print("\n".join(tail))
        lines += tail
    lines.append(f"\nload average at end: {os.getloadavg()[0]:.1f}")
    out = ROOT / "benchmarks" / "results" / f"structured_decay-{args.device}.md"
    command = f"`python benchmarks/structured_decay.py {' '.join(sys.argv[1:])}`"
    if args.write:
        out.write_text("# Structured oscillations: training steps before/after\n\n" + command + "\n\n"
                       + "\n".join(lines) + "\n")
        print(f"wrote {out}")
    elif args.append:
        with out.open("a") as f:
            f.write(f"\n## {args.append}\n\n{command}\n\n" + "\n".join(lines) + "\n")
        print(f"appended to {out}")


if __name__ == "__main__":
    main()

"""Where the web process's CPU went during a group of moves, from py-spy's collapsed stacks (issue 19, item 1).

    python benchmarks/stack_split.py DIR/spring-swept.txt [...] [--cpu-ms 30]

Reads the files `benchmarks/move_cost.py --py-spy DIR` writes (py-spy's "raw" format: a thread's stack as frames
joined by ";", then its sample count) and sums the samples into the parts of a move by `PARTS`: the first part
whose pattern occurs in a stack takes it (specific parts first). Samples of a thread waiting (the event loop in
`select`, a thread start waiting for its thread) are py-spy's idle misreadings and are left out. Prints each part's
share of the samples and, with `--cpu-ms` (the move's CPU from /proc, move_cost.py's "request" column), its
milliseconds per move. A sampled profile: parts under ~3 % are noise at a few hundred samples.
"""
from __future__ import annotations

import argparse
import collections
from pathlib import Path

# (part, patterns): the first part one of whose patterns occurs in a stack takes its samples.
PARTS = (
    ("idle (not CPU)", ("EpollSelector.select", "Event.wait (threading", "Condition.wait (threading",
                        "Queue.get (asyncio", "polling_path_watcher.py:90)", "_PollLikeSelector.select",
                        "_worker (concurrent/futures/thread.py:81)")),   # a watcher's sleep, a pool's idle threads
    ("hash (ForwardMsg, deterministic serialization)", ("populate_hash_if_needed",)),
    ("hand-off of each message to the event loop (script thread)", ("_on_scriptrunner_event (",)),
    ("preview (family → every chart's frames → JSON)", ("preview_spec (app/kit/preview",
                                                         "preview_specs (app/kit/preview",
                                                         "page_preview (app/kit/preview")),
    ("chart serialize (figure → dict → JSON)", ("chart_spec (app/kit/chart_element",)),
    ("compute (the page's core call)", ("computed (app/kit/render",)),
    ("figures: go.Figure construction (template, traces)", ("BaseFigure.__init__",)),
    ("figures: the page's builders", ("chart_specs (app/kit/render",)),
    ("chart element (emit)", ("emit_chart (app/kit/chart_element",)),
    ("widgets (sidebar settings, presets, share panel)", ("draw_sidebar_settings", "preset_buttons",
                                                         "share_panel", "draw_setting")),
    ("readouts (metrics, notices)", ("show_readout",)),
    ("exercises, challenges, score", ("lesson_exercises", "lesson_challenges", "show_score")),
    ("lesson text (title, prose, equations, caption)", ("lesson_intro", "lesson_body", "cached_lesson",
                                                        "MarkdownMixin.latex", "MarkdownMixin.caption")),
    ("layout (columns, containers)", ("LayoutsMixin.",)),
    ("rest of the page (render_lesson)", ("render_lesson (app/kit/render",)),
    ("script run outside the page (router, session state)", ("ScriptRunner.scriptThread",)),
    ("send: websocket write", ("WebSocket.send", "WebSocketsSansIOProtocol.send", "_sender (")),
    ("event loop: sessions, message queue, rerun requests", ("MainThread",)),
    ("other threads", ("",)),
)


def part_of(stack: str) -> str:
    return next(name for name, patterns in PARTS if any(p in stack for p in patterns))


def split(paths: list[Path]) -> collections.Counter:
    samples: collections.Counter = collections.Counter()
    for path in paths:
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if stack:
                samples[part_of(stack)] += int(count)
    return samples


def table(samples: collections.Counter, cpu_ms: float | None) -> str:
    busy = sum(n for part, n in samples.items() if not part.startswith("idle"))
    lines = ["| part | samples | share | ms per move |" if cpu_ms else "| part | samples | share |",
             "|---|---|---|---|" if cpu_ms else "|---|---|---|"]
    for name, _ in PARTS:
        n = samples.get(name, 0)
        if name.startswith("idle") or not n:
            continue
        row = f"| {name} | {n} | {100 * n / busy:.0f} % |"
        lines.append(row + (f" {cpu_ms * n / busy:.1f} |" if cpu_ms else ""))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--cpu-ms", type=float, default=None, help="the move's CPU-ms (from /proc) to apportion")
    args = parser.parse_args()
    print(table(split(args.files), args.cpu_ms))


if __name__ == "__main__":
    main()

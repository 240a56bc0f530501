"""Where one slider move's server CPU goes, per lesson page (issue 19, item 1).

    python benchmarks/move_profile.py [--moves 10] [--pages spring rings ...] [--no-write]

For each dynamics page (lessons 1–7), two kinds of move, each to a new value (a cache miss, as a learner's
drag): "swept" moves the page's swept setting (`Lesson.sweep.setting`; eos_view and online_learners have no
sweep: their first slider), "other" moves another setting (the held one: a new preview family). The page is
drawn in-process exactly as the router draws it (`render_lesson`, AppTest like benchmarks/page_rerun.py), and
the move's CPU time is split by wrapping the functions that do each piece (`time.thread_time`, the CPU of the
thread that calls them; a piece nested in another counts once, in the outer one where that one is preview or
core/figure code):

    script      the whole script run (the ScriptRunner thread's CPU from rerun start to finish)
    compute     lesson.compute (the core)
    figures     lesson.figures (plotly Figure objects built)
    to_dict     plotly Figure → dict (Figure.to_dict, or app/kit/chart_element.py:plain_figure, its copy-free twin)
    to_json     dict → Figure → JSON (st.plotly_chart: go.Figure(dict) and plotly.io.to_json)
    preview     the sweep family (lcsm_explorer.app.kit.sweep.sweep_family / sweep_member: compute + chart per member)
    hash        ForwardMsg hashing (Streamlit serializes each message to hash it, in the script thread)
    gc          Streamlit's full garbage collection after each run (`runner.postScriptGC`, on by default): a real
                server runs it at the end of every script run; under AppTest it does not run, so it is timed here
                after the move (gc.collect(2) over this process's heap, which holds what the server's would)
    elements    the rest of the script run: Streamlit element building, widgets, caches, page text
    send        ForwardMsg.SerializeToString of every message the run enqueued (the server's event loop does
                this before the websocket send; timed here after the run), with the browser's message cache
                emulated (a cacheable message sent before goes as a reference)
    helpers     CPU of this process's other threads (BLAS/OpenMP workers spinning, pool threads) and of its child
                processes (a preview pool) during the move, waited for until they go quiet
    processes   of which child processes
    total       script + send + helpers: the server CPU of the move
    KiB sent    the serialized messages' bytes (every message the run enqueued; the real server coalesces some
                that wait in its queue, so this is an upper bound; benchmarks/move_cost.py reads the websocket)

Medians over the moves (each column its own median: the columns need not add up to the total). Writes the
table to benchmarks/results/move_profile-cpu.md under a heading named by --label. Run it in the server's
environment (what scripts/app.sh exports, e.g. thread counts or STREAMLIT_RUNNER_POST_SCRIPT_GC): the results
header records the variables that change these figures.
"""
from __future__ import annotations

import argparse
import functools
import gc
import os
import platform
import shlex
import statistics
import sys
import threading
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit import config  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.runtime import forward_msg_cache  # noqa: E402
from streamlit.runtime.scriptrunner import script_runner as script_runner_module  # noqa: E402
from streamlit.runtime.scriptrunner.script_runner import ScriptRunner  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from benchmarks.page_rerun import SCRIPT, move  # noqa: E402
from benchmarks.results_section import RESULTS, write_section  # noqa: E402

RESULT_FILE = RESULTS / "move_profile-cpu.md"
TITLE = "# Where a slider move's server CPU goes (per lesson page)\n"
PAGES = ("spring", "discretize", "rings", "lru_stability", "propagation", "eos_view", "online_learners")
# page → (swept setting, other setting). Swept: Lesson.sweep.setting, or the first slider where there is no sweep.
# Other: a slider the learner moves that changes the compute (and so, on a swept page, the preview family).
OTHER = {"spring": "k", "discretize": "c", "rings": "r_min", "lru_stability": "r_max", "propagation": "theta",
         "eos_view": "t", "online_learners": "beta"}
PIECES = ("script", "compute", "figures", "to_dict", "to_json", "preview", "hash", "gc", "elements", "send",
          "helpers", "processes", "total")
# A piece nested in one of these counts in the outer one (a member's compute is preview CPU).
ABSORBING = {"preview", "compute", "figures", "to_json"}
# The preview's own work: a family's members (compute + one chart each) and the figure with its frames.
PREVIEW_FUNCTIONS = (("lcsm_explorer.app.kit.sweep", "sweep_family"), ("lcsm_explorer.app.kit.sweep", "sweep_member"),
                     ("lcsm_explorer.app.kit.sweep_figure", "member"), ("lcsm_explorer.app.kit.sweep_figure",
                     "preview_figure"))
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class CpuLedger:
    """CPU seconds per piece, from wrapped functions; a thread-local stack makes nested pieces count once."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.messages: list[ForwardMsg] = []
        self._local = threading.local()
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self.seconds, self.messages = {}, []

    def wrap(self, piece: str, fn):
        """`fn`, timed as `piece` (exclusive of nested pieces, unless an outer piece absorbs them)."""
        ledger = self

        @functools.wraps(fn)
        def timed(*args, **kwargs):
            stack = ledger._stack()
            outer = stack[-1] if stack else None
            name = outer[0] if outer and outer[0] in ABSORBING else piece
            frame = [name, 0.0]                    # [piece counted as, CPU of nested frames]
            stack.append(frame)
            started = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.thread_time() - started
                stack.pop()
                if outer is not None:
                    outer[1] += spent
                with ledger._lock:
                    ledger.seconds[name] = ledger.seconds.get(name, 0.0) + spent - frame[1]
        return timed

    def _stack(self) -> list:
        if not hasattr(self._local, "stack"):
            self._local.stack = []
        return self._local.stack


def install(ledger: CpuLedger) -> list[str]:
    """Wrap every measured function in place; the pieces that could not be found (said in the results)."""
    import plotly.graph_objs as go
    import plotly.io

    missing = []
    original_run = ScriptRunner._run_script

    def run_script(self, rerun_data):                 # the whole run, inclusive (not a piece of the stack)
        started = time.thread_time()
        try:
            return original_run(self, rerun_data)
        finally:
            with ledger._lock:
                ledger.seconds["script"] = ledger.seconds.get("script", 0.0) + time.thread_time() - started
    ScriptRunner._run_script = run_script

    original_enqueue = ScriptRunner._enqueue_forward_msg

    def enqueue(self, msg):
        ledger.messages.append(msg)
        return original_enqueue(self, msg)
    ScriptRunner._enqueue_forward_msg = enqueue
    # Streamlit's full collection after every run (runner.postScriptGC): the module's `gc` seen through a wrapper
    script_runner_module.gc = types.SimpleNamespace(collect=ledger.wrap("gc", gc.collect))

    forward_msg_cache.populate_hash_if_needed = ledger.wrap("hash", forward_msg_cache.populate_hash_if_needed)
    _replace_everywhere("streamlit.", "populate_hash_if_needed", forward_msg_cache.populate_hash_if_needed)
    go.Figure.to_dict = ledger.wrap("to_dict", go.Figure.to_dict)
    from lcsm_explorer.app.kit import chart_element
    chart_element.plain_figure = ledger.wrap("to_dict", chart_element.plain_figure)
    go.Figure.__init__ = ledger.wrap("to_json", go.Figure.__init__)   # figures/preview absorb their own builds
    plotly.io.to_json = ledger.wrap("to_json", plotly.io.to_json)

    for module_name, name in PREVIEW_FUNCTIONS:
        module = sys.modules.get(module_name)
        if module is not None and hasattr(module, name):
            original = getattr(module, name)
            _replace_everywhere("app.", name, ledger.wrap("preview", original), original=original)
        else:
            missing.append(f"{module_name}.{name}")

    from lcsm_explorer.app import lessons
    original_lesson = lessons.lesson

    @functools.lru_cache(maxsize=None)
    def measured_lesson(page):
        import dataclasses
        found = original_lesson(page)
        changes = {name: ledger.wrap(name, getattr(found, name)) for name in ("compute", "figures")
                   if getattr(found, name) is not None}
        return dataclasses.replace(found, **changes)
    lessons.lesson = measured_lesson
    return missing


def _replace_everywhere(prefix: str, name: str, wrapped, original=None) -> None:
    """Point every loaded module under `prefix` that imported `name` (the same object) at `wrapped`."""
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith(prefix) and module is not None:
            found = getattr(module, name, None)
            if found is not None and found is not wrapped and (original is None or found is original
                                                               or getattr(found, "__wrapped__", None) is original):
                setattr(module, name, wrapped)


def helper_cpu_s() -> float:
    """CPU seconds of this process's child processes (live ones from /proc, plus those reaped)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me:
                total += (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / tick
    times = os.times()
    return total + times.children_user + times.children_system


def send_cost(messages: list[ForwardMsg], sent_hashes: set[str]) -> tuple[float, int]:
    """CPU seconds and bytes to serialize `messages` for the websocket, as a browser with a message cache sees
    them (a cacheable message whose hash it holds goes as a reference)."""
    started, size = time.thread_time(), 0
    for msg in messages:
        if msg.metadata.cacheable and msg.hash and msg.hash in sent_hashes:
            msg = forward_msg_cache.create_reference_msg(msg)
        elif msg.metadata.cacheable and msg.hash:
            sent_hashes.add(msg.hash)
        size += len(msg.SerializeToString())
    return time.thread_time() - started, size


def move_values(setting, count: int) -> list:
    """`count` new values of a numeric setting, one step apart from its default (up, then down past the top)."""
    step = setting.step or (1 if setting.kind == "int" else (setting.high - setting.low) / 100)
    values = []
    for n in range(1, 4 * count):
        for value in (setting.default + n * step,):
            value = int(round(value)) if setting.kind == "int" else round(value, 10)
            if setting.low <= value <= setting.high:
                values.append(value)
    below = [setting.default - n * step for n in range(1, 4 * count)]
    values += [int(round(v)) if setting.kind == "int" else round(v, 10) for v in below if v >= setting.low]
    return values[:count]


def first_slider(lesson) -> str:
    return next(s.name for s in lesson.settings.params if s.widget == "slider" and s.shown is None)


def profile_page(page: str, moves: int, ledger: CpuLedger) -> dict[str, dict[str, float]]:
    from lcsm_explorer.app.lessons import lesson as find_lesson

    declared = find_lesson(page)
    swept = declared.sweep.setting if declared.sweep is not None else first_slider(declared)
    at = AppTest.from_string(SCRIPT.format(page=page), default_timeout=300)
    at.run()
    assert not at.exception, at.exception
    wait_quiet()                                   # a pool's warm-up (defaults, presets) is no move's work
    sent: set[str] = set()
    out = {}
    for kind, name in (("swept", swept), ("other", OTHER[page])):
        setting = declared.settings[name]
        key = declared.settings.key(name)
        samples: dict[str, list[float]] = {p: [] for p in (*PIECES, "bytes")}
        values = move_values(setting, moves + 1)
        for n, value in enumerate(values):
            ledger.reset()
            cpu0, main0, helpers0 = time.process_time(), time.thread_time(), helper_cpu_s()
            move(at, key, value)
            assert not at.exception, at.exception
            send_s, size = send_cost(ledger.messages, sent)
            gc_outside = "gc" not in ledger.seconds and config.get_option("runner.postScriptGC")
            if gc_outside:                         # AppTest skips it; a server pays it after every run (in the script)
                gc_started = time.thread_time()
                gc.collect(2)
                ledger.seconds["gc"] = time.thread_time() - gc_started
            helpers_s = settle(helpers0)
            other_threads = (time.process_time() - cpu0) - (time.thread_time() - main0) - ledger.seconds.get(
                "script", 0.0)
            if n == 0:
                continue                                # the first move of a kind pays one-off imports
            seconds = dict(ledger.seconds)
            seconds["script"] = seconds.get("script", 0.0) + (seconds.get("gc", 0.0) if gc_outside else 0.0)
            inner = sum(seconds.get(p, 0.0) for p in PIECES
                        if p not in ("script", "send", "helpers", "processes", "total"))
            seconds.update(elements=seconds["script"] - inner, send=send_s, processes=helpers_s,
                           helpers=helpers_s + max(0.0, other_threads))
            seconds["total"] = seconds.get("script", 0.0) + send_s + seconds["helpers"]
            for piece in PIECES:
                samples[piece].append(seconds.get(piece, 0.0) * 1e3)
            samples["bytes"].append(size)
        out[kind] = dict(setting=name, moves=len(samples["total"]),
                         **{p: statistics.median(v) for p, v in samples.items() if v})
    return out


def settle(before: float, quiet_s: float = 0.5, limit_s: float = 30.0) -> float:
    """Child processes' CPU since `before`, once it has stopped growing (a pool finishing a family after the run)."""
    spent, deadline = helper_cpu_s() - before, time.monotonic() + limit_s
    if spent <= 0:
        return 0.0
    while time.monotonic() < deadline:
        time.sleep(quiet_s)
        now = helper_cpu_s() - before
        if now - spent < 0.005:
            return now
        spent = now
    return spent


def wait_quiet(period_s: float = 0.5, limit_s: float = 120.0) -> None:
    """Until this process and its children use less than 10 % of a core (a pool warming up at start)."""
    last, deadline = time.process_time() + helper_cpu_s(), time.monotonic() + limit_s
    while time.monotonic() < deadline:
        time.sleep(period_s)
        now = time.process_time() + helper_cpu_s()
        if now - last < 0.1 * period_s:
            return
        last = now


def table(rows: list[tuple[str, dict]]) -> str:
    head = ("| page | move (setting) | moves | " + " | ".join(PIECES) + " | KiB sent |\n"
            "|---|---|---|" + "---|" * (len(PIECES) + 1))
    lines = [head]
    for page, kinds in rows:
        for kind, r in kinds.items():
            cells = " | ".join(f"{r.get(p, 0.0):.1f}" for p in PIECES)
            lines.append(f"| {page} | {kind} ({r['setting']}) | {r['moves']} | {cells} | {r['bytes'] / 1024:.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=10, help="measured moves per page and kind (medians)")
    parser.add_argument("--pages", nargs="+", default=list(PAGES))
    parser.add_argument("--label", default="Now", help="heading of this run's section in the results file")
    parser.add_argument("--conditions", default="", help="what else ran on the machine (for the results file)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the results file alone")
    args = parser.parse_args()
    gc_variable = os.environ.get("STREAMLIT_RUNNER_POST_SCRIPT_GC")    # `streamlit run` reads it; AppTest does not
    if gc_variable is not None:
        config.set_option("runner.postScriptGC", gc_variable.strip().lower() in ("true", "1", "yes"))
    ledger = CpuLedger()
    import lcsm_explorer.app.kit.render  # noqa: F401 — load the app's modules so that their imported names can be rewrapped
    missing = install(ledger)
    rows = []
    for page in args.pages:
        rows.append((page, profile_page(page, args.moves, ledger)))
        print(table(rows[-1:]).splitlines()[-2:], flush=True)
    machine = f"{platform.node()} · {platform.machine()} · {os.cpu_count()} cores"
    environment = ", ".join(f"{name}={os.environ.get(name, 'unset')}" for name in THREAD_VARIABLES) \
        + f", runner.postScriptGC={config.get_option('runner.postScriptGC')}" \
        + f", browser.gatherUsageStats={config.get_option('browser.gatherUsageStats')}"
    text = "\n".join([
        f"`python benchmarks/move_profile.py {shlex.join(sys.argv[1:])}` · {time.strftime('%Y-%m-%d %H:%M')} · "
        f"{machine}" + (f" · {args.conditions}" if args.conditions else ""),
        "",
        "CPU milliseconds of one slider move, median over the moves (each to a new value); columns as in the "
        "script's docstring: script = the whole script run, of which compute, figures, to_dict, to_json, preview, "
        "hash, gc and elements (the rest); send = protobuf serialization for the websocket; helpers = other threads "
        "and child processes (processes: the latter alone); total = script + send + helpers. Targets (issue 19): "
        "≤ 30 ms for a swept move, ≤ 60 ms for any other, previews included.",
        "",
        f"Environment: {environment}.",
        "",
        table(rows),
        "",
        *([f"- Not found, so not split out (counted under elements): {', '.join(missing)}"] if missing else []),
    ])
    print(text)
    if not args.no_write:
        if not RESULT_FILE.exists():
            RESULT_FILE.parent.mkdir(parents=True, exist_ok=True)
            RESULT_FILE.write_text(TITLE, encoding="utf-8")
        write_section(args.label, text, RESULT_FILE)


if __name__ == "__main__":
    main()

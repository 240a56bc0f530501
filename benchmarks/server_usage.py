"""CPU and resident memory of a running app server and every process below it, by role, from Linux /proc — for
the benchmarks that divide server CPU by the moves it served (move_cost, classroom_load).

Roles, read from each process's command line and niceness: "web" (a Streamlit process: the script runs, the
websocket sends; with one web process the trainer service is a thread of it), "proxy" (HAProxy), "service"
(`python -m lcsm_serving.service`), "preview" (a niced worker: the preview pool runs at nice 19),
"workers" (any other process below: training workers, the multiprocessing resource tracker) and "launcher"
(app/web_tier.py, which only waits). CPU is utime+stime (all threads, dead ones included; 10 ms ticks);
a process that ended keeps the CPU it had when last read, so call `read()` often enough around short-lived ones
(a web process killed and restarted counts both).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
ROLES = ("web", "proxy", "service", "preview", "workers", "launcher")


@dataclass
class Usage:
    """CPU seconds so far and resident bytes now, per role."""

    cpu_s: dict[str, float] = field(default_factory=dict)
    rss: dict[str, int] = field(default_factory=dict)

    def cpu(self, *roles: str) -> float:
        return sum(self.cpu_s.get(r, 0.0) for r in (roles or ROLES))

    def memory(self, *roles: str) -> int:
        return sum(self.rss.get(r, 0) for r in (roles or ROLES))


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def role_of(pid: int, fields: list[str]) -> str:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "workers"
    if comm.startswith("haproxy") or "haproxy" in cmdline.split(" ", 1)[0]:
        return "proxy"
    if "lcsm_serving.service" in cmdline:
        return "service"
    if "streamlit" in cmdline and "spawn_main" not in cmdline:
        return "web"
    if "web_tier" in cmdline:
        return "launcher"
    if int(fields[16]) > 0:                    # niceness: the preview pool's workers run at 19
        return "preview"
    return "workers"


class ProcessTree:
    """The server process `root_pid` and its descendants, read on demand."""

    def __init__(self, root_pid: int):
        self.root = root_pid
        self._cpu: dict[int, tuple[str, float]] = {}    # pid → (role, CPU seconds when last read)

    def pids(self) -> dict[int, list[str]]:
        """Every live process of the tree → its /proc stat fields (after the command name)."""
        stats = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                fields = _stat(int(entry.name))
                if fields is not None and fields[0] not in ("Z", "X"):
                    stats[int(entry.name)] = fields
        tree, frontier = {}, [self.root]
        while frontier:
            pid = frontier.pop()
            if pid in stats and pid not in tree:
                tree[pid] = stats[pid]
                frontier += [p for p, f in stats.items() if int(f[1]) == pid]
        return tree

    def read(self) -> Usage:
        usage = Usage()
        for pid, fields in self.pids().items():
            known = self._cpu.get(pid)
            role = known[0] if known else role_of(pid, fields)
            spent = (int(fields[11]) + int(fields[12])) * TICK_S
            self._cpu[pid] = (role, max(spent, known[1] if known else 0.0))
            usage.rss[role] = usage.rss.get(role, 0) + int(fields[21]) * PAGE_BYTES
        for role, spent in self._cpu.values():           # ended processes keep what they had spent
            usage.cpu_s[role] = usage.cpu_s.get(role, 0.0) + spent
        return usage

"""One admission policy for all work a visitor can start: live training runs and paper-lab grids.

Pure policy, no I/O: what a piece of work costs, what a visitor and the server already hold, and whether the
work is refused, with the message a learner reads. The run store applies it inside the transaction that
stores the work (store.submit_job, store.admit_grid), so two web processes cannot both take the last place.

- **A visitor is an address, not a token.** Owner tokens are free to mint (a fresh tab, a fresh link); an
  address is not. `visitor_hash` keys a visitor by the client address the server sees (app/kit/visitor.py:
  behind the project's HAProxy, the address HAProxy forwards), an IPv6 address by its /64 (one subscriber's
  network). The machine's own user ("local": loopback, AppTest, scripts, the CLI) is the operator: no
  per-visitor quota or budget, the server's budget still applies.
- **Quota:** at most `visitor_max_active` pieces of work per visitor at once: queued, training or paused live
  runs, and grids with a cell still to run (a grid counts once).
- **Budgets in CPU-seconds** (one core for one second; a run trains on one torch thread): the cost model
  (cost.py) estimates a run before it starts, min(steps × s/step, the run's max_seconds), and a grid as the sum
  of its cells. A visitor may be charged at most `visitor_budget_s` over any `window_s` (work still to run
  counts at its estimate, work that ended at the training time it really took, so a stopped run refunds the
  rest); the server admits work while its backlog (the estimated CPU-seconds still to run, over all visitors)
  stays within `server_budget_s`.
- **A class behind one address** (a school's NAT): a learner who joined a teacher's class (app/kit/class_join.py)
  is a visitor of their own, keyed by (class, learner token) (`class_visitor_key`: app/kit/visitor.py makes it),
  with the per-visitor quota and budget above, and the class as a whole holds at most `class_max_active` pieces
  of work and `class_budget_s` CPU-seconds per window. Learner tokens are free to mint, so the class's allowance
  is what bounds a class; classes are bounded per address (`visitor_max_classes` a day), so an address's
  classes are too. A visitor with no class keeps the per-address quota.
- **A class's seats bound it** (lcsm_serving.class_store: fixed when the class is made): its learners may hold at
  most seats × `visitor_max_active` pieces of work (and never more than `class_max_active`).
- **A share of the queue:** the runs waiting for a training slot from one class, or from one visitor outside a
  class, are at most `queue_share(max_queue)` (a quarter of the queue): a class, however many learners it seats,
  cannot fill the queue for every other class and visitor. The trainer service's queue is fair between classes and
  unclassed visitors (a class is one party there: manager.py).
- **A grid holds the paper lab for `grid_ceiling_s` at most** (wall time from its admission, default 30 min): the
  trainer service stops what is left of a visitor's grid past it (the cells done are kept; the operator's grids,
  from the command line, are not held to it). The cost model's estimate can be far off on a loaded server (a grid
  estimated under the CPU budget ran for hours), so the ceiling is on the clock, not on the estimate.
- **Another visitor may wait in line behind the running grid** (the run store's grid line, at most
  `grid_line_max` grids): one grid per visitor at a time, running or in line; the trainer service starts the head of
  the line when the lab is free, checking its admission then. Each grid ahead holds the lab `grid_ceiling_s` at
  most, so a visitor in line is told when their grid starts at the latest.
- **A page's grids stay small:** one estimated over `large_grid_s` (by default the grid ceiling: a page's grid
  should finish before the ceiling would stop it) is refused from a page unless the operator allows large grids
  (LCSM_ALLOW_LARGE_GRIDS=1); the evidence grids run from the CLI, which is the operator and never refused for size.

Settings come from the environment (AdmissionPolicy.from_env), so every web process of a tier and the
trainer service read the same ones.
"""
from __future__ import annotations

import hashlib
import ipaddress
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lcsm_core.training.progress import amount_words

if TYPE_CHECKING:
    pass

LOCAL_VISITOR = "local"                   # lcsm_explorer.app.kit.visitor's name for this machine's own user
ENV_MAX_ACTIVE = "LCSM_VISITOR_MAX_ACTIVE"
ENV_VISITOR_BUDGET = "LCSM_VISITOR_BUDGET_CPU_S"
ENV_WINDOW = "LCSM_VISITOR_BUDGET_WINDOW_S"
ENV_SERVER_BUDGET = "LCSM_SERVER_BUDGET_CPU_S"
ENV_LARGE_GRID = "LCSM_LARGE_GRID_CPU_S"
ENV_ALLOW_LARGE_GRIDS = "LCSM_ALLOW_LARGE_GRIDS"
ENV_MAX_CLASSES = "LCSM_VISITOR_MAX_CLASSES"
ENV_CLASS_MAX_ACTIVE = "LCSM_CLASS_MAX_ACTIVE"
ENV_CLASS_BUDGET = "LCSM_CLASS_BUDGET_CPU_S"
ENV_GRID_CEILING = "LCSM_GRID_CEILING_S"
ENV_GRID_LINE_MAX = "LCSM_GRID_LINE_MAX"
# A class learner's visitor key: "class:<class code>:<32 hex of the learner token's hash>@<address>"
CLASS_VISITOR = re.compile(r"class:([A-Z2-9]{6}):([0-9a-f]{32})@(.*)", re.DOTALL)
CLASS_WINDOW_S = 24 * 3600                # a visitor's classes are counted over a day
CLASS_DEFAULT_SEATS = 40                  # a class's seats unless its teacher asks for others (class_store)
IPV6_PREFIX = 64                          # one subscriber gets a /64: its addresses are one visitor


class AdmissionRefused(ValueError):
    """The admission policy refuses this work; the message is for the learner."""


@dataclass(frozen=True)
class AdmissionPolicy:
    """Defaults sized for the project's 2-core class server (one training slot): a learner may hold a live run
    and a grid (or two runs); an hour of one core per visitor per hour; four CPU-hours waiting server-wide; a
    page may start a grid of up to half an estimated CPU-hour, the grid ceiling (every shipped default grid is
    estimated at under 15 CPU-minutes), and four more may wait in line behind it."""

    visitor_max_active: int = 2
    visitor_budget_s: float = 3600.0
    window_s: float = 3600.0
    server_budget_s: float = 4 * 3600.0
    large_grid_s: float = 1800.0          # estimated CPU-seconds a page's grid may take (from_env: the ceiling)
    allow_large_grids: bool = False
    visitor_max_classes: int = 5          # classes a visitor may create in CLASS_WINDOW_S (lcsm_serving.class_store)
    class_max_active: int = 40            # runs and grids a class's learners may hold at once, all together
    class_budget_s: float = 4 * 3600.0    # CPU-seconds a class's learners may be charged per window, all together
    grid_ceiling_s: float = 1800.0        # wall seconds a visitor's grid may hold the paper lab (service.py)
    grid_line_max: int = 4                # grids that may wait in line for the paper lab (store.queue_grid)

    @classmethod
    def from_env(cls, environ=None) -> AdmissionPolicy:
        """The defaults, overridden by LCSM_VISITOR_MAX_ACTIVE, LCSM_VISITOR_BUDGET_CPU_S,
        LCSM_VISITOR_BUDGET_WINDOW_S, LCSM_SERVER_BUDGET_CPU_S, LCSM_LARGE_GRID_CPU_S, LCSM_VISITOR_MAX_CLASSES,
        LCSM_CLASS_MAX_ACTIVE, LCSM_CLASS_BUDGET_CPU_S, LCSM_GRID_CEILING_S, LCSM_GRID_LINE_MAX and
        LCSM_ALLOW_LARGE_GRIDS=1. Without LCSM_LARGE_GRID_CPU_S a page's grid may be as large as the grid ceiling
        (an explicit setting wins: several grid workers finish more CPU-seconds than the ceiling's wall seconds).
        A value that is not a positive number is a ValueError naming the setting."""
        env = os.environ if environ is None else environ
        base = cls()
        ceiling = _setting(env, ENV_GRID_CEILING, base.grid_ceiling_s)
        return cls(visitor_max_active=int(_setting(env, ENV_MAX_ACTIVE, base.visitor_max_active)),
                   visitor_budget_s=_setting(env, ENV_VISITOR_BUDGET, base.visitor_budget_s),
                   window_s=_setting(env, ENV_WINDOW, base.window_s),
                   server_budget_s=_setting(env, ENV_SERVER_BUDGET, base.server_budget_s),
                   large_grid_s=_setting(env, ENV_LARGE_GRID, ceiling),
                   allow_large_grids=env.get(ENV_ALLOW_LARGE_GRIDS, "").strip() in ("1", "true", "yes"),
                   visitor_max_classes=int(_setting(env, ENV_MAX_CLASSES, base.visitor_max_classes)),
                   class_max_active=int(_setting(env, ENV_CLASS_MAX_ACTIVE, base.class_max_active)),
                   class_budget_s=_setting(env, ENV_CLASS_BUDGET, base.class_budget_s),
                   grid_ceiling_s=ceiling,
                   grid_line_max=int(_setting(env, ENV_GRID_LINE_MAX, base.grid_line_max)))


def _setting(env, name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return float(default)
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} must be a positive number") from None
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name}={raw!r} must be a positive number")
    return value


# --- who -------------------------------------------------------------------------
def class_visitor_key(address: str | None, class_code: str, learner_token: str) -> str:
    """The visitor key of a learner who joined class `class_code` (its server-checked code) with
    `learner_token`, seen at `address`: counted per (class, learner) within the class's allowance. The operator's
    own machine stays the operator (its address is returned as is)."""
    if visitor_identity(address) is None:
        return address or LOCAL_VISITOR
    learner = hashlib.sha256(f"learner:{learner_token}".encode()).hexdigest()[:32]
    return f"class:{class_code}:{learner}@{address}"


def visitor_class(key: str | None) -> str | None:
    """The class code of a class learner's visitor key; None for an address."""
    match = CLASS_VISITOR.fullmatch(key) if isinstance(key, str) else None
    return match.group(1) if match else None


def visitor_address(key: str | None) -> str | None:
    """The address part of a visitor key (a class learner's key carries the address it was seen at): what
    per-address limits (classes created a day) count under."""
    match = CLASS_VISITOR.fullmatch(key) if isinstance(key, str) else None
    return match.group(3) if match else key


def visitor_identity(address: str | None) -> str | None:
    """The address a quota counts under: IPv4 as is, an IPv4-mapped IPv6 as its IPv4, other IPv6 as its /64
    network; None for the machine's own user (no address, "local", loopback). Anything else (a name, junk) is
    kept as given: it still identifies one peer. A class learner's key (class_visitor_key) counts under its
    class and learner, not its address."""
    if not address or address == LOCAL_VISITOR:
        return None
    match = CLASS_VISITOR.fullmatch(address) if isinstance(address, str) else None
    if match:
        return f"class:{match.group(1)}:{match.group(2)}"
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]").split("%", 1)[0])
    except ValueError:
        return address.strip()
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network(f"{ip}/{IPV6_PREFIX}", strict=False))
    return str(ip)


def visitor_hash(address: str | None) -> str | None:
    """What the store keeps of a visitor: the SHA-256 of its identity (never the address), or None for the
    operator (see visitor_identity)."""
    identity = visitor_identity(address)
    return None if identity is None else hashlib.sha256(f"visitor:{identity}".encode()).hexdigest()


# --- what it costs -----------------------------------------------------------------
# --- what is held ------------------------------------------------------------------
@dataclass(frozen=True)
class Charge:
    """One stored piece of a visitor's work: when it was admitted, its estimate, the training time it took so
    far, whether it is still to run (queued, training or paused, not asked to stop), and its grid (None: a run)."""

    created_at: float
    cost_s: float
    spent_s: float
    active: bool
    grid: str | None = None

    @property
    def charged_s(self) -> float:
        """Active work at its estimate (or what it already took, if more); ended work at what it took."""
        return max(self.cost_s, self.spent_s) if self.active else self.spent_s


def active_count(charges: Iterable[Charge]) -> int:
    """Live runs plus grids (each grid once) still to run."""
    runs, grids = 0, set()
    for c in charges:
        if c.active:
            if c.grid is None:
                runs += 1
            else:
                grids.add(c.grid)
    return runs + len(grids)


def refusal(policy: AdmissionPolicy, cost_s: float, visitor: str | None, charges: list[Charge],
            server_backlog_s: float, now: float, what: str = "this run",
            class_charges: list[Charge] | None = None, class_seats: int | None = None) -> str | None:
    """Why `what` (costing `cost_s`) may not start now, in words; None when it may. `charges`: the visitor's
    stored work (active, or admitted within the window); `server_backlog_s`: estimated CPU-seconds still to run
    on the server. `visitor` None is the operator: only the server's budget applies. `class_charges` (a class
    learner): the stored work of the learner's whole class, held to the class's allowance (`class_seats`: its
    seats, when known, bound it too)."""
    if visitor is not None:
        held = active_count(charges)
        if held >= policy.visitor_max_active:
            return quota_message(held, policy.visitor_max_active)
        recent = [c for c in charges if c.active or c.created_at > now - policy.window_s]
        spent = sum(c.charged_s for c in recent)
        if spent + cost_s > policy.visitor_budget_s:
            return budget_message(spent, cost_s, policy, _wait_s(recent, spent, cost_s, policy, now), what)
    if visitor is not None and class_charges is not None:
        held, most = active_count(class_charges), class_max_active(policy, class_seats)
        if held >= most:
            return class_quota_message(held, most)
        spent = sum(c.charged_s for c in class_charges if c.active or c.created_at > now - policy.window_s)
        if spent + cost_s > policy.class_budget_s:
            return class_budget_message(spent, cost_s, policy, what)
    if server_backlog_s + cost_s > policy.server_budget_s:
        return server_budget_message(server_backlog_s, cost_s, policy, what)
    return None


def class_max_active(policy: AdmissionPolicy, seats: int | None) -> int:
    """The pieces of work a class may hold at once: its seats' quotas, at most the server's class limit."""
    if seats is None:
        return policy.class_max_active
    return max(1, min(policy.class_max_active, seats * policy.visitor_max_active))


def queue_share(max_queue: int) -> int:
    """The places of the queue one class, or one visitor outside a class, may wait in at once."""
    return max(1, max_queue // 4)


def _wait_s(charges: list[Charge], spent: float, cost_s: float, policy: AdmissionPolicy, now: float) -> float | None:
    """Seconds until enough of the visitor's ended work leaves the window for `cost_s` to fit; None when it
    never fits by waiting alone (active work, or a cost over the whole budget)."""
    if cost_s > policy.visitor_budget_s:
        return None
    need = spent + cost_s - policy.visitor_budget_s
    for c in sorted((c for c in charges if not c.active), key=lambda c: c.created_at):
        need -= c.charged_s
        if need <= 0:
            return max(0.0, c.created_at + policy.window_s - now)
    return None


def large_grid_refusal(policy: AdmissionPolicy, cost_s: float, cells: int, steps: int) -> str | None:
    """A page may not start a grid estimated over `large_grid_s` unless the operator allows large grids."""
    if policy.allow_large_grids or cost_s <= policy.large_grid_s:
        return None
    return (f"this grid would take about {_amount(cost_s)} of CPU ({cells} runs of {steps} steps, by the cost "
            f"model), more than a page may start on this server ({_amount(policy.large_grid_s)}). Run it from the "
            f"command line (python -m lcsm_serving.paper_lab), or ask the operator to set {ENV_ALLOW_LARGE_GRIDS}=1")


# --- the words ---------------------------------------------------------------------
def grid_ceiling_message(ceiling_s: float) -> str:
    return (f"stopped at the paper lab's limit for one visitor's grid ({_amount(ceiling_s)} on the clock), so that "
            "others can use the lab: the cells done are kept; run the rest later, or from the command line")


def quota_message(held: int, limit: int) -> str:
    return (f"your address already has {held} run(s) or grid(s) queued, training or paused on this server, the "
            f"most one visitor may hold at once ({limit}); stop one or let it finish, then try again")


def budget_message(spent: float, cost_s: float, policy: AdmissionPolicy, wait_s: float | None, what: str) -> str:
    when = (f"try again in about {max(1, math.ceil(wait_s / 60))} min" if wait_s is not None else
            "stop a run or wait for one to finish" if cost_s <= policy.visitor_budget_s else
            "ask for fewer steps")
    return (f"{what} needs about {_amount(cost_s)} of CPU, and your address has used {_amount(spent)} of its "
            f"{_amount(policy.visitor_budget_s)} per {_amount(policy.window_s)} on this server; {when}")


def class_quota_message(held: int, limit: int) -> str:
    return (f"your class already has {held} run(s) or grid(s) queued, training or paused on this server, the most "
            f"one class may hold at once ({limit}); wait for a classmate's run to finish, then try again")


def class_budget_message(spent: float, cost_s: float, policy: AdmissionPolicy, what: str) -> str:
    return (f"{what} needs about {_amount(cost_s)} of CPU, and your class has used {_amount(spent)} of its "
            f"{_amount(policy.class_budget_s)} per {_amount(policy.window_s)} on this server; ask your teacher, or "
            "try again later")


def queue_share_message(waiting: int, share: int, in_class: bool) -> str:
    who = "your class" if in_class else "your address"
    return (f"{who} already has {waiting} run(s) waiting for a training slot, its share of this server's queue "
            f"({share}); wait until one of them starts, then try again")


def server_budget_message(backlog: float, cost_s: float, policy: AdmissionPolicy, what: str) -> str:
    return (f"this server already has {_amount(backlog)} of CPU work waiting or training (its limit is "
            f"{_amount(policy.server_budget_s)}), and {what} needs about {_amount(cost_s)} more; try again when "
            "some of it has finished")


def _amount(seconds: float) -> str:
    """CPU time in the unit a reader takes in: s, min or h."""
    return amount_words(seconds)

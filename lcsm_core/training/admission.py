"""One admission policy for all work a visitor can start: live training runs and paper-lab grids (issue 24).

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
- **Large grids** (estimated over `large_grid_s`) are refused from a page unless the operator allows them
  (LCSM_ALLOW_LARGE_GRIDS=1); the CLI is the operator and is never refused for size.

Settings come from the environment (AdmissionPolicy.from_env), so every web process of a tier and the
trainer service read the same ones.
"""
from __future__ import annotations

import hashlib
import ipaddress
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import RunConfig

LOCAL_VISITOR = "local"                   # app.kit.visitor's name for this machine's own user
ENV_MAX_ACTIVE = "LCSM_VISITOR_MAX_ACTIVE"
ENV_VISITOR_BUDGET = "LCSM_VISITOR_BUDGET_CPU_S"
ENV_WINDOW = "LCSM_VISITOR_BUDGET_WINDOW_S"
ENV_SERVER_BUDGET = "LCSM_SERVER_BUDGET_CPU_S"
ENV_LARGE_GRID = "LCSM_LARGE_GRID_CPU_S"
ENV_ALLOW_LARGE_GRIDS = "LCSM_ALLOW_LARGE_GRIDS"
ENV_MAX_CLASSES = "LCSM_VISITOR_MAX_CLASSES"
CLASS_WINDOW_S = 24 * 3600                # a visitor's classes are counted over a day
IPV6_PREFIX = 64                          # one subscriber gets a /64: its addresses are one visitor


class AdmissionRefused(ValueError):
    """The admission policy refuses this work; the message is for the learner."""


@dataclass(frozen=True)
class AdmissionPolicy:
    """Defaults sized for the project's 2-core class server (one training slot): a learner may hold a live run
    and a grid (or two runs); an hour of one core per visitor per hour; four CPU-hours waiting server-wide; a
    page may start a grid of up to two estimated CPU-hours (every shipped default grid is under half an hour)."""

    visitor_max_active: int = 2
    visitor_budget_s: float = 3600.0
    window_s: float = 3600.0
    server_budget_s: float = 4 * 3600.0
    large_grid_s: float = 2 * 3600.0
    allow_large_grids: bool = False
    visitor_max_classes: int = 5          # classes a visitor may create in CLASS_WINDOW_S (lcsm_core.class_store)

    @classmethod
    def from_env(cls, environ=None) -> AdmissionPolicy:
        """The defaults, overridden by LCSM_VISITOR_MAX_ACTIVE, LCSM_VISITOR_BUDGET_CPU_S,
        LCSM_VISITOR_BUDGET_WINDOW_S, LCSM_SERVER_BUDGET_CPU_S, LCSM_LARGE_GRID_CPU_S, LCSM_VISITOR_MAX_CLASSES and
        LCSM_ALLOW_LARGE_GRIDS=1.
        A value that is not a positive number is a ValueError naming the setting."""
        env = os.environ if environ is None else environ
        base = cls()
        return cls(visitor_max_active=int(_setting(env, ENV_MAX_ACTIVE, base.visitor_max_active)),
                   visitor_budget_s=_setting(env, ENV_VISITOR_BUDGET, base.visitor_budget_s),
                   window_s=_setting(env, ENV_WINDOW, base.window_s),
                   server_budget_s=_setting(env, ENV_SERVER_BUDGET, base.server_budget_s),
                   large_grid_s=_setting(env, ENV_LARGE_GRID, base.large_grid_s),
                   allow_large_grids=env.get(ENV_ALLOW_LARGE_GRIDS, "").strip() in ("1", "true", "yes"),
                   visitor_max_classes=int(_setting(env, ENV_MAX_CLASSES, base.visitor_max_classes)))


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
def visitor_identity(address: str | None) -> str | None:
    """The address a quota counts under: IPv4 as is, an IPv4-mapped IPv6 as its IPv4, other IPv6 as its /64
    network; None for the machine's own user (no address, "local", loopback). Anything else (a name, junk) is
    kept as given: it still identifies one peer."""
    if not address or address == LOCAL_VISITOR:
        return None
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
def run_cost_s(config: RunConfig) -> float:
    """CPU-seconds a run may take, before it starts: its step budget at the cost model's seconds per step,
    capped by its own time limit (max_seconds counts training time, as the trainer does)."""
    from .cost import estimate_cost
    return float(min(config.optim.max_steps * estimate_cost(config).step_s, config.optim.max_seconds))


def grid_cost_s(configs: Iterable[RunConfig]) -> float:
    """CPU-seconds of a grid: the sum of its cells' run costs."""
    return float(sum(run_cost_s(c) for c in configs))


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
            server_backlog_s: float, now: float, what: str = "this run") -> str | None:
    """Why `what` (costing `cost_s`) may not start now, in words; None when it may. `charges`: the visitor's
    stored work (active, or admitted within the window); `server_backlog_s`: estimated CPU-seconds still to run
    on the server. `visitor` None is the operator: only the server's budget applies."""
    if visitor is not None:
        held = active_count(charges)
        if held >= policy.visitor_max_active:
            return quota_message(held, policy.visitor_max_active)
        recent = [c for c in charges if c.active or c.created_at > now - policy.window_s]
        spent = sum(c.charged_s for c in recent)
        if spent + cost_s > policy.visitor_budget_s:
            return budget_message(spent, cost_s, policy, _wait_s(recent, spent, cost_s, policy, now), what)
    if server_backlog_s + cost_s > policy.server_budget_s:
        return server_budget_message(server_backlog_s, cost_s, policy, what)
    return None


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
            f"command line (python -m lcsm_core.paper_lab), or ask the operator to set {ENV_ALLOW_LARGE_GRIDS}=1")


# --- the words ---------------------------------------------------------------------
def quota_message(held: int, limit: int) -> str:
    return (f"your address already has {held} run(s) or grid(s) queued, training or paused on this server, the "
            f"most one visitor may hold at once ({limit}); stop one or let it finish, then try again")


def budget_message(spent: float, cost_s: float, policy: AdmissionPolicy, wait_s: float | None, what: str) -> str:
    when = (f"try again in about {max(1, math.ceil(wait_s / 60))} min" if wait_s is not None else
            "stop a run or wait for one to finish" if cost_s <= policy.visitor_budget_s else
            "ask for fewer steps")
    return (f"{what} needs about {_amount(cost_s)} of CPU, and your address has used {_amount(spent)} of its "
            f"{_amount(policy.visitor_budget_s)} per {_amount(policy.window_s)} on this server; {when}")


def server_budget_message(backlog: float, cost_s: float, policy: AdmissionPolicy, what: str) -> str:
    return (f"this server already has {_amount(backlog)} of CPU work waiting or training (its limit is "
            f"{_amount(policy.server_budget_s)}), and {what} needs about {_amount(cost_s)} more; try again when "
            "some of it has finished")


def _amount(seconds: float) -> str:
    """CPU time in the unit a reader takes in: s, min or h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"

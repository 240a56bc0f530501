"""The evidence grids: a staged learning-rate search within a stated CPU budget, and the verdict it reads.

A verdict needs each entry at its own good learning rate and enough seeds to read the plateau lottery
(evidence.py). One rate for all (the demo grid) cannot tell "this entry cannot learn MQAR" from "this rate does
not suit it". The search, per entry and length:

1. stage 1 — STAGE1_RATES (4 rates over 1.5 decades, half a decade apart) × STAGE1_SEEDS (2 seeds);
   the entry's best rate is the one with the highest mean best accuracy over those seeds;
2. extension — an entry whose seeds left the plateau and whose best rate is the lowest or the highest tried gets
   one more rate beyond that edge (LADDER's next, half a decade on), same seeds; if the best rate is then still at
   the edge (or the ladder ends), the entry is *withheld* and every comparison with it says so;
3. stage 2 — STAGE2_SEEDS (5 seeds) at the best rate and its neighbours on the ladder; each seed's value is its
   best accuracy over those rates (the paper, too, keeps the best rate per run);
4. stage 3 — only when the claim is still undecided after stage 2 and some comparison is open (its intervals
   overlap): STAGE3_SEEDS (5 more seeds) at the same rates for the entries of the open comparisons, once, when
   it fits in what is left of the budget. Which entries get them is read from seeds 0–4 alone, so the selection
   does not move while stage 3 runs; one more look at the data, not a loop until the intervals part. It stops
   as soon as no outcome of its unfinished runs could change the verdict (`stage3_settled`: every seed still to
   come counted as leaving the plateau and as staying on it, each comparison's reachable kinds): the verdict is
   the one the whole stage would give.

Stages 1–2 stop early in the same spirit (`settled_early`): a claim decided on seeds 0–4 gets no stage 3, so once
every way their unfinished runs could fall gives it the same decided outcome (one comparison that must end "below" or
"equal" is enough for "did not hold"), the rest is not run. The driver (`next_chunk`) runs an entry or two at a time
so that this can happen soon: the entries of the undecided comparison that costs least to finish, those whose
stage-1 seeds lean against the claim first.

Each stage is a GridSpec (its own grid id, so its cells resume as any grid's do: finished cells are not run
again), of which only the cells the search selects run. The plan's budget is CPU-seconds of the one cost model
(training/cost.py, what `--cost-only` and the admission policy say), counted over the cells the search ran or
selects; a stage that does not fit in what is left is not run, and the claim is "not tested at this scale" with
that said. The plans (EVIDENCE_PLANS) use the paper's short lengths (T = 32) except data dependence, whose claim
the paper states per length (Fig. 4: 1-0-1-0 and 1-1-1-0 up to 128, only 1-0-1-0 at 256), which adds T = 128, 256.

Resume (a later session, any checkout): `python -m lcsm_serving.paper_lab --evidence NAME` reruns nothing that
finished: stage cells are in the run store, and the shipped evidence file (results/evidence/NAME.json) counts as
finished too.
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from dataclasses import dataclass, field

from .ablations import ABLATIONS, LONG_FROM
from .evidence import (
    ABOVE,
    BELOW,
    EQUAL,
    HELD,
    INCONCLUSIVE,
    NEITHER,
    NOT_HELD,
    NOT_TESTED,
    OPEN,
    OUTCOMES,
    RULE,
    SEPARATION,
    WITHHELD,
    Arm,
    Comparison,
    combined,
    compare,
    lead_interval,
    outcome_of,
    plateau_threshold,
    signed,
    withheld,
)
from .grid import Cell, GridSpec, cells

STAGE1_RATES = (1e-3, 3.2e-3, 1e-2, 3.2e-2)           # 1.5 decades (32×), half a decade apart
LADDER = (3.2e-4, *STAGE1_RATES, 1e-1)                 # the extension's one more rate at either edge
STAGE1_SEEDS = (0, 1)
STAGE2_SEEDS = (0, 1, 2, 3, 4)
STAGE3_SEEDS = (5, 6, 7, 8, 9)
CONFIRM_ROUNDS = (tuple(range(10, 50)), tuple(range(50, 90)))   # the confirmation's fresh seeds, round by round
CONFIRM_SEEDS = CONFIRM_ROUNDS[0]
CONFIRMATIONS = ("confirmation", "second confirmation")          # its rounds' stage names (confirm.py)
STAGES = ("stage 1", "extension", "stage 2", "stage 3", *CONFIRMATIONS)


@dataclass(frozen=True)
class EvidencePlan:
    """An ablation's evidence grid: the base grid (sizes, steps, lengths; its rates and seeds are the search's)
    and the budget in CPU-seconds of the cost model."""

    base: GridSpec
    budget_cpu_s: float

    @property
    def ablation(self) -> str:
        return self.base.ablation

    def spec(self, stage: str) -> GridSpec:
        """The grid of a stage (all its rates × seeds; the search runs only the cells it selects)."""
        lrs, seeds = {"stage 1": (STAGE1_RATES, STAGE1_SEEDS),
                      "extension": ((LADDER[0], LADDER[-1]), STAGE1_SEEDS),
                      "stage 2": (LADDER, STAGE2_SEEDS),
                      "stage 3": (LADDER, STAGE3_SEEDS),
                      **{name: (LADDER, seeds) for name, seeds in zip(CONFIRMATIONS, CONFIRM_ROUNDS)}}[stage]
        return dataclasses.replace(self.base, lrs=lrs, seeds=seeds)

    def specs(self) -> list[GridSpec]:
        return [self.spec(stage) for stage in STAGES]


def plan_of(ablation: str, seq_lens: tuple[int, ...] = (32,), budget_cpu_h: float = 1.0, **sizes) -> EvidencePlan:
    return EvidencePlan(GridSpec(ablation=ablation, seq_lens=seq_lens, **sizes).validate(), budget_cpu_h * 3600)


# Budgets: every stage at most at the cost model's rates (measured per code in
# benchmarks/results/paper_lab_cost-cpu.md; `--evidence NAME --cost-only` prints each stage's cost). Data
# dependence's covers stages 1–2; its stage 3 runs only as far as what is left pays for it. τ's and oscillation's
# pay for the confirmation's rounds too (τ: two rounds of 240 runs; oscillation: its second round of 80).
EVIDENCE_PLANS = {
    "activation": plan_of("activation", budget_cpu_h=1.1),
    "parameterization": plan_of("parameterization", budget_cpu_h=1.1),
    "tau": plan_of("tau", budget_cpu_h=2.7),
    "oscillation": plan_of("oscillation", budget_cpu_h=3.0),
    "data_dependence": plan_of("data_dependence", seq_lens=(32, 128, 256), budget_cpu_h=8.0),
}
ORDER = ("activation", "parameterization", "tau", "oscillation", "data_dependence")   # cheapest claims first


def cell_cost_s(cell: Cell) -> float:
    """A cell's CPU-seconds by the one cost model (what admission charges)."""
    from lcsm_core.training.cost import run_cost_s
    return run_cost_s(cell.config)


@functools.lru_cache(maxsize=64)
def _grid(spec: GridSpec) -> tuple[tuple[Cell, ...], dict[tuple, float]]:
    """A stage grid's cells and each one's cost by key (the search reads them many times per decision)."""
    every = tuple(cells(spec))
    return every, {c.key: cell_cost_s(c) for c in every}


def _cost(spec: GridSpec, chosen: Iterable[Cell]) -> float:
    costs = _grid(spec)[1]
    return sum(costs[c.key] for c in chosen)


# --- where each entry stands in the search ---------------------------------------------------------------
@dataclass(frozen=True)
class EntrySearch:
    """One entry at one length: the rates tried and the mean best accuracy at each (stage-1 seeds), the best rate,
    whether its seeds left the plateau in stage 1, and what the search does next with it."""

    label: str
    seq_len: int
    means: dict[float, float]             # rate -> mean best accuracy over the stage-1 seeds
    left: bool                            # some stage-1 seed left the plateau
    best: float | None
    extend_to: float | None = None        # the rate beyond the edge to try next
    withheld: str = ""                    # why the entry is withheld ("": it is not)

    @property
    def window(self) -> tuple[float, ...]:
        """The best rate and its ladder neighbours among the rates tried."""
        if self.best is None or self.withheld:
            return ()
        i = LADDER.index(self.best)
        return tuple(r for r in LADDER[max(0, i - 1):i + 2] if r in self.means)


def _by_key(results) -> dict[tuple, float]:
    return {r.key: r.best_acc for r in results}


def entry_search(plan: EvidencePlan, results, label: str, code: str, tau: float, T: int) -> EntrySearch:
    """Where the search stands for one entry at one length, from the results so far (pure)."""
    acc = _by_key(results)
    threshold = plateau_threshold(plan.base.kv_pairs)
    means, left = {}, False
    for lr in LADDER:
        seeds = [acc.get((code, float(tau), T, lr, s)) for s in STAGE1_SEEDS]
        if all(a is not None for a in seeds):
            means[lr] = sum(seeds) / len(seeds)
            left = left or any(a > threshold for a in seeds)
    if not set(STAGE1_RATES) <= set(means):
        return EntrySearch(label, T, means, left, None)
    tried = sorted(means)
    middle = (len(tried) - 1) / 2                                   # ties: the rate nearest the middle of the search
    best = max(tried, key=lambda lr: (means[lr], -abs(tried.index(lr) - middle)))
    edge = best in (min(means), max(means))
    if not (edge and left):
        return EntrySearch(label, T, means, left, best)
    i = LADDER.index(best)
    beyond = LADDER[i - 1] if best == min(means) and i > 0 else LADDER[i + 1] if best == max(means) and \
        i + 1 < len(LADDER) else None
    if beyond is not None and beyond not in means:
        return EntrySearch(label, T, means, left, best, extend_to=beyond)
    return EntrySearch(label, T, means, left, best,
                       withheld=f"its best rate {best:g} is at the edge of the search ({min(means):g}–"
                                f"{max(means):g})")


def searches(plan: EvidencePlan, results) -> list[EntrySearch]:
    return [entry_search(plan, results, label, code, tau, T) for label, code, tau in ABLATIONS[plan.ablation].entries
            for T in plan.base.seq_lens]


# --- what to run next ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stage:
    """The next stage of the search: its grid, the cells it selects (not yet finished), their cost."""

    name: str
    spec: GridSpec
    cells: list[Cell]
    cost_s: float

    def skipped(self) -> frozenset:
        """Keys of the stage grid's cells the search does not run (GridRunner.launch's `have`)."""
        chosen = {c.key for c in self.cells}
        return frozenset(c.key for c in cells(self.spec) if c.key not in chosen)


def next_stage(plan: EvidencePlan, results, settle: bool = True) -> Stage | None:
    """The first stage with selected cells not yet finished; None when the search is complete, or (`settle`) when
    no outcome of its unfinished runs could change the verdict (`settled_early`, `stage3_settled`)."""
    nxt = _unsettled_next_stage(plan, results)
    if nxt is not None and nxt.name != "stage 3":
        return None if settle and _decided(early_outcomes(plan, results)) else nxt
    if nxt is not None and not (settle and stage3_settled(plan, results)):
        return nxt
    from .confirm import next_confirmation  # confirm.py reads the search's stages 1–3
    return next_confirmation(plan, results, settle=settle)


def _unsettled_next_stage(plan: EvidencePlan, results) -> Stage | None:
    """The first stage with selected cells not yet finished, whether or not the rest could change the verdict."""
    done = set(_by_key(results))
    entries = {(label, T): (code, tau) for label, code, tau in ABLATIONS[plan.ablation].entries
               for T in plan.base.seq_lens}
    found = searches(plan, results)

    def stage(name, wanted) -> Stage | None:
        spec = plan.spec(name)
        todo = [c for c in _grid(spec)[0] if c.key not in done and wanted(c)]
        return Stage(name, spec, todo, _cost(spec, todo)) if todo else None

    first = stage("stage 1", lambda c: True)
    if first is not None:
        return first
    extend = {(s.label, s.seq_len): s.extend_to for s in found if s.extend_to is not None}
    more = stage("extension", lambda c: extend.get((c.label, c.seq_len)) == c.lr)
    if more is not None:
        return more
    windows = {(s.label, s.seq_len): s.window for s in found}
    assert set(windows) == set(entries)
    second = stage("stage 2", lambda c: c.lr in windows[(c.label, c.seq_len)])
    if second is not None:
        return second
    wanted = more_seeds_for(plan, results)
    third = stage("stage 3", lambda c: (c.label, c.seq_len) in wanted and c.lr in windows[(c.label, c.seq_len)])
    return third


def _entries_next(plan: EvidencePlan, results, found: Iterable[EntrySearch]) -> dict[tuple[str, int], tuple]:
    """Per entry (label, length): its earliest stage with cells not yet finished and those cells (("", []) once its
    stage 2 is done)."""
    done = set(_by_key(results))
    by_stage = {name: {} for name in ("stage 1", "extension", "stage 2")}
    for name, grouped in by_stage.items():
        for c in _grid(plan.spec(name))[0]:
            if c.key not in done:
                grouped.setdefault((c.label, c.seq_len), []).append(c)
    out = {}
    for s in found:
        key = (s.label, s.seq_len)
        out[key] = ("", [])
        for name, lrs in (("stage 1", STAGE1_RATES), ("extension", (s.extend_to,)), ("stage 2", s.window)):
            todo = [c for c in by_stage[name].get(key, []) if c.lr in lrs]
            if todo:
                out[key] = (name, todo)
                break
    return out


def next_chunk(plan: EvidencePlan, results) -> Stage | None:
    """The next cells to run, in the order that can settle the claim soonest. The stages' rule is unchanged (an
    entry's stage 2 waits for its own stage 1 and extension) and so is the order the budget pays for them (a part
    of a later stage runs early only where what is left pays for it and for all of the current stage);
    `settled_early` stops them all once the claim is decided. Stages 1–2 run an entry or two at a time: those of the
    undecided comparison that costs least to finish, a comparison whose stage-1 seeds lean against the claim (the
    other entry left the plateau, its best stage-1 mean within SEPARATION of the winner's or above it) before the
    rest. Stage 3 and the confirmation run as `next_stage` gives them."""
    whole = next_stage(plan, results)
    if whole is None or whole.name in ("stage 3", *CONFIRMATIONS):
        return whole
    found = {(s.label, s.seq_len): s for s in searches(plan, results)}
    todo = _entries_next(plan, results, found.values())

    def cost_left(key) -> float:
        name, chosen = todo[key]
        left = _cost(plan.spec(name), chosen) if chosen else 0.0
        if name in ("stage 1", "extension") and chosen:        # its stage 2 is still to come: 3 rates × 3 seeds
            left += 3 * (len(STAGE2_SEEDS) - len(STAGE1_SEEDS)) * _cost(plan.spec(name), chosen[:1])
        return left

    def leans(winners, others, T) -> bool:
        means = [found[label, T].means.get(found[label, T].best) for label in (*winners, *others)]
        if any(m is None for m in means) or not any(found[label, T].left for label in others):
            return False                      # an other entry that never left the plateau cannot beat the winner
        return max(means[len(winners):]) >= max(means[:len(winners)]) - SEPARATION

    rows = [(T, winners, others) for _, T, winners, others, kinds in _early_rows(plan, results) if len(kinds) > 1
            and any(todo[label, T][1] for label in (*winners, *others))]
    if not rows:
        return whole
    T, winners, others = min(rows, key=lambda r: (not leans(r[1], r[2], r[0]),
                                                 sum(cost_left((label, r[0])) for label in (*r[1], *r[2]))))
    unfinished = [(label, T) for label in (*winners, *others) if todo[label, T][1]]
    order = {name: i for i, name in enumerate(STAGES)}
    name = min((todo[key][0] for key in unfinished), key=order.get)
    chosen = [c for key in unfinished if todo[key][0] == name for c in todo[key][1]]
    chunk = Stage(name, plan.spec(name), chosen, _cost(plan.spec(name), chosen))
    if name != whole.name and spent_s(plan, results) + whole.cost_s + chunk.cost_s > plan.budget_cpu_s:
        return whole                          # the budget pays for the stages in order: the current one first
    return chunk


def more_seeds_for(plan: EvidencePlan, results) -> frozenset:
    """(label, length) of the entries stage 3 gives more seeds: those in an open comparison of a claim that seeds
    0–4 leave undecided (read from those seeds alone, so it holds still while stage 3 runs)."""
    early = [r for r in results if r.seed in STAGE2_SEEDS]
    read = _read(plan, early, searches(plan, early), STAGE2_SEEDS)
    if read.outcome in (HELD, NOT_HELD):
        return frozenset()
    return frozenset((label, T) for _, T, winners, others, c in read.rows if c.kind == OPEN
                     for label in (*winners, *others))


def _stage3_left(plan: EvidencePlan, results) -> dict[tuple[str, int], int]:
    """(label, length) -> stage-3 seeds still to finish, for the entries stage 3 gives more seeds."""
    wanted = more_seeds_for(plan, results)
    entries = {(label, T): (code, tau) for label, code, tau in ABLATIONS[plan.ablation].entries
               for T in plan.base.seq_lens}
    return {(s.label, s.seq_len): len(STAGE3_SEEDS) - arm_of(plan, results, s, *entries[s.label, s.seq_len],
                                                             seeds=STAGE3_SEEDS).n
            for s in searches(plan, results) if (s.label, s.seq_len) in wanted and s.window}


def _possible_kinds(a: Arm, more_a: int, b: Arm, more_b: int, lead_margin: float | None = None) -> set[str]:
    """Every kind `compare` could give once `a` and `b` have `more_a` and `more_b` more seeds, whatever those show
    (where every seed of both would have left, their accuracies decide: any kind but "neither")."""
    if not more_a and not more_b:
        return {compare(a, b, lead_margin=lead_margin).kind}
    kinds: set[str] = set()
    for k_a in range(more_a + 1):
        for k_b in range(more_b + 1):
            a2 = Arm(a.name, a.values + (1.0,) * k_a + (0.0,) * (more_a - k_a), a.threshold)
            b2 = Arm(b.name, b.values + (1.0,) * k_b + (0.0,) * (more_b - k_b), b.threshold)
            if a2.left == a2.n and b2.left == b2.n:
                kinds |= {ABOVE, BELOW, EQUAL, OPEN}
            else:
                kinds.add(compare(a2, b2, lead_margin=lead_margin).kind)
    return kinds


def _possible_outcomes(row_kinds: list[set[str]]) -> set[str]:
    """Every outcome `outcome_of` could give when each comparison may end as any of its kinds (a superset: the
    rows are taken as free of each other, though they may share an arm)."""
    if not row_kinds:
        return {NOT_TESTED}
    out = set()
    if any(k & {BELOW, EQUAL} for k in row_kinds):
        out.add(NOT_HELD)
    if all(ABOVE in k for k in row_kinds):
        out.add(HELD)
    free = [k - {BELOW, EQUAL} for k in row_kinds]
    if all(free):
        if any(k & {NEITHER, WITHHELD} for k in free):
            out.add(NOT_TESTED)
        if all(k & {ABOVE, OPEN} for k in free) and any(OPEN in k for k in free):
            out.add(INCONCLUSIVE)
    return out


ALL_KINDS = frozenset({ABOVE, BELOW, EQUAL, OPEN, NEITHER, WITHHELD})


def _reachable_rows(read: _Reading, more: dict, unknown: frozenset = frozenset()) -> list[tuple]:
    """Per comparison of a read (reading, length, winner labels, other labels, kinds): every kind it could end as
    when each entry gets `more[label, length]` more seeds, whatever they show; a comparison with an entry whose
    rates are not chosen yet (`unknown`) could end as any kind."""
    rows = []
    for reading, T, winners, others, c in read.rows:
        if any((label, T) in unknown for label in (*winners, *others)):
            kinds = set(ALL_KINDS)
        elif c.kind == WITHHELD:
            kinds = {WITHHELD}
        else:
            kinds = _possible_kinds(_pooled(read.arms, winners, T), sum(more.get((w, T), 0) for w in winners),
                                    _pooled(read.arms, others, T), sum(more.get((o, T), 0) for o in others))
        rows.append((reading, T, winners, others, kinds))
    return rows


def _reachable_outcomes(rows: list[tuple]) -> set[str]:
    """The claim's outcomes its comparisons' reachable kinds allow (readings combined as `combined` does)."""
    by_reading: dict[str, list[set[str]]] = {}
    for reading, _, _, _, kinds in rows:
        by_reading.setdefault(reading, []).append(kinds)
    sets = [_possible_outcomes(kinds) for kinds in by_reading.values()]
    if not sets:
        return {NOT_TESTED}
    if len(sets) == 1:
        return sets[0]
    agreed = set.intersection(*sets)
    return agreed if all(s == agreed and len(s) == 1 for s in sets) else agreed | {INCONCLUSIVE}


def _stage3_rows(plan: EvidencePlan, results) -> list[tuple]:
    read = _read(plan, results, searches(plan, results), STAGE2_SEEDS + STAGE3_SEEDS)
    return _reachable_rows(read, _stage3_left(plan, results))


def stage3_outcomes(plan: EvidencePlan, results) -> set[str]:
    """The outcomes the claim could reach after stage 3, whatever its unfinished runs show (before any
    confirmation: what stage 3's own stop reads)."""
    return _reachable_outcomes(_stage3_rows(plan, results))


# --- stages 1–2 stop once the claim is decided whatever their unfinished runs show ------------------------------
def _early_rows(plan: EvidencePlan, results, extra: int = 0) -> list[tuple]:
    """The comparisons' reachable kinds on seeds 0–4 while stages 1–2 are unfinished: an entry whose rates are not
    chosen yet (stage 1 or its extension unfinished) could end any way; one whose rates are chosen has the stage-2
    seeds it has not finished still to come (and `extra` more each: stage 3's, for `reachable_outcomes`)."""
    found = searches(plan, results)
    read = _read(plan, results, found, STAGE2_SEEDS)
    unknown = frozenset((s.label, s.seq_len) for s in found if s.best is None or s.extend_to is not None)
    more = {(s.label, s.seq_len): len(STAGE2_SEEDS) - read.arms[s.label, s.seq_len].n + extra
            for s in found if (s.label, s.seq_len) not in unknown and s.window}
    return _reachable_rows(read, more, unknown)


def early_outcomes(plan: EvidencePlan, results) -> set[str]:
    """The outcomes seeds 0–4 could still give the claim, whatever the unfinished runs of stages 1–2 show."""
    return _reachable_outcomes(_early_rows(plan, results))


def reachable_outcomes(plan: EvidencePlan, results, nxt: Stage | None = None) -> set[str]:
    """Every verdict the claim could still end with, whatever its unfinished runs show (a superset): the outcomes
    seeds 0–4 could give, and — where those could leave it undecided — what five more seeds per entry (stage 3)
    and then the confirmation (one open comparison decided either way) could make of it. `nxt`: the stage that
    runs next, when the caller has it."""
    nxt = nxt or _unsettled_next_stage(plan, results)
    if nxt is not None and nxt.name in CONFIRMATIONS:
        from .confirm import question, reachable
        return reachable(plan, results, question(plan, results))
    if nxt is not None and nxt.name == "stage 3":
        return _with_confirmation(_stage3_rows(plan, results))
    first = early_outcomes(plan, results)
    if first <= {HELD, NOT_HELD}:
        return first                            # decided on seeds 0–4: no stage 3
    return first | _with_confirmation(_early_rows(plan, results, extra=len(STAGE3_SEEDS)))


def _with_confirmation(rows: list[tuple]) -> set[str]:
    """The outcomes of `rows`' reachable kinds, and of the confirmation turning one comparison that could end
    open into either side (it tests one comparison only, so one row at a time)."""
    out = _reachable_outcomes(rows)
    if INCONCLUSIVE not in out:
        return out
    for i, row in enumerate(rows):
        if OPEN in row[4]:
            out |= _reachable_outcomes(_replaced(rows, i, row[4] | {ABOVE, BELOW}))
    return out


def settled_early(plan: EvidencePlan, results) -> str | None:
    """HELD or NOT_HELD when every way the unfinished runs of stages 1–2 could fall gives the claim that outcome on
    seeds 0–4, else None. A claim decided on seeds 0–4 gets no stage 3 (`more_seeds_for`), so that outcome is the
    verdict the whole search would give: the rest would be spent for nothing. (One comparison that must end "below"
    or "equal" is enough: whatever the others show, the claim did not hold.)"""
    nxt = _unsettled_next_stage(plan, results)
    if nxt is None or nxt.name == "stage 3":
        return None
    return _decided(early_outcomes(plan, results))


def _decided(outcomes: set[str]) -> str | None:
    """The one outcome of `outcomes` when it is the only one and a decided one (held or did not hold), else None."""
    return next(iter(outcomes)) if len(outcomes) == 1 and outcomes <= {HELD, NOT_HELD} else None


def stage3_settled(plan: EvidencePlan, results) -> bool:
    """Stage 3 stops once no outcome of its unfinished runs could change the verdict (they would be spent for
    nothing: the verdict is the one the whole stage would give)."""
    return len(stage3_outcomes(plan, results)) == 1


def stage3_cut(plan: EvidencePlan, results) -> tuple[int, int] | None:
    """(runs stage 3 finished, runs it left) where it stopped early (`stage3_settled`), else None."""
    wanted = more_seeds_for(plan, results)
    if not wanted:
        return None
    windows = {(s.label, s.seq_len): s.window for s in searches(plan, results)}
    done = set(_by_key(results))
    chosen = [c for c in _grid(plan.spec("stage 3"))[0] if (c.label, c.seq_len) in wanted
              and c.lr in windows[c.label, c.seq_len]]
    left = sum(c.key not in done for c in chosen)
    if not left or not stage3_settled(plan, results):
        return None
    return len(chosen) - left, left


def spent_s(plan: EvidencePlan, results) -> float:
    """CPU-seconds (cost model) of the plan's finished cells."""
    done = set(_by_key(results))
    seen, total = set(), 0.0
    for spec in plan.specs():
        every, costs = _grid(spec)
        for c in every:
            if c.key in done and c.key not in seen:
                seen.add(c.key)
                total += costs[c.key]
    return total


def stage_costs(plan: EvidencePlan) -> dict[str, float]:
    """Each stage's cost before anything ran: stage 1 in full, the extension if every entry needed it, stage 2 at
    three rates per entry less the stage-1 seeds, stage 3 if every entry needed it, both rounds of the confirmation
    of a comparison between the two dearest entries (what `--cost-only` prints beside the budget)."""
    one = plan.spec("stage 1")
    per_entry = {(c.label, c.seq_len): cell_cost_s(c) for c in cells(one) if c.lr == one.lrs[0] and c.seed == 0}
    n1, n2 = len(STAGE1_SEEDS), len(STAGE2_SEEDS)
    return {"stage 1": sum(per_entry.values()) * len(STAGE1_RATES) * n1,
            "extension (at most)": sum(per_entry.values()) * n1,
            "stage 2 (3 rates)": sum(per_entry.values()) * 3 * (n2 - n1),
            "stage 3 (at most)": sum(per_entry.values()) * 3 * len(STAGE3_SEEDS),
            "confirmation (at most)": sum(sorted(per_entry.values())[-2:]) * sum(map(len, CONFIRM_ROUNDS))}


# --- the verdict -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EvidenceVerdict:
    """The claim on the evidence grid: outcome (evidence.OUTCOMES, or "running" while stages remain within the
    budget), the comparisons behind it (reading, length, Comparison), the entries' search, and in words why it is
    undecided (`why`, "" when decided)."""

    outcome: str
    detail: str
    comparisons: tuple = ()
    entries: tuple = ()
    why: str = ""
    readings: tuple = ()
    stage: str = ""                       # the stage still to run ("": none)
    spent_s: float = 0.0
    budget_s: float = 0.0
    arms: dict = field(default_factory=dict, compare=False)   # (label, length) -> Arm
    confirmation: object = field(default=None, compare=False)  # confirm.Confirmed, where one ran

    @property
    def decided(self) -> bool:
        return self.outcome in ("held", "did not hold")


RUNNING = "running"


def arm_of(plan: EvidencePlan, results, search: EntrySearch, code: str, tau: float,
           seeds: tuple[int, ...] = STAGE2_SEEDS + STAGE3_SEEDS) -> Arm:
    """The entry's stage-2 (and stage-3) seeds, each its best accuracy over the window (only seeds with every
    window rate)."""
    acc = _by_key(results)
    values = []
    for seed in seeds:
        got = [acc.get((code, float(tau), search.seq_len, lr, seed)) for lr in search.window]
        if got and all(a is not None for a in got):
            values.append(max(got))
    return Arm(search.label, tuple(values), plateau_threshold(plan.base.kv_pairs))


def claim_pairs(ablation: str, T: int) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """The comparisons a claim makes at one length: (reading, winner labels, other labels); a group of labels is
    pooled into one arm (its entries' seeds together)."""
    labels = ABLATIONS[ablation].labels
    if ablation == "parameterization":
        return [(reading, (reading,), ("1-1-1-0",)) for reading in ("0 as DSS", "0 as selective SSM")]
    if ablation == "data_dependence":
        winners = ("1-0-1-0",) if T >= LONG_FROM else ("1-0-1-0", "1-1-1-0")
        others = [x for x in labels if x not in winners and x not in ("1-0-1-0", "1-1-1-0")] if T < LONG_FROM \
            else [x for x in labels if x != "1-0-1-0"]
        return [("", (w,), (o,)) for w in winners for o in others]
    if ablation == "tau":
        half = len(labels) // 2
        return [("", tuple(labels[-half:]), tuple(labels[:half]))]
    winner = {"oscillation": "1-11-1-0", "activation": "1-1-1-2"}[ablation]
    return [("", (winner,), (o,)) for o in labels if o != winner]


def _pooled(arms: dict, labels: Iterable[str], T: int) -> Arm:
    members = [arms[label, T] for label in labels]
    if len(members) == 1:
        return members[0]
    return Arm(" + ".join(m.name for m in members), tuple(v for m in members for v in m.values), members[0].threshold)


@dataclass(frozen=True)
class _Reading:
    """The claim read from some seeds: per (label, length) its arm, per comparison (reading, length, winner labels,
    other labels, Comparison), and the outcome of each reading and of the claim."""

    arms: dict
    rows: list
    outcomes: dict
    outcome: str


def _read(plan: EvidencePlan, results, found: list[EntrySearch], seeds: tuple[int, ...]) -> _Reading:
    entries = {(label, T): (code, tau) for label, code, tau in ABLATIONS[plan.ablation].entries
               for T in plan.base.seq_lens}
    arms = {(s.label, s.seq_len): arm_of(plan, results, s, *entries[s.label, s.seq_len], seeds=seeds) for s in found}
    held_back = {(s.label, s.seq_len): s.withheld for s in found if s.withheld}
    rows = []
    for T in plan.base.seq_lens:
        for reading, winners, others in claim_pairs(plan.ablation, T):
            a, b = _pooled(arms, winners, T), _pooled(arms, others, T)
            why = "; ".join(f"{label}: {held_back[label, T]}" for label in (*winners, *others)
                            if (label, T) in held_back)
            rows.append((reading, T, winners, others, withheld(a, b, why) if why else compare(a, b)))
    return _Reading(arms, rows, *_outcomes(rows))


def _outcomes(rows: list[tuple]) -> tuple[dict, str]:
    """Each reading's outcome from its comparisons (rows as `_Reading.rows`), and the claim's."""
    readings = sorted({r[0] for r in rows}, key=[r[0] for r in rows].index)
    outcomes = {r: outcome_of([row[-1] for row in rows if row[0] == r]) for r in readings}
    return outcomes, combined(list(outcomes.values())) if outcomes else NOT_TESTED


def _kinds(rows: list[tuple]) -> list[tuple]:
    """A reading's comparisons as reachable kinds (`_reachable_rows`' shape): each the one kind it has."""
    return [(*r[:4], {r[4].kind}) for r in rows]


def _replaced(rows: list[tuple], i: int, last) -> list[tuple]:
    """`rows` with the last field of row `i` (its comparison, or its reachable kinds) replaced by `last`."""
    return [(*r[:4], last) if j == i else r for j, r in enumerate(rows)]


def evidence_verdict(plan: EvidencePlan, results) -> EvidenceVerdict:
    """The claim on the evidence grid's results (the rule: evidence.py)."""
    spent = spent_s(plan, results)
    nxt = next_stage(plan, results)
    found = searches(plan, results)
    read = _read(plan, results, found, STAGE2_SEEDS + STAGE3_SEEDS)
    base = dict(entries=tuple(found), spent_s=spent, budget_s=plan.budget_cpu_s, arms=read.arms)
    left = max(0.0, plan.budget_cpu_s - spent)
    unpaid = ""
    if nxt is not None:
        fits = spent + nxt.cost_s <= plan.budget_cpu_s
        if nxt.name == "stage 3" and not fits:              # more seeds are extra: the verdict stands without them
            unpaid = (f"stage 3's {len(STAGE3_SEEDS)} more seeds ({len(nxt.cells)} runs, {nxt.cost_s / 3600:.2f} "
                      f"CPU-hours) do not fit in the {left / 3600:.2f} left of the budget")
        elif nxt.name in CONFIRMATIONS and not fits:
            unpaid = confirmation_unpaid(plan, results, nxt, left)
        elif not fits:
            why = (f"the budget ran out: {nxt.name} needs {nxt.cost_s / 3600:.2f} CPU-hours more ({len(nxt.cells)} "
                   f"runs), {left / 3600:.2f} of {plan.budget_cpu_s / 3600:.2f} are left")
            return EvidenceVerdict(NOT_TESTED, why, why=why, stage=nxt.name, **base)
        else:
            why = f"{nxt.name} has {len(nxt.cells)} runs still to go"
            reachable = reachable_outcomes(plan, results, nxt)
            if len(reachable) < len(OUTCOMES):       # what the seeds so far already rule out
                why += ("; whatever they show, it can end only as " +
                        " or ".join(f"“{o}”" for o in OUTCOMES if o in reachable))
            from .confirm import confirmed  # its two sides so far, while it runs
            running = confirmed(plan, results) if nxt.name in CONFIRMATIONS else None
            return EvidenceVerdict(RUNNING, why, why=why, stage=nxt.name, confirmation=running, **base)
    comparisons = [(reading, T, c) for reading, T, _, _, c in read.rows]
    early = early_cut(plan, results) if nxt is None else None
    outcome = read.outcome if early is None else early.outcome
    from .confirm import confirmed
    confirmation = confirmed(plan, results) if nxt is None else None
    detail = "; ".join(f"T={T}: {c}" for _, T, c in comparisons)
    if early is not None:
        detail += f" ({early.said})"
    why = "" if outcome in (HELD, NOT_HELD) else undecided_why(outcome, [c for *_, c in comparisons])
    cut = stage3_cut(plan, results) if nxt is None or nxt.name in CONFIRMATIONS else None
    if cut is not None:
        ran, left = cut
        said = (f"stage 3 stopped after {ran} of its {ran + left} runs: the verdict is the same whatever the "
                f"other {left} would show")
        detail += f" ({said})"
        why = f"{why}; {said}" if why else why
    if confirmation is not None:
        outcome = confirmation.outcome
        if outcome in (HELD, NOT_HELD):       # what decided it first, then what stages 1–3 had left open
            detail = (f"decided on fresh seeds by {confirmation.deciding_first()}; on seeds 0–9, stages 1–3 had "
                      f"left it open: {detail}")
        else:
            detail += f"; {confirmation.said()}"
        why = ("" if outcome in (HELD, NOT_HELD) else
               f"{why}; the confirmation did not decide it either: {confirmation.said(lead='')}" if why else "")
    if why and unpaid:
        why += f"; {unpaid}"
    return EvidenceVerdict(outcome, detail, tuple(comparisons), why=why, stage=nxt.name if unpaid else "",
                           readings=tuple((r, o) for r, o in read.outcomes.items() if r), confirmation=confirmation,
                           **base)


@dataclass(frozen=True)
class EarlyCut:
    """Where stages 1–2 stopped because the claim was settled (`settled_early`): its outcome, the comparisons that
    settle it, and in words."""

    outcome: str
    deciding: tuple
    said: str


def early_cut(plan: EvidencePlan, results) -> EarlyCut | None:
    """The early stop of stages 1–2, or None where they ran to the end (or have not stopped)."""
    outcome = settled_early(plan, results)
    if outcome is None:
        return None
    found = searches(plan, results)
    read = _read(plan, results, found, STAGE2_SEEDS)
    kinds = [kinds for *_, kinds in _early_rows(plan, results)]
    if outcome == NOT_HELD:
        deciding = tuple((T, c) for (_, T, _, _, c), k in zip(read.rows, kinds) if k <= {BELOW, EQUAL})
    else:
        deciding = tuple((T, c) for _, T, _, _, c in read.rows)
    unfinished = [key for key, (_, todo) in _entries_next(plan, results, found).items() if todo]
    spent = spent_s(plan, results)
    said = (f"the search stopped with {spent / 3600:.2f} of its {plan.budget_cpu_s / 3600:.2f} budgeted CPU-hours "
            f"spent, {len(unfinished)} entr{'y' if len(unfinished) == 1 else 'ies'} short of stage 2's five seeds: "
            f"whatever their runs would show, " + "; ".join(f"T={T}: {c}" for T, c in deciding[:3])
            + (" decides it" if len(deciding) == 1 else " decide it"))
    return EarlyCut(outcome, deciding, said)


def undecided_why(outcome: str, comparisons: list[Comparison]) -> str:
    """Why an undecided claim could not be decided, in words: the comparisons that left it open."""
    open_ = [c for c in comparisons if c.sign == 0]
    kinds = {}
    for c in open_:
        kinds.setdefault(c.kind, []).append(c)
    said = {"open": "not told apart at these seeds (more seeds would narrow the intervals)",
            "neither": "neither entry left the plateau within this budget",
            "withheld": "withheld by the learning-rate search"}
    parts = [f"{len(cs)} comparison(s) {said[kind]}, e.g. {cs[0]}{lead_said(cs[0]) if kind == OPEN else ''}"
             for kind, cs in kinds.items()]
    if outcome == "inconclusive" and not parts:
        parts = ["the readings of the claim disagree"]
    return "; ".join(parts)


def confirmation_unpaid(plan: EvidencePlan, results, nxt: Stage, left: float) -> str:
    """Why the confirmation did not run, in words: what it would test and what it costs."""
    from .confirm import question
    q = question(plan, results)
    seeds = plan.spec(nxt.name).seeds
    return (f"the {nxt.name} of T={q.seq_len}: {' + '.join(q.winners)} vs {' + '.join(q.others)} "
            f"({len(seeds)} fresh seeds each, {seeds[0]}–{seeds[-1]}: {len(nxt.cells)} runs, "
            f"{nxt.cost_s / 3600:.2f} CPU-hours) does not fit in the {left / 3600:.2f} left of the budget")


def lead_said(c: Comparison) -> str:
    """The winner's lead in the share off the plateau with its 95 % interval, in words ("" without seeds)."""
    a, b = c.winner, c.other
    if not (a.n and b.n):
        return ""
    lead, low, high = lead_interval(a.left, a.n, b.left, b.n)
    said = f"{signed(lead)} (95 % interval {signed(low)} to {signed(high)})"
    return f" — {a.name}'s lead over {b.name} in the share off the plateau: {said}"


def rule_said() -> str:
    return RULE


# --- the results: the run store's stage grids and the shipped evidence file ---------------------------------
def evidence_path(ablation: str):
    from .results import SHIPPED_DIR
    return SHIPPED_DIR / "evidence" / f"{ablation}.json"


@dataclass(frozen=True)
class ShippedEvidence:
    plan: EvidencePlan
    results: list
    device: str
    measured_on: str
    conditions: str = ""


def save_evidence(plan: EvidencePlan, results, device: str, measured_on: str, conditions: str = "", path=None):
    """Write the evidence file: the plan (base grid, budget) and every finished cell of its stages."""
    import json
    from dataclasses import asdict
    keys = {c.key for spec in plan.specs() for c in cells(spec)}
    mine = sorted((r for r in results if r.key in keys), key=lambda r: (r.label, r.seq_len, r.lr, r.seed))
    data = dict(plan=dict(base=asdict(plan.base), budget_cpu_s=plan.budget_cpu_s), device=device,
                measured_on=measured_on, **({"conditions": conditions} if conditions else {}),
                cells=[{k: (round(v, 4) if k == "best_acc" else round(v, 2) if k == "wall_s" else v)
                        for k, v in asdict(r).items() if k not in ("source", "run_id")} for r in mine])
    path = path or evidence_path(plan.ablation)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def load_evidence(ablation: str, path=None) -> ShippedEvidence | None:
    """The shipped evidence file of an ablation, or None."""
    import json

    from .results import CellResult
    path = path or evidence_path(ablation)
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    base = dict(data["plan"]["base"])
    for name in ("seq_lens", "lrs", "seeds"):
        base[name] = tuple(base[name])
    plan = EvidencePlan(GridSpec(**base), float(data["plan"]["budget_cpu_s"]))
    results = [CellResult(**cell, source="shipped") for cell in data["cells"]]
    return ShippedEvidence(plan, results, data["device"], data["measured_on"], data.get("conditions", ""))

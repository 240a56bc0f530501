"""The confirmation: one comparison tested again on fresh seeds, when stages 1–3 leave a claim inconclusive.

Stages 1–3 explore: they pick each entry's learning rate and read seeds 0–9, and a claim they leave open has at
least one comparison whose intervals overlap. The plateau lottery makes those intervals wide (a seed leaves the
plateau or it does not), and ten seeds cannot part two shares of, say, 0.7 and 0.4. The confirmation asks one
question, chosen from seeds 0–9 before any of its own seeds run, and answers it on seeds it has never read:

- the question: the open comparison that would decide the claim alone if it ended the way seeds 0–9 lean (the
  other entry ahead of the paper's winner: "did not hold"; the winner ahead, every other comparison already won:
  "held"), the one that leans the most (the largest gap between the two shares); a claim none of whose open
  comparisons could decide it alone gets no confirmation. It is read from the seeds stages 1–3 ran — where stage 3
  stopped early, those it ran: that stop keeps the verdict of stages 1–3, not necessarily which question follows;
- the runs: CONFIRM_SEEDS (40 fresh seeds, 10–49) for each entry of that comparison, each at the entry's best
  rate of stage 1 (one run per seed, not the best of three rates: it keeps the stage at a third of the cost);
- the reading: the same rule (evidence.compare) on those seeds alone; the claim's other comparisons keep their
  stage 1–3 reading, and the claim's outcome is read again with this one replaced;
- the budget: it runs only when all of it fits in what is left of the claim's budget, and it stops as soon as
  no outcome of its unfinished runs could change the verdict (each seed still to come counted both as leaving
  the plateau and as staying on it), as stage 3 does.

This stage joined the rule after the oscillation and τ grids had run stages 1–3 (it was planned before any of
its seeds ran); the page says so.
"""
from __future__ import annotations

from dataclasses import dataclass

from .ablations import ABLATIONS
from .evidence import (
    ABOVE,
    BELOW,
    INCONCLUSIVE,
    OPEN,
    Arm,
    Comparison,
    combined,
    compare,
    outcome_of,
    plateau_threshold,
)
from .search import (
    CONFIRM_SEEDS,
    STAGE2_SEEDS,
    STAGE3_SEEDS,
    Stage,
    _by_key,
    _cost,
    _decided,
    _grid,
    _possible_kinds,
    _reachable_outcomes,
    _read,
    lead_said,
    searches,
)


@dataclass(frozen=True)
class Question:
    """The comparison the confirmation tests: its place among the claim's comparisons, the way seeds 0–9 lean
    (ABOVE: the winner ahead; BELOW: the other ahead), the outcome that way decides, and each entry's best rate."""

    row: int
    reading: str
    seq_len: int
    winners: tuple[str, ...]
    others: tuple[str, ...]
    lean: str
    decides: str
    rates: dict                  # label -> its best rate


def question(plan, results) -> Question | None:
    """The comparison to confirm, read from seeds 0–9 alone (so it holds still while the confirmation runs), or
    None when the claim is not inconclusive there or no open comparison could decide it alone."""
    found = searches(plan, results)
    read = _read(plan, results, found, STAGE2_SEEDS + STAGE3_SEEDS)
    if read.outcome != INCONCLUSIVE:
        return None
    best = {(s.label, s.seq_len): s.best for s in found}
    chosen, gap = None, 0.0
    for i, (reading, T, winners, others, c) in enumerate(read.rows):
        if c.kind != OPEN or c.winner.n == 0 or c.other.n == 0:
            continue
        lead = c.winner.share - c.other.share
        lean = ABOVE if lead > 0 else BELOW
        kinds = [(r[0], r[1], r[2], r[3], {lean} if j == i else {r[4].kind}) for j, r in enumerate(read.rows)]
        decides = _decided(_reachable_outcomes(kinds))
        if lead and decides is not None and abs(lead) > gap:
            chosen, gap = Question(i, reading, T, winners, others, lean, decides,
                                   {label: best[label, T] for label in (*winners, *others)}), abs(lead)
    return chosen


def _entries(plan) -> dict:
    return {label: (code, tau) for label, code, tau in ABLATIONS[plan.ablation].entries}


def wanted(plan, q: Question) -> list:
    """The confirmation's cells: each entry of the question, its best rate, every confirmation seed."""
    every = _grid(plan.spec("confirmation"))[0]
    return [c for c in every if c.seq_len == q.seq_len and q.rates.get(c.label) == c.lr]


def arms(plan, results, q: Question) -> tuple[Arm, Arm]:
    """The question's two sides on the confirmation's seeds (a group of labels pooled, as in the search)."""
    acc = _by_key(results)
    entries = _entries(plan)
    threshold = plateau_threshold(plan.base.kv_pairs)

    def side(labels) -> Arm:
        values = tuple(v for label in labels for seed in CONFIRM_SEEDS
                       if (v := acc.get((entries[label][0], float(entries[label][1]), q.seq_len, q.rates[label],
                                         seed))) is not None)
        return Arm(" + ".join(labels), values, threshold)
    return side(q.winners), side(q.others)


def _left_to_run(plan, results, q: Question) -> tuple[int, int]:
    done = set(_by_key(results))
    todo = [c for c in wanted(plan, q) if c.key not in done]
    return (sum(c.label in q.winners for c in todo), sum(c.label in q.others for c in todo))


def reachable(plan, results, q: Question) -> set[str]:
    """The claim's outcomes whatever the confirmation's unfinished runs show."""
    read = _read(plan, results, searches(plan, results), STAGE2_SEEDS + STAGE3_SEEDS)
    a, b = arms(plan, results, q)
    more_a, more_b = _left_to_run(plan, results, q)
    kinds = _possible_kinds(a, more_a, b, more_b)
    rows = [(r[0], r[1], r[2], r[3], kinds if j == q.row else {r[4].kind}) for j, r in enumerate(read.rows)]
    return _reachable_outcomes(rows)


def next_confirmation(plan, results, settle: bool = True) -> Stage | None:
    """The confirmation's unfinished cells, or None: no question, all run, or (`settle`) the rest cannot matter."""
    q = question(plan, results)
    if q is None:
        return None
    done = set(_by_key(results))
    todo = [c for c in wanted(plan, q) if c.key not in done]
    if not todo or (settle and len(reachable(plan, results, q)) == 1):
        return None
    spec = plan.spec("confirmation")
    return Stage("confirmation", spec, todo, _cost(spec, todo))


@dataclass(frozen=True)
class Confirmed:
    """What the confirmation found: the question, its comparison on the fresh seeds, the claim's outcome read
    again, and the runs it finished and left (left > 0: it stopped once the rest could not matter)."""

    question: Question
    comparison: Comparison
    outcome: str
    ran: int
    left: int

    def said(self, lead: str = "the confirmation") -> str:
        q = self.question
        rates = ", ".join(f"{label} at {rate:g}" for label, rate in q.rates.items())
        seeds = (f"{len(CONFIRM_SEEDS)} fresh seeds, {CONFIRM_SEEDS[0]}–{CONFIRM_SEEDS[-1]}, each entry at its best "
                 f"rate: {rates}")
        text = f"{lead} ({seeds}): T={q.seq_len}: {self.comparison}" if lead else \
            f"on {seeds}, T={q.seq_len}: {self.comparison}"
        if self.comparison.sign == 0:
            text += lead_said(self.comparison)
        if self.left:
            text += (f"; it stopped after {self.ran} of its {self.ran + self.left} runs: the verdict is the same "
                     f"whatever the other {self.left} would show")
        return text


def confirmed(plan, results) -> Confirmed | None:
    """The confirmation's reading once it has finished or settled; None when it has no question or no run yet."""
    q = question(plan, results)
    if q is None:
        return None
    a, b = arms(plan, results, q)
    if not a.n and not b.n:
        return None
    read = _read(plan, results, searches(plan, results), STAGE2_SEEDS + STAGE3_SEEDS)
    comparison = compare(a, b)
    rows = [(r[0], comparison if j == q.row else r[4]) for j, r in enumerate(read.rows)]
    readings = list(dict.fromkeys(r for r, _ in rows))
    outcome = combined([outcome_of([c for r, c in rows if r == reading]) for reading in readings])
    more_a, more_b = _left_to_run(plan, results, q)
    if (more_a or more_b) and len(ends := reachable(plan, results, q)) == 1:
        outcome = next(iter(ends))               # stopped early: the only outcome the whole stage could give
    return Confirmed(q, comparison, outcome, a.n + b.n, more_a + more_b)


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

from .evidence import (
    ABOVE,
    BELOW,
    INCONCLUSIVE,
    OPEN,
    Arm,
    Comparison,
    compare,
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
    _kinds,
    _outcomes,
    _pooled,
    _possible_kinds,
    _reachable_outcomes,
    _read,
    _replaced,
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
        decides = _decided(_reachable_outcomes(_replaced(_kinds(read.rows), i, {lean})))
        if lead and decides is not None and abs(lead) > gap:
            chosen, gap = Question(i, reading, T, winners, others, lean, decides,
                                   {label: best[label, T] for label in (*winners, *others)}), abs(lead)
    return chosen


def wanted(plan, q: Question) -> list:
    """The confirmation's cells: each entry of the question, its best rate, every confirmation seed."""
    every = _grid(plan.spec("confirmation"))[0]
    return [c for c in every if c.seq_len == q.seq_len and q.rates.get(c.label) == c.lr]


def arms(plan, results, q: Question) -> tuple[Arm, Arm]:
    """The question's two sides on the confirmation's seeds (a group of labels pooled, as in the search)."""
    acc = _by_key(results)
    threshold = plateau_threshold(plan.base.kv_pairs)
    per_label = {(c.label, c.seq_len): [] for c in wanted(plan, q)}
    for c in wanted(plan, q):
        if c.key in acc:
            per_label[c.label, c.seq_len].append(acc[c.key])
    arms_ = {key: Arm(key[0], tuple(values), threshold) for key, values in per_label.items()}
    return _pooled(arms_, q.winners, q.seq_len), _pooled(arms_, q.others, q.seq_len)


def _todo(plan, results, q: Question) -> list:
    done = set(_by_key(results))
    return [c for c in wanted(plan, q) if c.key not in done]


def _left_to_run(plan, results, q: Question) -> tuple[int, int]:
    todo = _todo(plan, results, q)
    return (sum(c.label in q.winners for c in todo), sum(c.label in q.others for c in todo))


def reachable(plan, results, q: Question, read=None) -> set[str]:
    """The claim's outcomes whatever the confirmation's unfinished runs show (`read`: seeds 0–9's reading, when the
    caller has it)."""
    read = read or _read(plan, results, searches(plan, results), STAGE2_SEEDS + STAGE3_SEEDS)
    a, b = arms(plan, results, q)
    more_a, more_b = _left_to_run(plan, results, q)
    return _reachable_outcomes(_replaced(_kinds(read.rows), q.row, _possible_kinds(a, more_a, b, more_b)))


def next_confirmation(plan, results, settle: bool = True) -> Stage | None:
    """The confirmation's unfinished cells, or None: no question, all run, or (`settle`) the rest cannot matter."""
    q = question(plan, results)
    if q is None:
        return None
    todo = _todo(plan, results, q)
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
    outcome = _outcomes(_replaced(read.rows, q.row, comparison))[1]
    more_a, more_b = _left_to_run(plan, results, q)
    if (more_a or more_b) and len(ends := reachable(plan, results, q, read)) == 1:
        outcome = next(iter(ends))               # stopped early: the only outcome the whole stage could give
    return Confirmed(q, comparison, outcome, a.n + b.n, more_a + more_b)


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
- the runs: a round of 40 fresh seeds (CONFIRM_ROUNDS: 10–49, then 50–89) for each entry of that comparison,
  each at the entry's best rate of stage 1 (one run per seed, not the best of three rates: it keeps a round at a
  third of the cost);
- the reading: the same rule (evidence.compare) on the round's seeds alone, the margin included; the claim's other
  comparisons keep their stage 1–3 reading, and the claim's outcome is read again with this one replaced;
- the margin: on a round's seeds (fresh, each entry at a rate fixed before they ran) the lead's interval is fair
  both ways, so the rule reads there what stages 1–3 cannot (they pick each entry's rate on the seeds they read,
  which flatters every share): the winner's lead is, with 95 % confidence, short of evidence.MARGIN → the
  comparison ends as "equal" does, against the claim. A claim with no effect behind it is decided this way, where
  "the other entry ahead" would never come;
- the rounds: a round the rule leaves open (the intervals overlap, the lead could still reach the margin) is
  followed by one more, the same question on forty more fresh seeds (50–89), read alone. Two rounds are two looks
  at 95 % each;
- the budget: a round runs only when all of it fits in what is left of the claim's budget, and it stops as soon
  as no outcome of its unfinished runs could change what it decides (each seed still to come counted both as
  leaving the plateau and as staying on it), as stage 3 does.

This stage joined the rule after the oscillation and τ grids had run stages 1–3 (it was planned before any of
its seeds ran); the margin and the second round joined it after oscillation's first round had been read, so that
round keeps the reading it had (MARGIN_READ_FROM); the page says so.
"""
from __future__ import annotations

from dataclasses import dataclass

from .evidence import (
    ABOVE,
    BELOW,
    EQUAL,
    INCONCLUSIVE,
    MARGIN,
    OPEN,
    Arm,
    Comparison,
    compare,
    plateau_threshold,
)
from .search import (
    CONFIRM_ROUNDS,
    CONFIRMATIONS,
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

# The first round whose reading includes the margin: oscillation's first round (seeds 10–49) had been read before
# the margin joined the rule, and a margin chosen after its interval was seen must not read it. Elsewhere, every
# round.
MARGIN_READ_FROM = {"oscillation": 2}
ROUNDS = range(1, len(CONFIRM_ROUNDS) + 1)


def margin_of(plan, round_: int) -> float | None:
    """The margin a round's reading uses (None: that round is read without it)."""
    return MARGIN if round_ >= MARGIN_READ_FROM.get(plan.ablation, 1) else None


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


def _seeds_0_to_9(plan, results):
    return _read(plan, results, searches(plan, results), STAGE2_SEEDS + STAGE3_SEEDS)


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


def wanted(plan, q: Question, round_: int = 1) -> list:
    """A round's cells: each entry of the question, its best rate, every seed of the round."""
    every = _grid(plan.spec(CONFIRMATIONS[round_ - 1]))[0]
    return [c for c in every if c.seq_len == q.seq_len and q.rates.get(c.label) == c.lr]


def arms(plan, results, q: Question, round_: int = 1) -> tuple[Arm, Arm]:
    """The question's two sides on a round's seeds (a group of labels pooled, as in the search)."""
    acc = _by_key(results)
    threshold = plateau_threshold(plan.base.kv_pairs)
    per_label = {(c.label, c.seq_len): [] for c in wanted(plan, q, round_)}
    for c in wanted(plan, q, round_):
        if c.key in acc:
            per_label[c.label, c.seq_len].append(acc[c.key])
    arms_ = {key: Arm(key[0], tuple(values), threshold) for key, values in per_label.items()}
    return _pooled(arms_, q.winners, q.seq_len), _pooled(arms_, q.others, q.seq_len)


def _todo(plan, results, q: Question, round_: int = 1) -> list:
    done = set(_by_key(results))
    return [c for c in wanted(plan, q, round_) if c.key not in done]


def _left_to_run(plan, results, q: Question, round_: int = 1) -> tuple[int, int]:
    todo = _todo(plan, results, q, round_)
    return (sum(c.label in q.winners for c in todo), sum(c.label in q.others for c in todo))


def _round_ends(plan, results, q: Question, round_: int, read) -> set[str]:
    """The claim's outcomes after a round, whatever its unfinished runs show (no later round counted)."""
    a, b = arms(plan, results, q, round_)
    more_a, more_b = _left_to_run(plan, results, q, round_)
    kinds = _possible_kinds(a, more_a, b, more_b, margin_of(plan, round_))
    return _reachable_outcomes(_replaced(_kinds(read.rows), q.row, kinds))


def current_round(plan, results, q: Question, read=None, settle: bool = True) -> int:
    """The round running now, or the last one the claim needs: a round follows only once the one before has
    finished (or, `settle`, can end only one way) and leaves the claim inconclusive."""
    read = read or _seeds_0_to_9(plan, results)
    for round_ in ROUNDS:
        ends = _round_ends(plan, results, q, round_, read)
        if len(ends) > 1 or (not settle and _todo(plan, results, q, round_)) or ends != {INCONCLUSIVE}:
            return round_
    return ROUNDS[-1]


def reachable(plan, results, q: Question, read=None) -> set[str]:
    """The claim's outcomes whatever the confirmation's unfinished runs show, a later round's included (`read`:
    seeds 0–9's reading, when the caller has it)."""
    read = read or _seeds_0_to_9(plan, results)
    round_ = current_round(plan, results, q, read)
    ends = _round_ends(plan, results, q, round_, read)
    if INCONCLUSIVE in ends and round_ < ROUNDS[-1]:            # the next round may end any way
        ends |= _reachable_outcomes(_replaced(_kinds(read.rows), q.row, {ABOVE, BELOW, EQUAL, OPEN}))
    return ends


def next_confirmation(plan, results, settle: bool = True) -> Stage | None:
    """The confirmation's unfinished cells of the round running now, or None: no question, all run, or (`settle`)
    the rest cannot matter."""
    q = question(plan, results)
    if q is None:
        return None
    read = _seeds_0_to_9(plan, results)
    round_ = current_round(plan, results, q, read, settle)
    todo = _todo(plan, results, q, round_)
    if not todo or (settle and len(_round_ends(plan, results, q, round_, read)) == 1):
        return None
    name = CONFIRMATIONS[round_ - 1]
    spec = plan.spec(name)
    return Stage(name, spec, todo, _cost(spec, todo))


@dataclass(frozen=True)
class Confirmed:
    """What a round of the confirmation found: the question, its comparison on the round's fresh seeds, the claim's
    outcome read again, the runs it finished and left (`stopped`: it stopped there, the rest could not matter; else
    runs left are still to come), and the rounds before it."""

    question: Question
    comparison: Comparison
    outcome: str
    ran: int
    left: int
    round: int = 1
    earlier: tuple = ()
    stopped: bool = False

    @property
    def name(self) -> str:
        return CONFIRMATIONS[self.round - 1]

    @property
    def seeds(self) -> tuple:
        return CONFIRM_ROUNDS[self.round - 1]

    def rounds(self) -> tuple:
        return (*self.earlier, self)

    def _said(self, lead: str) -> str:
        q = self.question
        rates = ", ".join(f"{label} at {rate:g}" for label, rate in q.rates.items())
        seeds = (f"{len(self.seeds)} fresh seeds, {self.seeds[0]}–{self.seeds[-1]}, each entry at its best rate: "
                 f"{rates}")
        text = f"{lead} ({seeds}): T={q.seq_len}: {self.comparison}" if lead else \
            f"on {seeds}, T={q.seq_len}: {self.comparison}"
        if self.comparison.sign == 0:
            text += lead_said(self.comparison)
        if self.stopped:
            text += (f"; it stopped after {self.ran} of its {self.ran + self.left} runs: the verdict is the same "
                     f"whatever the other {self.left} would show")
        return text

    def said(self, lead: str = "the confirmation") -> str:
        """Every round in words (`lead`: how the first is named; "" names each round by its seeds only)."""
        names = [(lead if r.round == 1 else f"the {r.name}") if lead else "" for r in self.rounds()]
        return "; then ".join(r._said(name) for r, name in zip(self.rounds(), names))

    def deciding_first(self) -> str:
        """This round (the one that decided the claim) in words, then the rounds before it."""
        before = "; ".join(r._said(f"the {r.name}") for r in self.earlier)
        return self._said(f"the {self.name}") + (f"; before it, {before}" if before else "")


def _confirmed_round(plan, results, q: Question, round_: int, read, earlier: tuple) -> Confirmed | None:
    a, b = arms(plan, results, q, round_)
    if not a.n and not b.n:
        return None
    comparison = compare(a, b, lead_margin=margin_of(plan, round_))
    outcome = _outcomes(_replaced(read.rows, q.row, comparison))[1]
    more_a, more_b = _left_to_run(plan, results, q, round_)
    stopped = bool(more_a or more_b) and len(ends := _round_ends(plan, results, q, round_, read)) == 1
    if stopped:
        outcome = next(iter(ends))               # stopped early: the only outcome the whole round could give
    return Confirmed(q, comparison, outcome, a.n + b.n, more_a + more_b, round_, earlier, stopped)


def confirmed(plan, results) -> Confirmed | None:
    """The confirmation's latest round that ran (the rounds before it in `earlier`); None when it has no question
    or no run yet."""
    q = question(plan, results)
    if q is None:
        return None
    read = _seeds_0_to_9(plan, results)
    found = None
    for round_ in range(1, current_round(plan, results, q, read) + 1):
        now = _confirmed_round(plan, results, q, round_, read, found.rounds() if found else ())
        if now is None:
            break
        found = now
    return found

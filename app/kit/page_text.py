"""What a page says besides its charts, as text: its metrics and notices as shown, and its live equations split
into terms — pure (no streamlit). One function for the current value and for every member of a preview family,
so the instrument shows the same words whichever it draws (`lcsm_explorer.app.kit.instrument`)."""
from __future__ import annotations

import re
from typing import Any

from .lesson import Lesson, Metric, Notice

NEGATIVE_ZERO = re.compile(r"(?<![\w.])([-−])(0(?:\.0+)?)(?![\w.])")
TERM_BREAK = re.compile(r"\\qquad|\\quad(?![a-zA-Z])")


def no_negative_zero(text: str) -> str:
    """`text` with a rounded "-0" (or "−0.00") unsigned: a zero has no sign on a learner's page. Where the sign
    joins it to an operand before it ("x -0\\,v", a coefficient written `{:+.3g}`), it becomes "+0"."""
    def unsigned(found: re.Match) -> str:
        before = text[:found.start()].rstrip()
        joined = bool(before) and (before[-1].isalnum() or before[-1] in ")]}")
        return ("+" if joined else "") + found.group(2)
    return NEGATIVE_ZERO.sub(unsigned, text)


def terms(line: str) -> list[str]:
    """A display equation cut at its top-level `\\quad` and `\\qquad` (outside any braces): the pieces the
    instrument stacks when the page is narrower than the line (a term never breaks inside)."""
    pieces, depth, start = [], 0, 0
    for n, char in enumerate(line):
        if char == "{" and (n == 0 or line[n - 1] != "\\"):
            depth += 1
        elif char == "}" and (n == 0 or line[n - 1] != "\\"):
            depth -= 1
        elif char == "\\" and depth == 0:
            found = TERM_BREAK.match(line, n)
            if found:
                pieces.append(line[start:n])
                start = found.end()
    pieces.append(line[start:])
    return [piece.strip() for piece in pieces if piece.strip().strip(",:;").strip()]


def stacked(line: str) -> str:
    """A display equation for st.latex with its terms (`terms`) stacked, one under the other, where it has several:
    a line as wide as three terms does not fit a column (or a phone) beside other content."""
    pieces = terms(line)
    return line if len(pieces) < 2 else r"\begin{gathered}" + r" \\ ".join(pieces) + r"\end{gathered}"


def page_text(lesson: Lesson, values: dict, result: Any) -> dict:
    """The metrics and notices at `values` as shown (label, value, delta), and the live equations, each a list of
    its terms; no signed zero anywhere."""
    metrics, notices = readouts(lesson, values, result)
    equations: list[list[str]] = []
    if lesson.equations is not None and lesson.quantities is not None:
        equations = [terms(no_negative_zero(line)) for line in lesson.equations(lesson.quantities(values, result))]
    return dict(metrics=metrics, notices=notices, equations=equations)


def readouts(lesson: Lesson, values: dict, result: Any) -> tuple[list[dict], list[dict]]:
    """The metrics (label, value, delta, good) and notices (text, level, icon) at `values`, as shown."""
    items = lesson.metrics(values, result) if lesson.metrics is not None else []
    metrics = [dict(label=m.label, value=no_negative_zero(m.value),
                    delta=no_negative_zero(m.delta) if m.delta else None, good=m.good)
               for m in items if isinstance(m, Metric)]
    notices = [dict(text=n.text, level=n.level, icon=n.icon) for n in items if isinstance(n, Notice)]
    return metrics, notices


def chart_notes(lesson: Lesson, values: dict, result: Any, metrics: list[dict] | None = None) -> dict[str, str]:
    """Per chart that `Lesson.chart_readouts` names, its readouts in words, as shown ("regime underdamped, half-life
    6.93 s"; a delta in brackets): what its text alternative says first (`app/kit/chart_text.py`). `metrics`: the
    page's, as `readouts` gives them, where the caller has them."""
    if not lesson.chart_readouts:
        return {}
    shown = {m["label"]: m for m in (readouts(lesson, values, result)[0] if metrics is None else metrics)}
    notes = {}
    for chart, labels in lesson.chart_readouts:
        said = [f"{m['label']} {m['value']}" + (f" ({m['delta']})" if m["delta"] else "")
                for m in (shown.get(label) for label in labels) if m is not None]
        if said:
            notes[chart] = ", ".join(said)
    return notes

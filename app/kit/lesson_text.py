"""Lesson files (`lessons/*.md`) parsed into objectives, prose and checkable exercises — pure.

A lesson file is Markdown a teacher edits without Python:

    ---
    page: spring
    title: Spring–mass–damper
    ---
    ## Objectives
    - bullet per objective
    ## Lesson
    prose, $$display math$$ …
    ## Exercise: Critically damped
    Prompt text (Markdown).
    check: zeta = 1 ± 0.02            ← the page's live settings must satisfy this
    answer: half_life ± 2%            ← or: the student types a number, compared with this
    hint: shown after a wrong try
    explain: shown after a right one
    ## Challenge: Short memory, big radius
    Prompt text (Markdown): a goal reached by moving the settings (or a number to find).
    target: min_radius >= 0.99        ← same grammar as check:; every target must hold
    target: max_horizon < 150
    hint: / explain: as for exercises; a line that goes on without a field name continues the
    field above it (until a blank line)
    solution: r_min=0.99&r_max=0.993  ← settings that solve it, as a link's query (not shown; tests check it)
    ## Quantities
    - half_life: envelope half-life t½ [s]      ← how feedback names a live quantity, and its unit
    ## Try this
    - [chart: response] Drag c below 0. Look for: the swings growing instead of dying out.
    - Press a preset first (no chart named: the step sits at the top, under the story).

A `## Try this` list is the lesson's reading order: 3–5 steps, each drawn under the chart it names (the
chart names of the page's declaration), each saying what to do and, after `Look for:`, what to see. A step
naming a chart the page does not have is a mistake reported on that page only (`check_steps`).

Check lines: `NAME OP VALUE [± TOL[%]]` with OP one of = < > <= >=, or `NAME between A and B`;
VALUE/A/B are numbers or names of live quantities the page provides (listed on the page).
Several `check:` (or `target:`) lines must all hold. Challenges are graded exactly like exercises;
the page shows them in their own block, and a teacher link can open one (`?challenge=N`).

Feedback speaks the page's words: a failing condition is told with each quantity's label and unit from the
file's `## Quantities` list (`[yes/no]` marks a 1-or-0 flag) and numbers formatted for reading, never
the variable name. Display math `$$…$$` may span lines: `markdown` rewrites it to the block form the
page's Markdown renderer reads (a `$$` opening a line with its content after it would otherwise swallow
the text that follows as red TeX source).

Each page reads only its own file (`lesson_file`): a mistake in one lesson file marks only its page.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lcsm_explorer import lessons_dir

ENV_LESSONS_DIR = "LCSM_LESSONS_DIR"    # a teacher's edited copy (`lcsm-explorer lessons export DIR`)
LESSONS_DIR = Path(os.environ.get(ENV_LESSONS_DIR) or lessons_dir())
FIELDS = ("check", "target", "answer", "hint", "explain", "solution")
PROSE_FIELDS = ("hint", "explain")                           # fields whose text may go on over several lines
QUANTITIES = "Quantities"                                    # the section naming the page's live quantities
TRY_THIS = "Try this"                                        # the section of reading-order steps
FLAG_UNIT = "yes/no"
CONDITION = {"Exercise": "check", "Challenge": "target"}     # the settings-condition line of each section kind
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_TERM = rf"(?:{_NUMBER}|[A-Za-z_]\w*)"
_COMPARE = re.compile(rf"^\s*(\w+)\s*(<=|>=|=|<|>)\s*({_TERM})\s*(?:±\s*({_NUMBER})\s*(%?))?\s*$")
_BETWEEN = re.compile(rf"^\s*(\w+)\s+between\s+({_TERM})\s+and\s+({_TERM})\s*$")
_ANSWER = re.compile(rf"^\s*({_TERM})\s*(?:±\s*({_NUMBER})\s*(%?))?\s*$")
_WORD = re.compile(r"^\s*[-*]\s*([A-Za-z_]\w*)\s*:\s*(.+?)\s*(?:\[([^\]]*)\])?\s*$")
_STEP = re.compile(r"^\s*(?:\[\s*chart\s*:\s*([^\]]*?)\s*\]\s*)?(.*?)\s*\bLook for:\s*(.+?)\s*$", re.S | re.I)


class LessonFormatError(ValueError):
    pass


@dataclass(frozen=True)
class Exercise:
    title: str
    prompt: str
    checks: tuple[str, ...] = ()
    answer: str | None = None
    hint: str = ""
    explain: str = ""
    solution: str = ""        # a challenge's solving settings, as a link's query (`r_min=0.99&r_max=0.993`)

    @property
    def kind(self) -> str:
        return "answer" if self.answer is not None else "check"

    def names(self) -> set[str]:
        """Live-quantity names this exercise refers to."""
        text = " ".join(self.checks + ((self.answer,) if self.answer else ()))
        words = set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", text))      # not the e of 1e-9
        return words - {"between", "and"}


@dataclass(frozen=True)
class Step:
    """One "try this" step of the reading order: drawn under `chart` (a chart name of the page; "" = at the
    top, under the story), saying what to `do` and what to `look_for` (Markdown, in the page's words)."""
    do: str
    look_for: str
    chart: str = ""


@dataclass(frozen=True)
class LessonText:
    page: str
    title: str
    objectives: tuple[str, ...]
    body: str
    exercises: tuple[Exercise, ...]
    extra: dict = field(default_factory=dict)   # any other "## Section" → Markdown
    challenges: tuple[Exercise, ...] = ()       # "## Challenge: …" sections, graded like exercises
    words: dict = field(default_factory=dict)   # live quantity → Word (its label and unit), from "## Quantities"
    steps: tuple[Step, ...] = ()                # "## Try this": the reading order, each step under its chart


@dataclass(frozen=True)
class Word:
    """How the page names a live quantity: `label` as the page shows it, `unit` ('' for none, FLAG_UNIT for a flag)."""
    label: str
    unit: str = ""

    @property
    def is_flag(self) -> bool:
        return self.unit == FLAG_UNIT


@dataclass(frozen=True)
class Feedback:
    correct: bool
    message: str


def parse_lesson(text: str) -> LessonText:
    """Lesson from the file text; LessonFormatError names the first problem."""
    meta, rest = _front_matter(text)
    sections = _sections(rest)
    objectives = tuple(line.lstrip("-* ").strip() for line in sections.pop("Objectives", "").splitlines()
                       if line.strip().startswith(("-", "*")))
    body = sections.pop("Lesson", "").strip()
    words = _words(sections.pop(QUANTITIES, ""))
    steps = _steps(sections.pop(TRY_THIS, ""))
    graded = {kind: [] for kind in CONDITION}
    for heading in [h for h in sections if h.startswith(tuple(CONDITION))]:
        kind = next(k for k in CONDITION if heading.startswith(k))
        title = heading.partition(":")[2].strip() or heading
        graded[kind].append(_exercise(title, sections.pop(heading), kind))
    for key in ("page", "title"):
        if key not in meta:
            raise LessonFormatError(f"front matter needs '{key}:'")
    return LessonText(page=meta["page"], title=meta["title"], objectives=objectives, body=body,
                      exercises=tuple(graded["Exercise"]), extra={k: v.strip() for k, v in sections.items()},
                      challenges=tuple(graded["Challenge"]), words=words, steps=steps)


def markdown(text: str) -> str:
    """Lesson Markdown as the page hands it to `st.markdown`: a display equation `$$…$$` that spans lines, or
    stands alone on its line, is rewritten in block form (`$$`, the equation, `$$`, each on its own line: shown
    centred, in display style; on one line with its text Streamlit shows it inline). Streamlit's renderer reads a line
    opening with `$$` as a math block whose first line is a label, so `$$a =\\n b.$$` would lose `a =` and run
    the block on to the end of the text, all shown as red TeX source."""
    lines, out, n = text.splitlines(), [], 0
    while n < len(lines):
        opening = re.match(r"^(\s*)\$\$(.*)$", lines[n])
        alone = re.match(r"^(\s*)\$\$([^$]+)\$\$([.,;:]?)\s*$", lines[n])
        if alone:                                 # an equation alone on its line: shown as a display, centred
            indent, equation, stop = alone.groups()
            out += [f"{indent}$$", indent + equation.strip() + stop, f"{indent}$$"]
            n += 1
            continue
        close = next((j for j in range(n + 1, len(lines)) if "$$" in lines[j]), None)
        if opening is None or "$$" in opening.group(2) or close is None:
            out.append(lines[n])                  # prose, a one-line equation, or an unclosed $$ (left as written)
            n += 1
            continue
        indent, first = opening.groups()
        last, _, after = lines[close].partition("$$")
        equation = [part.strip() for part in (first, *lines[n + 1:close], last) if part.strip()]
        out += [f"{indent}$$", *(indent + part for part in equation), f"{indent}$$"]
        if after.strip():
            out.append(indent + after.strip())
        n = close + 1
    return "\n".join(out)


def objectives_line(lesson: LessonText) -> str:
    return "**You will learn to** " + " · ".join(lesson.objectives) if lesson.objectives else ""


def notes(lesson: LessonText) -> list[str]:
    """The lesson's prose, then every other section under its heading, as the page draws them: a section is next
    under the page's title (h2), as are the prose's `###` subsections (`prose_headings`)."""
    return ([markdown(prose_headings(lesson.body))]
            + [markdown(f"## {heading}\n\n{text}") for heading, text in lesson.extra.items()])


def story(lesson: LessonText) -> str:
    """The lesson's story, shown open at the top of the page: its prose up to the first `###` subsection."""
    return markdown(prose_headings(_story_split(lesson.body)[0]))


def more_notes(lesson: LessonText) -> list[str]:
    """What the page folds under "More notes": the prose's `###` subsections, then every other section."""
    rest = _story_split(lesson.body)[1]
    return ([markdown(prose_headings(rest))] if rest else []) + notes(lesson)[1:]


def prose_headings(text: str) -> str:
    """The lesson's prose with its headings one level up, as the page shows them. In the file a `##` line starts a
    section of the file, so the prose writes its subsections as `###`; on the page the title is the one h1 and a
    subsection is next under it, h2 (WCAG 1.3.1: no level skipped). Lines in a fenced code block stay as written."""
    lines, fenced = text.splitlines(), False
    for n, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and re.match(r"^#{3,6}\s", line):
            lines[n] = line[1:]
    return "\n".join(lines)


def _story_split(body: str) -> tuple[str, str]:
    found = re.search(r"^###\s", body, re.M)
    return (body, "") if found is None else (body[:found.start()].strip(), body[found.start():].strip())


def step_markdown(n: int, step: Step) -> str:
    """A try-this step as the page draws it (`n`: 0-based place in the reading order)."""
    return markdown(f"**Try {n + 1}.** {step.do}\n\n👀 **Look for:** {step.look_for}")


def check_steps(lesson: LessonText, charts) -> None:
    """LessonFormatError when a try-this step names a chart the page does not draw (`charts`: its names)."""
    for n, step in enumerate(lesson.steps):
        if step.chart and step.chart not in charts:
            have = ", ".join(charts) or "none: leave [chart: …] out, the step then sits at the top"
            raise LessonFormatError(f"try-this step {n + 1} names the chart '{step.chart}', which this page does "
                                    f"not draw (its charts: {have})")


def item_markdown(n: int, item: Exercise, numbered: bool = True) -> str:
    """An exercise's or challenge's question as the page draws it."""
    return markdown((f"**{n + 1}. {item.title}** — " if numbered else "") + item.prompt)


def markdown_pieces(lesson: LessonText) -> list[str]:
    """Every piece of Markdown the page draws from a lesson file: objectives, notes, questions, hints and
    explanations (the hints and explanations close the feedback messages)."""
    items = lesson.exercises + lesson.challenges
    return ([objectives_line(lesson)] + notes(lesson) + [step_markdown(n, s) for n, s in enumerate(lesson.steps)]
            + [item_markdown(n, item) for n, item in enumerate(items)]
            + [markdown(text) for item in items for text in (item.hint, item.explain) if text])


def lesson_files(directory: Path | None = None) -> list[Path]:
    """Lesson files are named NN-<name>.md (README.md and other notes are skipped); default: LESSONS_DIR."""
    return sorted((directory or LESSONS_DIR).glob("[0-9]*.md"))


def lesson_file(page: str, directory: Path | None = None) -> Path:
    """The file of one page: the one whose front matter says `page: <page>` (only the front matter of the
    others is read), else the one named after the page (`NN-lru-stability.md` for `lru_stability`), so that a
    file whose front matter is broken is still found by its own page, which then reports the mistake."""
    files = lesson_files(directory)
    for path in files:
        if _declared_page(path) == page:
            return path
    for path in files:
        if _named_page(path) == page:
            return path
    raise FileNotFoundError(f"no lesson with 'page: {page}' in {directory or LESSONS_DIR}")


def load_lesson(page: str, directory: Path | None = None) -> LessonText:
    """The lesson whose front matter says `page: <page>`; parses that file alone (LessonFormatError for its
    mistakes — another file's mistakes never reach this page)."""
    path = lesson_file(page, directory)
    lesson = parse_lesson(_lesson_source(path))
    if lesson.page != page:
        raise LessonFormatError(f"{path.name} says 'page: {lesson.page}', not 'page: {page}'")
    return lesson


def _lesson_source(path: Path) -> str:
    """A lesson file's text; LessonFormatError, in a teacher's words, for a file that is not UTF-8 text or not a
    file at all (a folder named like one, a dangling link): only its own page says so."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as why:
        line = why.object[:why.start].count(b"\n") + 1
        raise LessonFormatError(f"{path.name} is not UTF-8 text (byte 0x{why.object[why.start]:02x} on line {line}): "
                                "save it as UTF-8 in the editor") from None
    except IsADirectoryError:
        raise LessonFormatError(f"{path.name} is a folder, not a lesson file: rename or remove it") from None
    except OSError as why:
        raise LessonFormatError(f"{path.name} cannot be read ({why.strerror or why})") from None


def lesson_pages(directory: Path | None = None) -> list[str]:
    """The page of every lesson file, in file order (a file whose front matter is broken: the page its name says)."""
    return [_declared_page(path) or _named_page(path) for path in lesson_files(directory)]


def _named_page(path: Path) -> str:
    """The page a lesson file's name says: `04-lru-stability.md` → `lru_stability`."""
    return path.stem.partition("-")[2].replace("-", "_")


def _declared_page(path: Path) -> str | None:
    """The `page:` of a file's front matter; None when the front matter cannot be read."""
    try:
        return _front_matter(path.read_text(encoding="utf-8"))[0].get("page")
    except (LessonFormatError, OSError, UnicodeDecodeError):
        return None


def _front_matter(text: str) -> tuple[dict, str]:
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise LessonFormatError("a lesson starts with a '---' front-matter block")
    try:
        end = next(n for n in range(1, len(lines)) if lines[n].strip() == "---")
    except StopIteration:
        raise LessonFormatError("front matter is not closed with '---'") from None
    meta = {}
    for line in lines[1:end]:
        if ":" in line:
            k, _, v = line.partition(":")
            meta[k.strip()] = v.strip()
    return meta, "\n".join(lines[end + 1:])


def _sections(text: str) -> dict[str, str]:
    sections, current = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = ""
        elif current is not None:
            sections[current] += line + "\n"
    return sections


def _words(text: str) -> dict[str, Word]:
    """`- name: label [unit]` lines of the Quantities section (other lines are notes for the teacher)."""
    words = {}
    for line in text.splitlines():
        found = _WORD.match(line)
        if found:
            name, label, unit = found.groups()
            words[name] = Word(label.strip(), (unit or "").strip())
        elif line.strip().startswith(("-", "*")):
            raise LessonFormatError(f"{QUANTITIES}: cannot read '{line.strip()}' (write '- name: label [unit]')")
    return words


def _steps(text: str) -> tuple[Step, ...]:
    """`- [chart: NAME] what to do. Look for: what to see` items; an item may go on over the next lines."""
    items, current = [], None
    for line in text.splitlines():
        if line.strip().startswith(("- ", "* ")):
            current = [line.strip()[2:]]
            items.append(current)
        elif line.strip() and current is not None:
            current.append(line.strip())
        elif not line.strip():
            current = None
        else:
            raise LessonFormatError(f"{TRY_THIS}: '{line.strip()}' is not a step (start each step with '- ')")
    steps = []
    for n, item in enumerate(items):
        found = _STEP.match(" ".join(item))
        if found is None or not found.group(2).strip():
            raise LessonFormatError(f"{TRY_THIS}: step {n + 1} needs what to do, then 'Look for:' and what to see")
        steps.append(Step(do=found.group(2).strip(), look_for=found.group(3).strip(), chart=found.group(1) or ""))
    return tuple(steps)


def _exercise(title: str, text: str, kind: str = "Exercise") -> Exercise:
    """An exercise or a challenge (`kind`): its conditions are `check:` lines, or `target:` lines.

    The question comes first; then the field lines. A hint: or explain: may go on over the next lines (up to a
    blank line or the next field); any other text among the fields is a mistake, reported, never glued onto the
    question."""
    found = {f: [] for f in FIELDS}
    prompt, open_field, where = [], None, f"{kind.lower()} '{title}'"
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in FIELDS and not line.startswith(" "):
            open_field = key.strip().lower()
            found[open_field].append(value.strip())
        elif not line.strip():
            open_field = None if open_field is None else ""            # a blank line closes a field's text
        elif open_field in PROSE_FIELDS:
            found[open_field][-1] += " " + line.strip()
        elif open_field is None:
            prompt.append(line)
        else:
            raise LessonFormatError(f"{where}: '{line.strip()}' follows the {open_field or 'field'} lines; put the "
                                    "question before them, or go on with a hint:/explain: text without a blank line")
    condition = CONDITION[kind]
    for other in set(CONDITION.values()) - {condition}:
        if found[other]:
            raise LessonFormatError(f"{where}: use {condition}: lines here ({other}: belongs to another section)")
    checks, answers = tuple(found[condition]), found["answer"]
    if bool(checks) == bool(answers):
        raise LessonFormatError(f"{where} needs either {condition}: lines or one answer: line")
    for c in checks:
        if not (_COMPARE.match(c) or _BETWEEN.match(c)):
            raise LessonFormatError(f"{where}: cannot read {condition} '{c}'")
    if answers and (len(answers) > 1 or not _ANSWER.match(answers[0])):
        raise LessonFormatError(f"{where}: answer must be 'VALUE [± TOL[%]]', got {answers}")
    if len(found["solution"]) > 1:
        raise LessonFormatError(f"{where}: one solution: line at most")
    return Exercise(title=title, prompt="\n".join(prompt).strip(), checks=checks,
                    answer=answers[0] if answers else None, hint=" ".join(found["hint"]),
                    explain=" ".join(found["explain"]), solution="".join(found["solution"]))


def _value(term: str, quantities: dict) -> float:
    if re.fullmatch(_NUMBER, term):
        return float(term)
    if term not in quantities:
        raise KeyError(term)
    return float(quantities[term])


def _within(got: float, target: float, tol: str | None, percent: str) -> bool:
    if tol is None:
        return math.isclose(got, target, rel_tol=1e-9, abs_tol=1e-12)
    width = float(tol) * (abs(target) / 100 if percent else 1.0)
    return abs(got - target) <= width


def holds(check: str, quantities: dict) -> bool:
    """Whether one check line holds for the live quantities (KeyError for an unknown name)."""
    between = _BETWEEN.match(check)
    if between:
        name, lo, hi = between.groups()
        return _value(lo, quantities) <= _value(name, quantities) <= _value(hi, quantities)
    name, op, term, tol, percent = _COMPARE.match(check).groups()
    got, target = _value(name, quantities), _value(term, quantities)
    if op == "=":
        return _within(got, target, tol, percent)
    return {"<": got < target, ">": got > target, "<=": got <= target, ">=": got >= target}[op]


def check_settings(ex: Exercise, quantities: dict, words: dict | None = None) -> Feedback:
    """Feedback on a check-kind exercise for the page's current live quantities, in the words of `words`
    (the lesson's Quantities: label and unit of each name)."""
    try:
        failing = [c for c in ex.checks if not holds(c, quantities)]
    except KeyError as missing:
        return Feedback(False, f"This refers to {missing}, which the page does not provide.")
    if not failing:
        return Feedback(True, "✅ Correct. " + ex.explain)
    return Feedback(False, "Not yet: " + "; ".join(what_fails(c, quantities, words or {}) for c in failing) + ". "
                    + (ex.hint or "Move the sliders and try again."))


_SAYS = {"<": "below", "<=": "at most", ">": "above", ">=": "at least", "=": ""}


def what_fails(check: str, quantities: dict, words: dict) -> str:
    """A condition that does not hold and the value that breaks it, in the page's words:
    `half_life < 1` → "the envelope half-life t½ must be below 1 s (now ∞)"."""
    between = _BETWEEN.match(check)
    if between:
        name, lo, hi = between.groups()
        want = f"between {_term(lo, name, quantities, words)} and {_term(hi, name, quantities, words)}"
        return f"{_label(name, words)} must be {want} (now {_now(name, quantities, words)})"
    name, op, term, tol, percent = _COMPARE.match(check).groups()
    word = words.get(name)
    if word is not None and word.is_flag:
        wanted = [v for v in (1.0, 0.0) if holds(check, {**quantities, name: v})]
        if len(wanted) == 1:
            return f"“{word.label}” must be {_yes_no(wanted[0])} (now {_now(name, quantities, words)})"
    target = _term(term, name, quantities, words)
    if op == "=":
        want = (f"within {_number(float(tol))} % of {target}" if tol and percent
                else f"{target} ± {_number(float(tol), _unit(name, words))}" if tol else target)
    else:
        want = f"{_SAYS[op]} {target}"
    return f"{_label(name, words)} must be {want} (now {_now(name, quantities, words)})"


def _label(name: str, words: dict) -> str:
    return words[name].label if name in words else name


def _unit(name: str, words: dict) -> str:
    word = words.get(name)
    return "" if word is None or word.is_flag else word.unit


def _term(term: str, name: str, quantities: dict, words: dict) -> str:
    """A check's right-hand side: a number in the unit of `name`, or another quantity's label and value."""
    if re.fullmatch(_NUMBER, term):
        return _number(float(term), _unit(name, words))
    return f"{_label(term, words)} ({_now(term, quantities, words)})"


def _now(name: str, quantities: dict, words: dict) -> str:
    value = float(quantities[name])
    word = words.get(name)
    if word is not None and word.is_flag:
        return _yes_no(value)
    return _number(value, _unit(name, words))


def _yes_no(value: float) -> str:
    return {1.0: "yes", 0.0: "no"}.get(value, "not known yet")


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _number(value: float, unit: str = "") -> str:
    """A number as a reader writes it: 3 significant digits, a Unicode minus, ∞, powers of ten as 1.5×10⁻¹²."""
    if math.isnan(value):
        return "undefined"
    if math.isinf(value):
        text = "∞" if value > 0 else "−∞"
    elif value != 0 and not 1e-3 <= abs(value) < 1e5:
        mantissa, exponent = f"{abs(value):.2e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
        text = ("−" if value < 0 else "") + (power if mantissa == "1" else f"{mantissa}×{power}")
    else:
        text = (f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}").replace("-", "−")
    return f"{text} {unit}".strip() if unit and not unit.startswith("%") else text + unit


def check_answer(ex: Exercise, answer: float | None, quantities: dict, words: dict | None = None) -> Feedback:
    """Feedback on an answer-kind exercise for the number the student typed."""
    if answer is None or not math.isfinite(answer):
        return Feedback(False, "Type a number first.")
    term, tol, percent = _ANSWER.match(ex.answer).groups()
    try:
        target = _value(term, quantities)
    except KeyError as missing:
        return Feedback(False, f"This refers to {missing}, which the page does not provide.")
    if _within(answer, target, tol or "1", percent if tol else "%"):   # default: within 1 %
        return Feedback(True, "✅ Correct. " + ex.explain)
    return Feedback(False, "Not yet. " + (ex.hint or "Look at the plots and the equations above."))

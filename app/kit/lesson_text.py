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
    hint: / explain: as for exercises

Check lines: `NAME OP VALUE [± TOL[%]]` with OP one of = < > <= >=, or `NAME between A and B`;
VALUE/A/B are numbers or names of live quantities the page provides (listed on the page).
Several `check:` (or `target:`) lines must all hold. Challenges are graded exactly like exercises;
the page shows them in their own block, and a teacher link can open one (`?challenge=N`).

Each page reads only its own file (`lesson_file`): a mistake in one lesson file marks only its page.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

LESSONS_DIR = Path(__file__).resolve().parents[2] / "lessons"
FIELDS = ("check", "target", "answer", "hint", "explain")
CONDITION = {"Exercise": "check", "Challenge": "target"}     # the settings-condition line of each section kind
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_TERM = rf"(?:{_NUMBER}|[A-Za-z_]\w*)"
_COMPARE = re.compile(rf"^\s*(\w+)\s*(<=|>=|=|<|>)\s*({_TERM})\s*(?:±\s*({_NUMBER})\s*(%?))?\s*$")
_BETWEEN = re.compile(rf"^\s*(\w+)\s+between\s+({_TERM})\s+and\s+({_TERM})\s*$")
_ANSWER = re.compile(rf"^\s*({_TERM})\s*(?:±\s*({_NUMBER})\s*(%?))?\s*$")


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

    @property
    def kind(self) -> str:
        return "answer" if self.answer is not None else "check"

    def names(self) -> set[str]:
        """Live-quantity names this exercise refers to."""
        text = " ".join(self.checks + ((self.answer,) if self.answer else ()))
        words = set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", text))      # not the e of 1e-9
        return words - {"between", "and"}


@dataclass(frozen=True)
class LessonText:
    page: str
    title: str
    objectives: tuple[str, ...]
    body: str
    exercises: tuple[Exercise, ...]
    extra: dict = field(default_factory=dict)   # any other "## Section" → Markdown
    challenges: tuple[Exercise, ...] = ()       # "## Challenge: …" sections, graded like exercises


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
                      challenges=tuple(graded["Challenge"]))


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
    lesson = parse_lesson(path.read_text(encoding="utf-8"))
    if lesson.page != page:
        raise LessonFormatError(f"{path.name} says 'page: {lesson.page}', not 'page: {page}'")
    return lesson


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


def _exercise(title: str, text: str, kind: str = "Exercise") -> Exercise:
    """An exercise or a challenge (`kind`): its conditions are `check:` lines, or `target:` lines."""
    found = {f: [] for f in FIELDS}
    prompt = []
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in FIELDS and not line.startswith(" "):
            found[key.strip().lower()].append(value.strip())
        else:
            prompt.append(line)
    condition = CONDITION[kind]
    where = f"{kind.lower()} '{title}'"
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
    return Exercise(title=title, prompt="\n".join(prompt).strip(), checks=checks,
                    answer=answers[0] if answers else None, hint=" ".join(found["hint"]),
                    explain=" ".join(found["explain"]))


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


def check_settings(ex: Exercise, quantities: dict) -> Feedback:
    """Feedback on a check-kind exercise for the page's current live quantities."""
    try:
        failing = [c for c in ex.checks if not holds(c, quantities)]
    except KeyError as missing:
        return Feedback(False, f"This refers to {missing}, which the page does not provide.")
    if not failing:
        return Feedback(True, "✅ Correct. " + ex.explain)
    return Feedback(False, "Not yet: " + "; ".join(_what_fails(c, quantities) for c in failing) + ". "
                    + (ex.hint or "Move the sliders and try again."))


def _what_fails(check: str, quantities: dict) -> str:
    """`zeta = 1 ± 0.02` does not hold (now zeta = 0.1) — the condition and the value that breaks it."""
    names = sorted(n for n in Exercise("", "", checks=(check,)).names() if n in quantities)
    now = ", ".join(f"{n} = {float(quantities[n]):.4g}" for n in names)
    return f"`{check.strip()}` does not hold" + (f" (now {now})" if now else "")


def check_answer(ex: Exercise, answer: float | None, quantities: dict) -> Feedback:
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

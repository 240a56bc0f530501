"""A teacher's class path: `lessons/course.md`, read into steps (page + settings + prompt + challenge) — pure.

    # Course: From a spring to a sequence model        (the course's title)
    One paragraph for the teacher (optional).

    ## A spring rings                                 (one step: its heading is the step's title)
    page: spring                                      (a lesson page, as in its URL)
    settings: m=1, c=0.2                              (optional: URL names and values; the rest stay default)
    challenge: 1                                      (optional: the page's challenge the step opens, 1-based)
    Lower c until the ringing stops. Where are the poles now?   (the rest: the prompt, Markdown)

Every step is checked against the page's declaration (a page that is not a lesson, a setting it does not have,
a value outside its range, a challenge it does not have): a mistake is a CourseFormatError naming the line, and
the class view shows it instead of the path. A step's challenge is checked against its lesson file only when that
file can be read: one that cannot (not UTF-8, a folder) is that lesson's mistake, not the course's, so the path
still opens and the class view names the file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from lcsm_explorer.app.lessons import PAGES, lesson

from . import lesson_text
from .classroom import share_query
from .lesson_text import load_lesson

COURSE_FILE = "course.md"
FIELD = re.compile(r"(page|settings|challenge):(.*)")
MAX_STEPS = 50


class CourseFormatError(ValueError):
    """A mistake in the course file, with its line number."""


@dataclass(frozen=True)
class Step:
    title: str
    page: str
    values: dict              # every setting of the page: the step's, then the defaults
    prompt: str = ""
    challenge: int | None = None        # 0-based; None: none opened

    def query(self, present: bool = False, class_code: str | None = None) -> str:
        """The step's link query: its settings and challenge; `present` for the projector, `class_code` for
        learners (who keep their own learner token: a link never carries one)."""
        text = share_query(lesson(self.page).settings, self.values, present=present, challenge=self.challenge)
        return text + ("&" + urlencode({"class": class_code}) if class_code else "")


@dataclass(frozen=True)
class Course:
    title: str
    intro: str
    steps: tuple[Step, ...]


def course_path(directory: Path | None = None) -> Path:
    return (directory or lesson_text.LESSONS_DIR) / COURSE_FILE


def load_course(directory: Path | None = None) -> Course:
    """The course file of `directory` (default: lessons/); FileNotFoundError when there is none,
    CourseFormatError when it is not UTF-8 text or not a file."""
    path = course_path(directory)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as why:
        line = why.object[:why.start].count(b"\n") + 1
        raise CourseFormatError(f"it is not UTF-8 text (byte 0x{why.object[why.start]:02x} on line {line}): save "
                                "it as UTF-8 in the editor") from None
    except IsADirectoryError:
        raise CourseFormatError("it is a folder, not the course file: rename or remove it") from None
    return parse_course(text, directory)


def parse_course(text: str, directory: Path | None = None) -> Course:
    lines = text.splitlines()
    title, intro, blocks = "", [], []
    for number, line in enumerate(lines, start=1):
        if line.startswith("## "):
            blocks.append((number, line[3:].strip(), []))
        elif blocks:
            blocks[-1][2].append((number, line))
        elif line.startswith("# "):
            title = line[2:].strip().removeprefix("Course:").strip()
        else:
            intro.append(line)
    if not blocks:
        raise CourseFormatError("the course has no steps (each step starts with a '## ' heading)")
    if len(blocks) > MAX_STEPS:
        raise CourseFormatError(f"the course has {len(blocks)} steps; at most {MAX_STEPS}")
    steps = tuple(_step(number, heading, body, directory) for number, heading, body in blocks)
    return Course(title or "Class path", "\n".join(intro).strip(), steps)


def _step(number: int, heading: str, body: list, directory: Path | None) -> Step:
    if not heading:
        raise CourseFormatError(f"line {number}: a step needs a title after '## '")
    fields, prompt = {}, []
    for line_number, line in body:
        match = FIELD.fullmatch(line.strip())
        if match and not prompt:
            fields[match.group(1)] = (line_number, match.group(2).strip())
        else:
            prompt.append(line)
    if "page" not in fields:
        raise CourseFormatError(f"line {number}: step {heading!r} needs a 'page:' line")
    where, page = fields["page"]
    if page not in PAGES:
        raise CourseFormatError(f"line {where}: {page!r} is not a lesson page (one of {', '.join(PAGES)})")
    values = _values(page, *fields.get("settings", (number, "")))
    challenge = _challenge(page, directory, *fields["challenge"]) if "challenge" in fields else None
    return Step(heading, page, values, "\n".join(prompt).strip(), challenge)


def _values(page: str, where: int, text: str) -> dict:
    spec = lesson(page).settings
    query = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or name not in spec:
            raise CourseFormatError(f"line {where}: {pair!r} is not name=value for a setting of {page} "
                                    f"({', '.join(p.name for p in spec.params)})")
        query[name] = value.strip()
    values, notes = spec.read(query)
    if notes:
        raise CourseFormatError(f"line {where}: " + "; ".join(notes))
    return values


def _challenge(page: str, directory: Path | None, where: int, text: str) -> int:
    count = _challenge_count(page, directory)
    number = int(text) if re.fullmatch(r"[1-9][0-9]?", text) else None
    if number is not None and (count is None or number <= count):     # None: checked once its file can be read
        return number - 1
    if count is None:
        raise CourseFormatError(f"line {where}: challenge {text!r} is not a challenge number (1 to 99)")
    raise CourseFormatError(f"line {where}: challenge {text!r} is not a challenge of {page} "
                            f"(a number from 1 to {count})" if count else f"line {where}: {page} has no challenges")


def _challenge_count(page: str, directory: Path | None) -> int | None:
    """How many challenges the page's lesson file has; None when the file cannot be read (its page says why)."""
    try:
        return len(load_lesson(page, directory).challenges)
    except (lesson_text.LessonFormatError, OSError):
        return None

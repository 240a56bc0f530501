"""The class view's table: for each exercise and challenge of the lessons, how many of the class's learners solved
it — pure (the counts come from `ClassStore.results`, the items from the lesson files as they are now)."""
from __future__ import annotations

from lcsm_serving.class_store import ClassResults

from .lesson_text import LessonText


def count_rows(results: ClassResults, lessons: list[LessonText], pages: tuple[str, ...] | None = None) -> list[dict]:
    """One row per item of `lessons` (only `pages`' when given), challenges first: lesson, item, solved."""
    rows = []
    for text in lessons:
        if pages is not None and text.page not in pages:
            continue
        for kind, items in (("challenge", text.challenges), ("exercise", text.exercises)):
            for item in items:
                solved = results.solved.get((text.page, kind, item.title), 0)
                rows.append({"lesson": text.title, "item": f"{'🏆' if kind == 'challenge' else '✏️'} {item.title}",
                             "solved": f"{solved} of {results.learners}"})
    return rows


def summary_line(results: ClassResults) -> str:
    answers = sum(results.solved.values())
    joined = "1 learner has" if results.learners == 1 else f"{results.learners} learners have"
    right = "1 right answer" if answers == 1 else f"{answers} right answers"
    return f"**Class {results.code}** · {joined} joined · {right} so far"

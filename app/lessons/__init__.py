"""Every lesson page of the explorer, in lesson order: one module per lesson, one `LESSON` declaration each
(drawn by `lcsm_explorer.app.kit.render.render_lesson`), its prose and exercises in `lessons/NN-<page>.md`."""
from __future__ import annotations

import importlib

from lcsm_explorer.app.kit.lesson import Lesson

PAGES = ("spring", "discretize", "rings", "lru_stability", "propagation",
         "eos_view", "online_learners", "train_live", "paper_lab", "check_math")


def lesson(page: str) -> Lesson:
    """The declaration of one page (KeyError for a page that is not a lesson)."""
    if page not in PAGES:
        raise KeyError(page)
    return importlib.import_module(f"lcsm_explorer.app.lessons.{page}").LESSON


def all_lessons() -> list[Lesson]:
    return [lesson(page) for page in PAGES]

"""The Train live link of a run of a given size and budget, built from the page's SETTINGS as they are now
(setting names change: a time budget became a step budget), so the reliability scripts never hardcode them."""
from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# A model that trains a step in milliseconds (the browser test's tiny run), by setting name where it exists.
TINY = dict(d_model=8, k=8, seq_len=16, vocab=16, kv_pairs=2, batch=8, layers=1)


def page_settings():
    from lcsm_explorer.app.lessons.train_live import SETTINGS
    return SETTINGS


def budget_values(steps: int, seconds: float, settings=None) -> dict:
    """The step budget (a whole-number setting about steps) and the time budget (a setting in seconds), each
    where the page has one, held inside its declared range and the server's caps (SizeLimits)."""
    settings = settings or page_settings()
    from lcsm_core.training.config import SizeLimits
    caps = SizeLimits()
    steps = min(steps, getattr(caps, "max_steps", steps))
    seconds = min(seconds, getattr(caps, "max_seconds", seconds))
    out = {}
    for p in settings.params:
        words = f"{p.name} {p.label}".lower()
        if p.kind == "int" and "step" in words and "eval" not in words:
            out[p.name] = _inside(p, steps)
        elif p.kind in ("int", "float") and ("(s)" in words or "second" in words or "time budget" in words):
            out[p.name] = _inside(p, seconds)
    return out


def train_live_query(steps: int, seconds: float, tiny: bool = True, **extra) -> str:
    """`?`-less query string for /train_live: a tiny model (or the page's default one) with this budget."""
    settings = page_settings()
    values = {name: v for name, v in (TINY if tiny else {}).items() if name in settings}
    values.update(budget_values(steps, seconds, settings))
    values.update(extra)
    return urlencode({name: settings[name].encode(v) if name in settings else v for name, v in values.items()})


def _inside(p, value):
    value = min(max(value, p.low), p.high)
    return int(value) if p.kind == "int" else float(value)

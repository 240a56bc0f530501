"""One identity per browser, in real browsers with separate cookie jars (app/kit/browser_identity.py).

- Fixation with a server-issued token: an attacker copies his Train live `?owner=` into a link; the victim opens it
  and starts a run; the attacker's copy of the run (with his own token, or with the victim's from her address bar)
  shows it read-only, and his ⏸ Pause / ↺ Reset act on no run of hers.
- A reopened link is the same learner: a class link opened again in a second tab of the same browser keeps the
  score (one learner in the class view), and a second browser is another learner.
- The identity cookie is HttpOnly (page scripts cannot read it) and SameSite=Lax.
"""
import re
import time

import pytest

from tests.browser.app_server import ROOT, needs_chromium

SHOTS = ROOT / "tests" / "screenshots"
pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.fixture(scope="module")
def chromium(browser):
    return browser


def query(page, name: str) -> str | None:
    found = re.search(rf"[?&]{name}=([^&]+)", page.url)
    return found.group(1) if found else None


def wait_query(page, name: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while (value := query(page, name)) is None:
        assert time.monotonic() < deadline, f"no {name}= in {page.url}"
        page.wait_for_timeout(200)                   # (not time.sleep: playwright learns of URL changes meanwhile)
    return value


def main_text(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def wait_text(page, words: str, timeout: float = 60.0) -> None:
    page.get_by_text(words).first.wait_for(timeout=timeout * 1000)


def test_the_identity_cookie_is_httponly_and_samesite(app_url, chromium):
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(f"{app_url}/spring")
        page.wait_for_selector('[data-testid="stMain"] h1', timeout=60000)
        cookie = next(c for c in context.cookies() if c["name"] == "lcsm_browser")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and cookie["path"] == "/"
        assert "lcsm_browser" not in page.evaluate("() => document.cookie")
    finally:
        context.close()


def test_a_copied_owner_link_does_not_hand_the_victims_run_to_the_attacker(app_url, chromium):
    attacker, victim = chromium.new_context(), chromium.new_context()           # two cookie jars
    try:
        mine = attacker.new_page()
        mine.goto(f"{app_url}/train_live")
        mine.get_by_role("button", name="⏭ Step").click()      # a run: his token in his address
        planted = wait_query(mine, "owner")
        theirs = victim.new_page()
        theirs.goto(f"{app_url}/train_live?owner={planted}")                   # the link the attacker sent
        wait_text(theirs, "another browser's owner token")
        assert wait_query(theirs, "owner") != planted                          # she drives with her own
        theirs.get_by_role("button", name="⏭ Step").click()     # her run
        wait_text(theirs, "Your run")
        run = re.search(r"train_live\?run=(\d+)", main_text(theirs)).group(1)   # its read-only share link
        for link in (f"train_live?owner={planted}&run={run}",                    # his token, her run
                     f"train_live?owner={query(theirs, 'owner')}&run={run}"):   # her whole address
            mine.goto(f"{app_url}/{link}")
            wait_text(mine, "Someone else's run, shown read-only")
            mine.screenshot(path=str(SHOTS / "identity-attacker-reads-only.png"))
            assert "Your run" not in main_text(mine)
    finally:
        attacker.close()
        victim.close()


def test_a_reopened_class_link_is_the_same_learner_and_another_browser_another(app_url, chromium):
    teacher, learner, other = chromium.new_context(), chromium.new_context(), chromium.new_context()
    try:
        view = teacher.new_page()
        view.goto(f"{app_url}/class_view")
        view.get_by_role("button", name="Create a class").click()
        code = re.search(r"class=([A-Z0-9]+)", view.locator("code").first.inner_text(timeout=60000)).group(1)
        first = learner.new_page()
        first.goto(f"{app_url}/spring?class={code}")
        token = wait_query(first, "learner")
        second = learner.new_page()                                            # the link opened again
        second.goto(f"{app_url}/spring?class={code}")
        assert wait_query(second, "learner") == token
        wait_text(second, "Your score in this browser")
        elsewhere = other.new_page()
        elsewhere.goto(f"{app_url}/spring?class={code}")
        assert wait_query(elsewhere, "learner") != token
        view.reload()
        wait_text(view, "2 learners have joined")                              # two browsers, three tabs
        view.screenshot(path=str(SHOTS / "identity-class-view.png"))
    finally:
        for context in (teacher, learner, other):
            context.close()

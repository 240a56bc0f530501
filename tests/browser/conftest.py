"""What the browser tests share, per test process: one app server (started as the README does, its own data
directory), and one chromium per test module. A test that needs a server of its own (its own environment, a web
tier) starts one with `running_app` and still uses its module's chromium.

The Playwright driver lives for one module, not the session: its sync API keeps an asyncio loop running on the
main thread while it is open, and the next module on this test process (xdist mixes browser and other modules)
may need asyncio.run or a Playwright of its own.

Sharing them saves a server start and a cold page cache per module (the first visit of a lesson computes its
family): a test opens its own page or context and closes it, and leaves nothing in the server another needs."""
import os

import pytest

from tests.browser.app_server import BROWSER_ARGS, CHROMIUM, CHROMIUM_MISSING, IN_CI, ROOT, running_app

SHOTS = ROOT / "tests" / "screenshots"


@pytest.fixture(scope="module")
def playwright_driver():
    if CHROMIUM is None:
        (pytest.fail if IN_CI else pytest.skip)(CHROMIUM_MISSING)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright_driver):
    chromium = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    SHOTS.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with running_app(tmp_path_factory.mktemp("data"), SHOTS / f"app-server-{worker}.log") as url:
        yield url

"""What a screen reader gets, read from chromium's accessibility tree (the DevTools protocol's
Accessibility.getFullAXTree): on Home, Class view and every lesson, every control a learner can operate has a name,
and every slider also says its value. (Each chart's name and summary: test_chart_text_browser.py.)
"""

import pytest

from lcsm_explorer.app.lessons import PAGES
from tests.browser.app_server import ROOT, needs_chromium, wait_idle

SHOTS = ROOT / "tests" / "screenshots"
pytestmark = [pytest.mark.browser, needs_chromium]
OPERABLE = {"slider", "spinbutton", "combobox", "checkbox", "button", "textbox", "radio", "switch", "link", "tab",
            "menuitem", "listbox", "searchbox"}
VALUED = {"slider"}                  # a number box may be empty (an answer not yet typed)


@pytest.fixture(scope="module")
def browser_and_url(browser, app_url):
    return browser, app_url


def value_of(node: dict, key: str) -> str:
    field = node.get(key) or {}
    return str(field.get("value", "")).strip()


def unnamed_controls(tree: list[dict]) -> list[str]:
    """The operable nodes without a name, and the sliders without a value."""
    faults = []
    for node in tree:
        if node.get("ignored"):
            continue
        role = value_of(node, "role")
        if role not in OPERABLE:
            continue
        name = value_of(node, "name")
        if not name:
            faults.append(f"{role} without a name (node {node.get('backendDOMNodeId')})")
        elif role in VALUED and not (value_of(node, "value") or any(
                p.get("name") == "valuetext" for p in node.get("properties", []))):
            faults.append(f"{role} {name!r} without a value")
    return faults


@pytest.mark.parametrize("viewport", [(1280, 720), (390, 844)], ids=["1280x720", "390x844"])
def test_every_control_has_a_name_and_every_slider_its_value(browser_and_url, viewport):
    browser, url = browser_and_url
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    faults, counted = {}, {}
    try:
        page = context.new_page()
        session = context.new_cdp_session(page)
        for name in ["", "class_view", *PAGES]:
            page.goto(f"{url}/{name}")
            page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
            wait_idle(page)
            page.evaluate("() => document.querySelectorAll('details:not([open])').forEach(d => d.open = true)")
            wait_idle(page)
            tree = session.send("Accessibility.getFullAXTree")["nodes"]
            counted[name or "home"] = sum(1 for n in tree if not n.get("ignored")
                                          and value_of(n, "role") in OPERABLE)
            found = unnamed_controls(tree)
            if found:
                faults[name or "home"] = found
    finally:
        context.close()
    assert all(counted.values()), f"a page with no control read: {counted}"
    assert not faults, f"controls a screen reader cannot name: {faults}"

"""axe-core over every page, at a laptop's and a phone's viewport, with every fold open: the accessibility table.

    python3 benchmarks/accessibility.py [--url URL] [--pages home spring ...] [--label TEXT] [--no-write]

Starts the app as the README does (app/serve.py, its own data directory) unless given `--url`, opens Home, Class
view and every lesson in Debian's chromium at 1280×720 and 390×844, opens every fold (notes, exercises, "Show the
data"), waits for the page to settle and runs axe-core (the `axe-playwright-python` package: axe 4.12) with every
rule it runs by default (WCAG 2.0/2.1/2.2 A and AA, and its best practices: headings, landmarks), none disabled and
no element excluded, and with `target-size` (WCAG 2.2's 2.5.8, 24×24 px or spaced: off in axe by default).
Prints per page × viewport the violations by impact (critical / serious / moderate / minor) and the rules behind
them, and the charts that carry an accessible name (axe does not read text drawn in a chart's SVG). Writes the
table as a section of benchmarks/results/accessibility.md (one section per `--label`).
tests/browser/test_accessibility_browser.py runs the same audit (`audit`) as a gate, with checks of its own on each
page it opens (`probes`).
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.app_process import BROWSER_ARGS, CHROMIUM, AppServer  # noqa: E402
from benchmarks.app_process import wait_idle as idle  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "accessibility.md"
VIEWPORTS = {"1280×720": (1280, 720), "390×844": (390, 844)}
# The phone's viewport is opened as a phone is: a mobile page with touch, one device pixel per CSS pixel.
PHONE = {"is_mobile": True, "has_touch": True, "device_scale_factor": 1}
IMPACTS = ("critical", "serious", "moderate", "minor")
OPEN_FOLDS = "() => document.querySelectorAll('details:not([open])').forEach(d => d.open = true)"
# every rule axe runs by default, and target-size, which it does not; `resultTypes`: axe lists every node only of
# the violations (of passes and the rest, one node a rule), which takes a third to a quarter of the time on a page
# of charts and finds the same violations
AXE_OPTIONS = {"rules": {"target-size": {"enabled": True}}, "resultTypes": ["violations"]}
CHART_NAMES = """() => [...document.querySelectorAll('.js-plotly-plot')].map(plot => {
    const named = plot.closest('[aria-label], [aria-labelledby], figure');
    const label = named && (named.getAttribute('aria-label') || (named.getAttribute('aria-labelledby') &&
      document.getElementById(named.getAttribute('aria-labelledby'))?.textContent) ||
      named.querySelector(':scope > figcaption')?.textContent);
    return (label || '').trim(); })"""


RUNNING_CLASS, PROJECTED_CLASS = "class_view:running", "class_view:projector"   # a class created on the way


def page_names() -> list[str]:
    from lcsm_explorer.app.lessons import PAGES
    return ["home", "class_view", *PAGES]


def presenter_names() -> list[str]:
    """Every lesson's presenter view (a teacher link's `?present=1`), the Class view of a class just created and
    its projector view."""
    from lcsm_explorer.app.lessons import PAGES
    return [f"{p}?present=1" for p in PAGES] + [RUNNING_CLASS, PROJECTED_CLASS]


def wait_idle(page, timeout_s: float = 90.0) -> None:
    """Until the page is idle, its page script run (`app_process.wait_idle`)."""
    idle(page, timeout_s, page_script=True)


def open_page(context, url: str, name: str, found: dict | None = None, folded: dict | None = None):
    """A page of the app (`name`: "home", "class_view" or a lesson's page) in `context`, settled, every fold open;
    before the folds open, each of `folded` (name → a function of the page) looks at it, into `found`."""
    page = context.new_page()
    page.goto(f"{url}/{'' if name == 'home' else name.split(':')[0]}")
    page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
    wait_idle(page)
    if name in (RUNNING_CLASS, PROJECTED_CLASS):
        page.get_by_role("button", name="Create a class").click()
        page.wait_for_url(re.compile(r"teacher=[0-9a-f]{32}"), timeout=60_000)
        wait_idle(page)
        if name == PROJECTED_CLASS:
            page.goto(page.url + "&present=1")
            wait_idle(page)
    for probe, look in (folded or {}).items():
        found[probe] = look(page)
    page.evaluate(OPEN_FOLDS)
    wait_idle(page)
    return page


def audit_page(browser, url: str, name: str, viewport: tuple[int, int], probes: dict | None = None,
               axe: bool = True, folded: dict | None = None) -> dict:
    """axe's violations on one page at one viewport (every fold open), its charts' accessible names, and what each
    of `probes` (name → a function of the open page) found on it (`axe=False`: the probes alone); `folded`: probes
    that look at the page first, as a learner finds it (no fold opened)."""
    from axe_playwright_python.sync_playwright import Axe
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                  **(PHONE if viewport == VIEWPORTS["390×844"] else {}))
    folded_probes: dict = {}
    try:
        page = open_page(context, url, name, folded_probes, folded or {})
        violations = Axe().run(page, options=AXE_OPTIONS).response["violations"] if axe else []
        names = page.evaluate(CHART_NAMES)
        found = {**folded_probes, **{probe: look(page) for probe, look in (probes or {}).items()}}
    finally:
        context.close()
    return dict(page=name, viewport=viewport, violations=[
        dict(id=v["id"], impact=v.get("impact") or "minor", nodes=len(v["nodes"]), help=v["help"],
             targets=[", ".join(map(str, n["target"])) for n in v["nodes"][:3]]) for v in violations],
        charts=len(names), named_charts=sum(1 for n in names if n), probes=found)


def audit(url: str, pages: list[str], viewports: dict = VIEWPORTS, probes: dict | None = None, axe: bool = True,
          browser=None, folded: dict | None = None) -> list[dict]:
    """`audit_page` over every page at every viewport, in `browser` (a Playwright chromium), or in one of its own."""
    if browser is not None:
        return [audit_page(browser, url, name, size, probes, axe, folded) for name in pages
                for size in viewports.values()]
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        own = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            return audit(url, pages, viewports, probes, axe, own, folded)
        finally:
            own.close()


def table(rows: list[dict]) -> str:
    lines = ["| page | viewport | critical | serious | moderate | minor | charts named | rules (nodes) |",
             "|---|---|---|---|---|---|---|---|"]
    totals: Counter = Counter()
    for row in rows:
        by = Counter()
        for v in row["violations"]:
            by[v["impact"]] += 1
        totals.update(by)
        rules = ", ".join(f"{v['id']} ({v['impact']}, ×{v['nodes']})" for v in row["violations"]) or "—"
        lines.append(f"| {row['page']} | {row['viewport'][0]}×{row['viewport'][1]} | "
                     + " | ".join(str(by[i]) for i in IMPACTS)
                     + f" | {row['named_charts']} of {row['charts']} | {rules} |")
    lines.append("| **all** | | " + " | ".join(f"**{totals[i]}**" for i in IMPACTS) + " | "
                 f"{sum(r['named_charts'] for r in rows)} of {sum(r['charts'] for r in rows)} | |")
    return "\n".join(lines)


def write_section(heading: str, text: str) -> None:
    """Replace (or add) the section `## heading` of the results file."""
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Accessibility: axe-core per page\n"
    parts = old.split("\n## ")
    kept = [parts[0].rstrip("\n")] + [p.rstrip("\n") for p in parts[1:] if p.split("\n", 1)[0] != heading]
    RESULTS.write_text("\n\n## ".join(kept + [f"{heading}\n\n{text}"]) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="audit this server instead of starting one")
    parser.add_argument("--pages", nargs="*", help="page names (default: Home, Class view, every lesson)")
    parser.add_argument("--presenter", action="store_true",
                        help="the presenter views and a running class's Class view (projector and laptop)")
    parser.add_argument("--label", default="", help="the results section's heading")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    server = None
    if args.url is None:
        data = Path(tempfile.mkdtemp(prefix="lcsm-axe-"))
        server = AppServer(data, data / "server.log", env={"LCSM_PREVIEW_MAX_LOAD": "1e9"}).start()
    try:
        rows = audit(args.url or server.url, args.pages or page_names())
        if args.presenter:
            rows += audit(args.url or server.url, presenter_names(), {"1280×720": VIEWPORTS["1280×720"]})
    finally:
        if server is not None:
            server.stop()
    import subprocess
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    text = (f"`python3 benchmarks/accessibility.py` · {time.strftime('%Y-%m-%d %H:%M')} UTC · at {commit} · axe-core "
            "4.12, every default rule (WCAG 2.0/2.1/2.2 A and AA, best practices) and target-size (WCAG 2.5.8), none "
            "disabled, no element excluded, every fold open\n\n"
            + table(rows))
    print(text)
    if not args.no_write:
        write_section(args.label or f"At {commit}", text)
        print(f"(written to {RESULTS.relative_to(ROOT)})")


if __name__ == "__main__":
    main()
